// The AcmeTrace reader on the published example rows of both schemas, and on bad input.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "harness.h"
#include "sim/error.h"
#include "workloads/csv_lines.h"
#include "workloads/registry.h"

namespace acme::test {
namespace {

}  // namespace

TEST_CASE("The published Seren example rows read with times converted from +08:00", "[reader]") {
  const Workload w = read_acme_trace_text(kPublishedSerenRows, "trace_seren.csv", {});
  REQUIRE(w.size() == 2);
  CHECK(w.names[0] == "5778432");
  CHECK(w.users[w.requests[0].user] == "u5907");
  CHECK(w.requests[0].gpu_num == 8);
  CHECK(w.requests[0].node_num == 1);
  CHECK(w.requests[0].cpu_num == 128);
  CHECK(w.requests[0].type == JobType::Other);
  CHECK(w.requests[0].submit == *parse_timestamp("2023-02-28 16:18:22+00:00"));
  CHECK(w.profiles[0].final_state == JobState::Failed);
  CHECK(w.profiles[0].run.sec() == 117);  // end - start, as the duration column says for Seren
  CHECK(*w.profiles[0].recorded_start() == *parse_timestamp("2023-03-01 00:18:54+08:00"));
  CHECK(w.profiles[1].run.sec() == 2693);
  CHECK(w.requests[0].user == w.requests[1].user);
}

TEST_CASE("The published Kalos example rows read with run time end - start, not its duration column",
          "[reader]") {
  const Workload w = read_acme_trace_text(kPublishedKalosRows, "trace_kalos.csv", {});
  REQUIRE(w.size() == 2);
  CHECK(w.names[1] == "dlc1t2ypl09b8qtp");
  CHECK(w.requests[0].gpu_num == 64);
  CHECK(w.requests[0].node_num == 8);
  CHECK(w.requests[0].cpu_num == 960);
  CHECK(w.profiles[0].run.sec() == 8);   // duration says 18: it includes the 10 s in the queue
  CHECK(w.profiles[1].run.sec() == 70);  // duration says 82
  CHECK(w.profiles[1].final_state == JobState::Cancelled);
  CHECK_FALSE(w.profiles[1].cancel_pending_at().has_value());
}

TEST_CASE("Columns are found by name in any order, extra columns ignored, CRLF and a BOM accepted", "[reader]") {
  const std::string text =
      "\xEF\xBB\xBF" "extra,state,type,user,job_id,end_time,start_time,submit_time,cpu_num,gpu_num,node_num\r\n"
      "x,COMPLETED,Eval,u1,7,2023-03-01 00:00:10Z,2023-03-01 00:00:05Z,2023-03-01 00:00:00Z,16,1,1";
  const Workload w = read_acme_trace_text(text, "t.csv", {});
  REQUIRE(w.size() == 1);
  CHECK(w.names[0] == "7");
  CHECK(w.profiles[0].run.sec() == 5);
}

TEST_CASE("Types and states in any case and offsets written +0800 or +08 read as AcmeTrace's, without a warning",
          "[reader]") {
  const std::string text =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
      "1,u1,1,8,128,eval,failed,2023-03-01 08:00:00+0800,2023-03-01 08:00:05+0800,2023-03-01 08:00:09+0800\n"
      "2,u1,1,8,128,PRETRAIN,Completed,2023-03-01 08:00:01+08,2023-03-01 08:00:05+08,2023-03-01 08:00:09+08\n"
      "3,u1,1,0,4,cpu,node_fail,2023-03-01T00:00:02Z,2023-03-01T00:00:05Z,2023-03-01T00:00:09Z\n";
  std::vector<std::string> warnings;
  const Workload w = read_acme_trace_text(text, "t.csv", {}, &warnings);
  REQUIRE(w.size() == 3);
  CHECK(w.requests[0].type == JobType::Eval);
  CHECK(w.profiles[0].final_state == JobState::Failed);
  CHECK(w.requests[1].type == JobType::Pretrain);
  CHECK(w.profiles[1].final_state == JobState::Completed);
  CHECK(w.requests[2].type == JobType::CPU);
  CHECK(w.profiles[2].final_state == JobState::NodeFail);
  CHECK(w.requests[0].submit == *parse_timestamp("2023-03-01 00:00:00Z"));
  CHECK(w.requests[1].submit == *parse_timestamp("2023-03-01 00:00:01Z"));
  CHECK(warnings.empty());
  // A name no case spells is still an error, REJECTED (no trace's state) among them.
  const std::string head = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n";
  CHECK_THROWS_WITH(read_acme_trace_text(head + "1,u1,1,8,128,evals,FAILED,2023-03-01 00:00:00Z,,2023-03-01 00:00:01Z\n",
                                         "t.csv", {}),
                    "t.csv:2: type: unknown job type 'evals'");
  CHECK_THROWS(read_acme_trace_text(head + "1,u1,1,8,128,Eval,rejected,2023-03-01 00:00:00Z,,2023-03-01 00:00:01Z\n",
                                    "t.csv", {}));
}

TEST_CASE("A window selects jobs by submit time, from inclusive, to exclusive", "[reader]") {
  TraceOptions opt;
  opt.from = *parse_timestamp("2023-03-01 00:20:00+08:00");
  opt.to = *parse_timestamp("2023-03-01 00:23:58+08:00");
  CHECK(read_acme_trace_text(kPublishedSerenRows, "t.csv", opt).size() == 0);
  opt.to = *parse_timestamp("2023-03-01 00:23:59+08:00");
  const Workload w = read_acme_trace_text(kPublishedSerenRows, "t.csv", opt);
  CHECK(w.size() == 1);
  CHECK(w.rows_outside_window == 1);
  // What the log says after loading: how many of the file's rows the window kept.
  CHECK(describe_loaded(w) ==
        "1 jobs (0 rows skipped; the window 2023-02-28 16:20:00+00:00 to 2023-02-28 16:23:59+00:00 kept 1 of the "
        "file's 2 rows)");
  CHECK(describe_loaded(read_acme_trace_text(kPublishedSerenRows, "t.csv", {})) ==
        "2 jobs (0 rows skipped; no window: every row of the file)");
}

TEST_CASE("RUNNING rows without an end run until the window's end", "[reader]") {
  const std::string text =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
      "r1,u1,1,8,128,Pretrain,RUNNING,2023-08-30 00:00:00+00:00,2023-08-30 01:00:00+00:00,\n";
  TraceOptions opt;
  opt.to = *parse_timestamp("2023-09-01");
  const Workload w = read_acme_trace_text(text, "t.csv", opt);
  REQUIRE(w.size() == 1);
  CHECK(w.profiles[0].final_state == JobState::Running);
  CHECK(w.profiles[0].run.sec() == 47 * 3600);
}

TEST_CASE("CPU jobs read with an empty gpu_time and gpu_num 0", "[reader]") {
  const std::string text =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
      "9,u1,1,0,4,CPU,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+08:00,2023-03-01 00:00:14+08:00,14,0,\n";
  const Workload w = read_acme_trace_text(text, "t.csv", {});
  REQUIRE(w.size() == 1);
  CHECK(w.requests[0].gpu_num == 0);
  CHECK(w.requests[0].type == JobType::CPU);
}

TEST_CASE("Malformed input stops with one line naming file, line and column", "[reader]") {
  const std::string header = kHeader;
  const std::string good = "1,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:01Z,2023-03-01 00:00:09Z\n";
  CHECK(trace_error("") == "t.csv:1: header: empty file: expected an AcmeTrace header");
  CHECK(trace_error(std::string("\x1f\x8b\x08\0\0\0", 6) + "\n") == "t.csv:1: header: gzip-compressed: decompress it first (gunzip)");
  CHECK(trace_error(std::string("PK\x03\x04\0\0", 6) + "\n") == "t.csv:1: header: a zip archive: extract the CSV first (unzip)");
  CHECK(trace_error("job_id,user\n1,u\n") ==
        "t.csv:1: header: missing required column 'node_num' (is this an AcmeTrace file?)");
  CHECK(trace_error(header + good + "2,u1,1,eight,128,Eval,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 00:00:09Z\n") ==
        "t.csv:3: gpu_num: expected a whole number, got 'eight'");
  CHECK(trace_error(header + "2,u1,1,-8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 00:00:09Z\n") ==
        "t.csv:2: gpu_num: must be between 0 and 1000000, got -8");
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:05Z,2023-03-01 00:00:01Z\n") ==
        "t.csv:2: end_time: before start_time");
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00,,2023-03-01 00:00:01Z\n") ==
        "t.csv:2: submit_time: expected a timestamp like 2023-03-01 00:18:22+08:00 (or Unix seconds), got "
        "'2023-03-01 00:00'");
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,1677628800.5x,,2023-03-01 00:00:01Z\n")
            .starts_with("t.csv:2: submit_time: expected a timestamp"));
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,-1677628800,,2023-03-01 00:00:01Z\n")
            .starts_with("t.csv:2: submit_time: expected a timestamp"));
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,253402300800,,2023-03-01 00:00:01Z\n")
            .starts_with("t.csv:2: submit_time: expected a timestamp"));
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,2023-02-30 00:00:00Z,,2023-03-01 00:00:01Z\n").find(
            "t.csv:2: submit_time:") == 0);
  CHECK(trace_error(header + "2,u1,1,8,128,Chat,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 00:00:01Z\n") ==
        "t.csv:2: type: unknown job type 'Chat'");
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,DONE,2023-03-01 00:00:00Z,,2023-03-01 00:00:01Z\n")
            .starts_with("t.csv:2: state: unknown job state 'DONE' (AcmeTrace's: COMPLETED,"));
  CHECK(trace_error(header + good + "3,u1,1,8") ==
        "t.csv:3: cpu_num: missing: the line has 4 fields, the header 10 (truncated line?)");
  CHECK(trace_error(header + "2,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,,\n") == "t.csv:2: end_time: empty");
}

