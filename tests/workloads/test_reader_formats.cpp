// Traces in AcmeTrace's columns from elsewhere: Helios's cluster_log.csv, Slurm's own export
// (sacct --parsable2), and timestamps without an offset or in Unix seconds.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "harness.h"
#include "workloads/registry.h"
#include "workloads/sacct_columns.h"
#include "workloads/trace_schema.h"

namespace acme::test {
namespace {

// `text` written to a file of its own and read on `threads` threads (a file, not text in memory:
// the reader of several threads cuts a file), with the warnings it logs.
Workload read_written(const std::string& name, const std::string& text, TraceOptions opt, unsigned threads,
                      std::vector<std::string>& warnings) {
  const std::filesystem::path file = temp_dir(name + "-" + std::to_string(threads)) / "trace";
  std::ofstream(file) << text;
  opt.threads = threads;
  warnings.clear();
  return read_acme_trace(file.string(), opt, &warnings);
}

}  // namespace

// Helios's cluster_log.csv (SenseTime, SC '21), its columns as published: a `vc` column, no `type`,
// and local times without an offset.
TEST_CASE("A Helios trace reads: jobs typed by their GPUs, times in the offset given or UTC, with warnings", "[reader]") {
  const std::string text =
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
      "1425512,uVMrF,vchbv,0,16,0,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:29,2020-06-09 18:45:36,247,2\n"
      "1425513,uzqls,vcpDC,16,64,2,CANCELLED,2020-06-09 18:41:28,,2020-06-09 19:41:28,0,3600\n";
  for (const unsigned threads : {1u, 2u}) {
    std::vector<std::string> warnings;
    const Workload utc = read_written("helios", text, {}, threads, warnings);
    REQUIRE(utc.size() == 3);
    CHECK(utc.requests[0].type == JobType::Other);
    CHECK(utc.requests[1].type == JobType::CPU);
    CHECK(utc.requests[1].node_num == 1);
    CHECK(utc.requests[2].type == JobType::Other);
    CHECK(utc.requests[2].node_num == 2);
    CHECK(utc.requests[0].submit == *parse_timestamp("2020-06-09 18:41:01Z"));
    CHECK(utc.profiles[0].run == Time::seconds(36848));
    CHECK(!utc.profiles[2].recorded_start());
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[0] == ": no type column: jobs with GPUs read as Other, the others as CPU");
    CHECK(warnings[1].starts_with(": 3 rows have timestamps without a UTC offset (first on line 2): read as UTC;"));

    TraceOptions shanghai_time;
    shanghai_time.utc_offset_s = 8 * 3600;
    const Workload shanghai = read_written("helios", text, shanghai_time, threads, warnings);
    REQUIRE(shanghai.size() == 3);
    CHECK(shanghai.requests[0].submit == *parse_timestamp("2020-06-09 18:41:01+08:00"));
    CHECK(shanghai.profiles[0].run == Time::seconds(36848));
    CHECK(warnings.size() == 1);  // the offset was said: only the types are warned of
  }
}

TEST_CASE("Timestamps in Unix seconds, and with an offset beside the offset given, read as written", "[reader]") {
  const std::string text =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
      "1,u1,1,8,128,SFT,COMPLETED,1591728061,1591728062.75,2020-06-09 18:41:09Z\n"
      "2,u1,1,8,128,SFT,COMPLETED,2020-06-09 18:41:01+02:00,2020-06-09 18:41:02,2020-06-09 18:41:09\n";
  TraceOptions opt;
  opt.utc_offset_s = -5 * 3600;
  const Workload w = read_acme_trace_text(text, "t.csv", opt);
  REQUIRE(w.size() == 2);
  CHECK(w.requests[0].submit == Time::seconds(1591728061));
  CHECK(w.requests[0].submit == *parse_timestamp("2020-06-09 18:41:01Z"));
  CHECK(w.profiles[0].run == Time::seconds(7));
  CHECK(w.requests[1].submit == *parse_timestamp("2020-06-09 16:41:01Z"));
  CHECK(*w.profiles[1].recorded_start() == *parse_timestamp("2020-06-09 23:41:02Z"));
}


