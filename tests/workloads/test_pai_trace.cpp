// Alibaba PAI's GPU trace (cluster-trace-gpu-v2020): its job and task tables read together
// (workloads/pai_trace.h), from the few rows of tests/data/other_formats/pai/ worked out by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "harness.h"
#include "sim/error.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/trace_cache.h"

namespace acme::test {
namespace {

namespace fs = std::filesystem;

const fs::path kSample = source_dir() / "tests/data/other_formats/pai";

// A copy of the sample in a folder of its own.
fs::path copied_sample(const std::string& name) {
  const fs::path dir = temp_dir("pai-" + name);
  for (const auto& entry : fs::directory_iterator(kSample)) fs::copy_file(entry.path(), dir / entry.path().filename());
  return dir;
}

// The same, with the first `from` in the named file replaced by `to`.
fs::path edited_sample(const std::string& name, const std::string& file, const std::string& from, const std::string& to) {
  const fs::path dir = copied_sample(name);
  std::string text = read_file(dir / file);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(dir / file, std::ios::trunc) << text;
  return dir;
}

}  // namespace

TEST_CASE("A PAI trace reads from either table: sizes from the tasks, submission from the job", "[reader]") {
  for (const char* given : {"pai_job_table.csv", "pai_task_table.csv"}) {
    std::vector<std::string> warnings;
    const Workload w = read_acme_trace((kSample / given).string(), {}, &warnings);
    REQUIRE(w.size() == 6);
    // One worker of 1 GPU and 6 cores, submitted at 1,000,000 s, started 10 s later, ended at 1,000,600.
    CHECK(w.names[0] == "4b3f04b66a525d2df903eb16");
    CHECK(w.requests[0].type == JobType::Other);
    CHECK(w.requests[0].gpu_num == 1);
    CHECK(w.requests[0].cpu_num == 6);
    CHECK(w.requests[0].node_num == 1);
    CHECK(w.requests[0].submit == Time::seconds(1000000));
    CHECK(*w.profiles[0].recorded_start() == Time::seconds(1000010));
    CHECK(w.profiles[0].run == Time::seconds(590));
    // A ps (4 cores, no GPU) and 4 workers of half a GPU and 6 cores: 4 whole GPUs, 28 cores; the
    // earliest task's start, the job's end.
    CHECK(w.requests[1].gpu_num == 4);
    CHECK(w.requests[1].cpu_num == 28);
    CHECK(*w.profiles[1].recorded_start() == Time::seconds(1000130));
    CHECK(w.profiles[1].run == Time::seconds(1003000 - 1000130));
    // Two instances of 8 GPUs: 16 GPUs on 2 nodes; failed.
    CHECK(w.requests[2].gpu_num == 16);
    CHECK(w.requests[2].node_num == 2);
    CHECK(w.profiles[2].final_state == JobState::Failed);
    // No GPU: a CPU job of 2 cores.
    CHECK(w.requests[3].type == JobType::CPU);
    CHECK(w.requests[3].cpu_num == 2);
    // Still running: to the horizon, the latest time of the tables (1,003,000).
    CHECK(w.profiles[4].final_state == JobState::Running);
    CHECK(w.profiles[4].run == Time::seconds(1003000 - 1002050));
    // Waiting (its task's start 0: never): never started, withdrawn at the horizon.
    CHECK(!w.profiles[5].recorded_start());
    CHECK(*w.profiles[5].cancel_pending_at() == Time::seconds(1003000));
    CHECK(w.profiles[5].final_state == JobState::Cancelled);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == ": 1 jobs ask for part of a GPU per instance (PAI shares GPUs): given whole GPUs, rounded up");
  }
}