TEST_CASE("Slurm's end states AcmeTrace does not use read as its nearest, with one warning", "[reader]") {
  const std::string row = ",u1,1,8,128,SFT,{},2023-03-01 00:00:00Z,2023-03-01 00:00:01Z,2023-03-01 00:00:09Z\n";
  std::string text = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n";
  const std::vector<std::pair<std::string, JobState>> states{
      {"COMPLETED", JobState::Completed}, {"OUT_OF_MEMORY", JobState::Failed}, {"BOOT_FAIL", JobState::NodeFail},
      {"DEADLINE", JobState::Timeout},     {"REVOKED", JobState::Cancelled},    {"CANCELLED by 1042", JobState::Cancelled},
      {"SUSPENDED", JobState::Preempted}};
  for (std::size_t i = 0; i < states.size(); ++i)
    text += std::to_string(i + 1) + fmt::format(fmt::runtime(row), states[i].first);
  const std::filesystem::path file = temp_dir("slurm_states") / "t.csv";
  std::ofstream(file) << text;
  std::vector<std::string> warnings;
  const Workload w = read_acme_trace(file.string(), {}, &warnings);
  REQUIRE(w.size() == states.size());
  for (std::size_t i = 0; i < states.size(); ++i) CHECK(w.profiles[i].final_state == states[i].second);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].starts_with(": 6 rows end in a Slurm state AcmeTrace does not use (first on line 3)"));
}