// sacct -a -X -P -o JobID,User,NNodes,NCPUS,AllocTRES,ReqTRES,State,Submit,Start,End, as Slurm 22
// writes it, with two step rows an export without -X adds.
TEST_CASE("A sacct export reads: GPUs from its TRES, steps skipped, times in the offset given", "[reader]") {
  const std::string text =
      "JobID|User|NNodes|NCPUS|AllocTRES|ReqTRES|State|Submit|Start|End\n"
      "1001|alice|1|16|billing=16,cpu=16,gres/gpu=8,mem=64G,node=1||COMPLETED|2023-03-01T00:18:22|"
      "2023-03-01T00:18:54|2023-03-01T00:20:51\n"
      "1001.batch|alice|1|16|cpu=16,gres/gpu=8,mem=64G,node=1||COMPLETED|2023-03-01T00:18:54|2023-03-01T00:18:54|"
      "2023-03-01T00:20:51\n"
      "1001.extern|alice|1|16|cpu=16,gres/gpu=8,node=1||COMPLETED|2023-03-01T00:18:54|2023-03-01T00:18:54|"
      "2023-03-01T00:20:51\n"
      "1002|bob|2|64|billing=64,cpu=64,gres/gpu:a100=16,gres/gpu=16,node=2||CANCELLED by 1042|2023-03-01T00:19:00|"
      "2023-03-01T00:19:30|2023-03-01T01:00:00\n"
      "1003|carol|1|4|billing=4,cpu=4,mem=8G,node=1||FAILED|2023-03-01T00:20:00|2023-03-01T00:20:01|"
      "2023-03-01T00:21:00\n"
      "1004_3|dave|1|8|cpu=8,gres/gpu:a100=2,gres/gpu:v100=1,node=1||TIMEOUT|2023-03-01T00:21:00|"
      "2023-03-01T00:21:05|2023-03-01T04:21:05\n"
      "1005|erin|4|8||billing=8,cpu=8,gres/gpu=32,node=4|PENDING|2023-03-01T00:22:00|Unknown|Unknown\n"
      "1006|frank|1|2|cpu=2,mem=4G,node=1||CANCELLED by 0|2023-03-01T00:23:00|None|2023-03-01T00:30:00\n";
  TraceOptions opt;
  opt.utc_offset_s = -5 * 3600;
  for (const unsigned threads : {1u, 2u}) {
    std::vector<std::string> warnings;
    const Workload w = read_written("sacct", text, opt, threads, warnings);
    REQUIRE(w.size() == 6);
    CHECK(w.names[0] == "1001");
    CHECK(w.names[3] == "1004_3");
    const std::vector<std::int32_t> gpus{8, 16, 0, 3, 32, 0}, nodes{1, 2, 1, 1, 4, 1}, cpus{16, 64, 4, 8, 8, 2};
    const std::vector<JobState> states{JobState::Completed, JobState::Cancelled, JobState::Failed,
                                       JobState::Timeout,   JobState::Running,   JobState::Cancelled};
    for (std::size_t j = 0; j < w.size(); ++j) {
      CHECK(w.requests[j].gpu_num == gpus[j]);
      CHECK(w.requests[j].node_num == nodes[j]);
      CHECK(w.requests[j].cpu_num == cpus[j]);
      CHECK(w.requests[j].type == (gpus[j] > 0 ? JobType::Other : JobType::CPU));
      CHECK(w.profiles[j].final_state == states[j]);
    }
    CHECK(w.requests[0].submit == *parse_timestamp("2023-03-01 05:18:22Z"));
    CHECK(w.profiles[0].run == Time::seconds(117));
    CHECK(!w.profiles[4].recorded_start());
    CHECK(!w.profiles[5].recorded_start());
    REQUIRE(warnings.size() == 3);
    CHECK(warnings[0].starts_with(": 3 rows end in a Slurm state AcmeTrace does not use (first on line 5)"));
    CHECK(warnings[1].starts_with(": 2 rows are job steps (an id with a '.', first on line 3): skipped"));
    CHECK(warnings[2] == ": no type column: jobs with GPUs read as Other, the others as CPU");
  }
}