TEST_CASE("A PAI table's columns come from its first line, its .header file, or the published order", "[reader]") {
  const Workload sample = read_acme_trace((kSample / "pai_job_table.csv").string(), {});
  // A header line in the task table, its first two columns swapped in every line.
  const fs::path swapped = copied_sample("header-line");
  std::string text = "task_name,job_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n";
  for (const std::string& line : lines_of(read_file(kSample / "pai_task_table.csv"))) {
    const std::size_t first = line.find(','), second = line.find(',', first + 1);
    text += line.substr(first + 1, second - first - 1) + "," + line.substr(0, first) + line.substr(second) + "\n";
  }
  std::ofstream(swapped / "pai_task_table.csv", std::ios::trunc) << text;
  const Workload reordered = read_acme_trace((swapped / "pai_job_table.csv").string(), {});
  REQUIRE(reordered.size() == sample.size());
  for (std::size_t i = 0; i < sample.size(); ++i) {
    CHECK(reordered.requests[i].gpu_num == sample.requests[i].gpu_num);
    CHECK(reordered.requests[i].cpu_num == sample.requests[i].cpu_num);
    CHECK(reordered.profiles[i].run == sample.profiles[i].run);
  }
  // No .header files: the published order, known by the shape of the first line.
  const fs::path bare = temp_dir("pai-bare");
  for (const char* f : {"pai_job_table.csv", "pai_task_table.csv"}) fs::copy_file(kSample / f, bare / f);
  const Workload w = read_acme_trace((bare / "pai_job_table.csv").string(), {});
  REQUIRE(w.size() == sample.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    CHECK(w.requests[i].gpu_num == sample.requests[i].gpu_num);
    CHECK(w.profiles[i].run == sample.profiles[i].run);
  }
}

TEST_CASE("A PAI table without its partner, or with a bad cell, stops with one line", "[reader]") {
  const fs::path alone = temp_dir("pai-alone");
  fs::copy_file(kSample / "pai_job_table.csv", alone / "pai_job_table.csv");
  CHECK_THROWS_WITH(read_acme_trace((alone / "pai_job_table.csv").string(), {}),
                    Catch::EndsWith("PAI's other table is not there: " + (alone / "pai_task_table.csv").string()));
  const fs::path status = edited_sample("status", "pai_job_table.csv", "Waiting", "Queued");
  CHECK_THROWS_WITH(read_acme_trace((status / "pai_job_table.csv").string(), {}),
                    Catch::EndsWith("pai_job_table.csv:6: status: unknown status 'Queued' (PAI's: Terminated, Failed, "
                                    "Running, Waiting)"));
  const fs::path gpus = edited_sample("gpus", "pai_task_table.csv", "800.0,V100M32", "eight,V100M32");
  CHECK_THROWS_WITH(read_acme_trace((gpus / "pai_task_table.csv").string(), {}),
                    Catch::EndsWith("pai_task_table.csv:4: plan_gpu: expected a number of 0 or more, got 'eight'"));
  const fs::path twice = edited_sample("twice", "pai_job_table.csv", "af724763f4f5d0beef445849", "4b3f04b66a525d2df903eb16");
  CHECK_THROWS_WITH(read_acme_trace((twice / "pai_job_table.csv").string(), {}),
                    Catch::EndsWith("pai_job_table.csv:3: job_name: used by an earlier job"));
}

TEST_CASE("A PAI trace's cache entry is parsed again when its other table changes", "[reader][cache]") {
  const fs::path dir = copied_sample("cache");
  TraceCacheSettings cache;
  cache.dir = (temp_dir("pai-cache-dir")).string();
  const std::string trace = (dir / "pai_job_table.csv").string();
  CHECK(read_acme_trace_cached(trace, {}, cache).use == TraceCacheUse::Built);
  const CachedTrace hit = read_acme_trace_cached(trace, {}, cache);
  CHECK(hit.use == TraceCacheUse::Hit);
  CHECK(hit.workload.source == "PAI " + trace);  // as a read without the cache names it (run.json's source)
  std::ofstream(dir / "pai_task_table.csv", std::ios::app) << "471dda9ed84965451e042145,evaluator,1.0,Waiting,0.0,,100.0,1.0,,\n";
  const CachedTrace again = read_acme_trace_cached(trace, {}, cache);
  CHECK(again.use == TraceCacheUse::Built);
  CHECK(again.workload.requests[5].cpu_num == 7);
}

}  // namespace acme::test