TEST_CASE("Lenient reading skips and counts malformed rows instead of stopping", "[reader]") {
  const std::string text =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
      "1,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:01Z,2023-03-01 00:00:09Z\n"
      "2,u1,1,x,128,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:01Z,2023-03-01 00:00:09Z\n"
      "3,u1,1,8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:01Z,2023-03-01 00:00:09Z\n";
  TraceOptions opt;
  opt.lenient = true;
  const Workload w = read_acme_trace_text(text, "t.csv", opt);
  CHECK(w.size() == 2);
  CHECK(w.rows_skipped == 1);
}

TEST_CASE("Quoted fields may hold commas and doubled quotes", "[reader]") {
  const std::string text =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
      "\"a,\"\"b\"\"\",\"u1\",1,8,128,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:01Z,2023-03-01 00:00:09Z\n";
  const Workload w = read_acme_trace_text(text, "t.csv", {});
  REQUIRE(w.size() == 1);
  CHECK(w.names[0] == "a,\"b\"");
}

TEST_CASE("A missing trace file is an error naming the file", "[reader]") {
  CHECK_THROWS_WITH(read_acme_trace("/nonexistent/trace.csv", {}), "/nonexistent/trace.csv: cannot open the trace file");
}

}  // namespace acme::test

namespace acme::test {

TEST_CASE("A line without quotes splits at every comma, whatever its length", "[reader][csv]") {
  std::mt19937 rng(7);
  std::vector<std::string_view> fields;
  std::string scratch;
  for (int n = 0; n < 3000; ++n) {
    std::string line(rng() % 70, 'a');
    for (char& c : line) c = ",a \t"[rng() % 4];
    INFO(line);
    std::vector<std::string> expected(1);
    for (const char c : line) {
      if (c == ',') expected.emplace_back();
      else expected.back() += c;
    }
    csv_lines::split(line, fields, scratch);
    REQUIRE(fields.size() == expected.size());
    for (std::size_t i = 0; i < fields.size(); ++i) CHECK(fields[i] == expected[i]);
  }
}

}  // namespace acme::test