// Slurm's time limits as sacct writes them, and as --time takes them.
TEST_CASE("A sacct export's Timelimit is each job's time limit, kept across the reader's parts", "[reader]") {
  using sacct_columns::timelimit_seconds;
  CHECK(timelimit_seconds("02:00:00") == 7200);
  CHECK(timelimit_seconds("1-00:00:00") == 86400);
  CHECK(timelimit_seconds("3-12:30:05") == ((3 * 24 + 12) * 60 + 30) * 60 + 5);
  CHECK(timelimit_seconds("90") == 5400);        // minutes
  CHECK(timelimit_seconds("30:15") == 1815);     // minutes:seconds
  CHECK(timelimit_seconds("2-6") == 2 * 86400 + 6 * 3600);  // days-hours
  CHECK(timelimit_seconds("2-6:30") == 2 * 86400 + 6 * 3600 + 30 * 60);
  for (const char* none : {"", "UNLIMITED", "Partition_Limit", "INVALID"}) CHECK(timelimit_seconds(none) == 0);
  for (const char* bad : {"2h", "1-", "1:2:3:4", "12:", ":30", "-5", "1234567890"})
    CHECK_FALSE(timelimit_seconds(bad).has_value());

  // 60,000 rows, read in parts on 2 threads (1 MiB each): the first 30,000 and the last 10,000
  // record no limit, every other row between them one of (row % 1000 + 1) minutes.
  std::string text = "JobID|User|NNodes|NCPUS|AllocTRES|State|Submit|Start|End|Timelimit\n";
  for (int j = 0; j < 60000; ++j)
    text += std::to_string(j) + "|u|1|8|cpu=8,gres/gpu=8|COMPLETED|2023-03-01T00:00:00|2023-03-01T00:00:01|" +
            "2023-03-01T00:10:00|" + (j < 30000 || j >= 50000 || j % 2 ? "UNLIMITED" : std::to_string(j % 1000 + 1)) + "\n";
  std::vector<Workload> reads;
  for (const unsigned threads : {1u, 2u}) {
    std::vector<std::string> warnings;
    reads.push_back(read_written("sacct-limits", text, {}, threads, warnings));
    const Workload& w = reads.back();
    REQUIRE(w.size() == 60000);
    REQUIRE(w.time_limits.size() == 60000);
    CHECK(w.time_limit(0) == Time{});
    CHECK(w.time_limit(29999) == Time{});
    CHECK(w.time_limit(30000) == Time::seconds(60));
    CHECK(w.time_limit(30001) == Time{});
    CHECK(w.time_limit(49998) == Time::seconds((49998 % 1000 + 1) * 60));
    CHECK(w.time_limit(59998) == Time{});
  }
  check_same_jobs(reads[0], reads[1]);
  CHECK(trace_error("JobID|User|NNodes|NCPUS|AllocTRES|State|Submit|Start|End|Timelimit\n"
                    "7|u|1|8|cpu=8|COMPLETED|2023-03-01T00:00:00|2023-03-01T00:00:01|2023-03-01T00:00:02|2h\n") ==
        "t.csv:2: Timelimit: expected [days-]hours:minutes:seconds, UNLIMITED or Partition_Limit, got '2h'");
  CHECK(trace_error("JobID|User|NNodes|NCPUS|AllocTRES|State|Submit|Start|End|Timelimit\n"
                    "7|u|1|8|cpu=8|COMPLETED|2023-03-01T00:00:00|2023-03-01T00:00:01|2023-03-01T00:00:02\n") ==
        "t.csv:2: Timelimit: missing: the line has 9 fields, the header 10 (truncated line?)");
}

TEST_CASE("A sacct export without a field the trace needs, or with a bad TRES, stops with one line", "[reader]") {
  CHECK(trace_error("JobID|User|NCPUS|AllocTRES|State|Submit|Start|End\n") ==
        "t.csv:1: header: missing sacct field NNodes (sacct -a -X -P -o JobID,User,NNodes,NCPUS,AllocTRES,ReqTRES,"
        "State,Submit,Start,End,Timelimit exports a trace)");
  const std::string header = "jobid|user|nnodes|ncpus|alloctres|state|submit|start|end\n";  // -o in lower case
  CHECK(trace_error(header + "7|u|1|8|cpu=8,gres/gpu=eight|COMPLETED|2023-03-01T00:00:00|2023-03-01T00:00:01|"
                             "2023-03-01T00:00:02\n") == "t.csv:2: AllocTRES: expected a whole number, got 'eight'");
  CHECK(trace_error(header + "7|u|1|8|cpu=8|COMPLETED|2023-03-01T00:00:00|Unknown|Unknown\n") ==
        "t.csv:2: End: missing ('Unknown')");
  CHECK(trace_error("JobID|User|NNodes|NCPUS|AllocTRES|State|Submit|Start|End|ReqTRES\n"
                    "1|u|1|8|gres/gpu=1|COMPLETED|2023-03-01T00:00:00|2023-03-01T00:00:01|2023-03-01T00:00:02\n") ==
        "t.csv:2: ReqTRES: missing: the line has 9 fields, the header 10 (truncated line?)");
}

TEST_CASE("A trace from elsewhere is of neither shipped cluster's schema, and warned of only for its size", "[reader]") {
  CHECK(schema_of_header("job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time") ==
        TraceSchema::Seren);
  CHECK(schema_of_header("job_id,user,gpu_num,cpu_num,node_num,type,state,submit_time,start_time,end_time,"
                         "mem_per_pod_GB") == TraceSchema::Kalos);
  CHECK(schema_of_header("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time") ==
        TraceSchema::Other);
  CHECK(schema_of_header("JobID|User|NNodes|NCPUS|AllocTRES|State|Submit|Start|End") == TraceSchema::Other);
  ClusterSpec seren = small_cluster(4);
  seren.name = "seren";
  CHECK(!trace_unlike_cluster("t.csv", "other", seren, 0));
  CHECK(trace_unlike_cluster("t.csv", "kalos", seren, 0));
  CHECK(*trace_unlike_cluster("t.csv", "other", seren, 2) ==
        "t.csv: a trace of the other schema replayed on cluster seren (4 nodes of 8 GPUs): 2 of its jobs need more "
        "nodes than the cluster has (REJECTED)");
}

// tests/data/other_formats/philly_cluster_job_log.json: five jobs in Philly's cluster_job_log form.
TEST_CASE("A Philly trace reads: sizes from the first attempt on machines, attempts' run times added up", "[reader]") {
  const std::string path = (source_dir() / "tests/data/other_formats/philly_cluster_job_log.json").string();
  std::vector<std::string> warnings;
  TraceOptions opt;
  opt.utc_offset_s = -7 * 3600;
  const Workload w = read_acme_trace(path, opt, &warnings);  // the JSON is told from a CSV by its first byte
  REQUIRE(w.size() == 4);  // the job with no attempt names no GPUs
  CHECK(w.names[0] == "application_1506638472019_10238");
  const std::vector<std::int32_t> gpus{2, 16, 1, 4}, nodes{1, 2, 1, 1};
  const std::vector<JobState> states{JobState::Completed, JobState::Failed, JobState::Running, JobState::Cancelled};
  for (std::size_t j = 0; j < w.size(); ++j) {
    CHECK(w.requests[j].gpu_num == gpus[j]);
    CHECK(w.requests[j].node_num == nodes[j]);
    CHECK(w.requests[j].cpu_num == 0);
    CHECK(w.requests[j].type == JobType::Other);
    CHECK(w.profiles[j].final_state == states[j]);
  }
  CHECK(w.requests[0].submit == *parse_timestamp("2017-10-08 00:21:01Z"));
  CHECK(*w.profiles[0].recorded_start() == *parse_timestamp("2017-10-08 00:21:10Z"));
  CHECK(w.profiles[0].run == Time::seconds(103));
  CHECK(w.profiles[1].run == Time::seconds(600 + 1200));  // two attempts, the wait between them not counted
  CHECK(w.profiles[2].run == Time::seconds(1800));        // still running: to the latest time of the file
  CHECK(!w.profiles[3].recorded_start());                 // never started: withdrawn at its attempt's end
  CHECK(*w.profiles[3].cancel_pending_at() == *parse_timestamp("2017-10-08 01:30:00Z"));
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == ": 1 jobs ran on no machine in any attempt, so name no GPUs: skipped");
}

TEST_CASE("A Philly trace that does not parse, or with a job it cannot read, stops with one line", "[reader]") {
  const auto error = [](const std::string& name, const std::string& text) {
    const std::filesystem::path file = temp_dir("philly-" + name) / "log.json";
    std::ofstream(file) << text;
    std::string e = error_of([&] { read_acme_trace(file.string(), {}); });
    return e.substr(e.find("log.json") + 8);
  };
  const std::string job = R"({"status": "Pass", "jobid": "a", "submitted_time": "2017-10-07 17:21:01", "user": "u", )"
                          R"("attempts": [{"start_time": "2017-10-07 17:21:02", "end_time": "2017-10-07 17:22:00", )"
                          R"("detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]})";
  CHECK(error("truncated", "[" + job.substr(0, 40)) == ": not a Philly trace (JSON that does not parse, at byte 42)");
  CHECK(error("object", R"({"jobs": []})") == ": not a Philly trace (a JSON array of jobs expected)");
  CHECK(error("twice", "[" + job + ", " + job + "]") == ": job 2 (a): jobid: used by an earlier job");
  std::string done = job;
  done.replace(done.find("Pass"), 4, "Done");
  CHECK(error("status", "[" + done + "]") == ": job 1 (a): status: unknown status 'Done' (Philly's: Pass, Killed, Failed)");
  std::string early = job;
  early.replace(early.find("17:21:02"), 8, "17:20:00");
  CHECK(error("early", "[" + early + "]") == ": job 1 (a): start_time: before submitted_time");
}

}  // namespace acme::test
