// Time limits enforced (features/time_limits.cpp): scenarios worked out by hand on one node of 8
// GPUs under fifo, from SWF logs whose requested times are the jobs' limits.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness.h"
#include "app/app.h"
#include "io/csv_table.h"

namespace acme::test {
namespace {

// Writes `swf` (its job lines) as an SWF log, a one-node cluster and a fifo configuration into
// `dir`, runs it with `settings` and returns jobs.csv's rows as "job_id,state,start,end,
// wasted_gpu_seconds" (times in seconds after the first job's submission).
std::vector<std::string> run_log(const std::filesystem::path& dir, const std::string& swf,
                                 const std::vector<std::string>& settings) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "log.swf") << "; UnixStartTime: 1677628800\n" << swf;
  std::ofstream(dir / "one.yaml") << "name: one\nnodes: 1\ngpus_per_node: 8\ncpus_per_node: 128\n";
  std::ofstream(dir / "run.yaml") << "cluster: one.yaml\nworkload:\n  trace: log.swf\npolicy:\n  name: fifo\n";
  RunArgs args;
  args.config = (dir / "run.yaml").string();
  args.overrides = settings;
  args.overrides.push_back("outputs=jobs,summary");
  args.out_dir = (dir / "out").string();
  args.progress = false;
  REQUIRE(run_command(args) == 0);
  const CsvTable t = read_csv(dir / "out" / "jobs.csv");
  const auto col = [&](const std::string& name) {
    REQUIRE(t.column(name));
    return *t.column(name);
  };
  const std::size_t id = col("job_id"), state = col("state"), submit = col("submit_s"), start = col("start_s"),
                    end = col("end_s"), wasted = col("wasted_gpu_seconds");
  REQUIRE(!t.rows.empty());
  const long base = std::stol(t.rows[0][submit]);
  const auto after = [&](const std::string& cell) { return std::to_string(std::stol(cell) - base); };
  std::vector<std::string> out;
  for (const auto& r : t.rows) out.push_back(r[id] + "," + r[state] + "," + after(r[start]) + "," + after(r[end]) + "," + r[wasted]);
  return out;
}

// The cells of `column` in the run's output `file`.
std::vector<std::string> cells(const std::filesystem::path& dir, const std::string& file, const std::string& column) {
  const CsvTable t = read_csv(dir / "out" / file);
  REQUIRE(t.column(column));
  std::vector<std::string> out;
  for (const auto& r : t.rows) out.push_back(r[*t.column(column)]);
  return out;
}

}  // namespace

// 1 (8 GPUs) ran 300 s though it asked 100; 2 (8 GPUs, 50 s, asked 60) waits for it; 3 (4 GPUs,
// 40 s) asked for nothing. Off: the log as it ran. Enforced: 1 is killed at 100 (TIMEOUT, its
// 800 GPU-seconds wasted), 2 runs 100-150, 3 150-190. With 50 s of grace, 1 is killed at 150.
// With a default limit of 36 s for its type (Other, an SWF job's), 3 is killed at 186 too.
TEST_CASE("A run that outlives its recorded limit is killed there, as Slurm does", "[time_limits][golden]") {
  const std::string swf =
      "1 0 0 300 8 -1 -1 8 100 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 10 0 50 8 -1 -1 8 60 -1 1 1 1 -1 1 -1 -1 -1\n"
      "3 20 0 40 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
  const auto dir = temp_dir("time-limits");
  CHECK(run_log(dir / "off", swf, {}) ==
        std::vector<std::string>{"1,COMPLETED,0,300,0", "2,COMPLETED,300,350,0", "3,COMPLETED,350,390,0"});
  CHECK(read_file(dir / "off" / "out" / "summary.csv").find("timeouts") == std::string::npos);
  CHECK(read_file(dir / "off" / "out" / "jobs.csv").find("time_limit_s") == std::string::npos);

  CHECK(run_log(dir / "on", swf, {"time_limits.enforced=true"}) ==
        std::vector<std::string>{"1,TIMEOUT,0,100,800", "2,COMPLETED,100,150,0", "3,COMPLETED,150,190,0"});
  CHECK(cells(dir / "on", "summary.csv", "timeouts") == std::vector<std::string>{"1"});
  CHECK(cells(dir / "on", "summary.csv", "timeout_gpu_h") == std::vector<std::string>{"0.22"});  // 800 GPU-seconds
  CHECK(cells(dir / "on", "summary.csv", "jobs_timeout") == std::vector<std::string>{"1"});
  CHECK(cells(dir / "on", "jobs.csv", "time_limit_s") == std::vector<std::string>{"100", "60", ""});

  CHECK(run_log(dir / "default", swf, {"time_limits.enforced=true", "time_limits.default_h.Other=0.01"}) ==
        std::vector<std::string>{"1,TIMEOUT,0,100,800", "2,COMPLETED,100,150,0", "3,TIMEOUT,150,186,144"});
  CHECK(cells(dir / "default", "jobs.csv", "time_limit_s") == std::vector<std::string>{"100", "60", "36"});
  CHECK(cells(dir / "default", "summary.csv", "timeouts") == std::vector<std::string>{"2"});

  CHECK(run_log(dir / "grace", swf, {"time_limits.enforced=true", "time_limits.grace_s=50"}) ==
        std::vector<std::string>{"1,TIMEOUT,0,150,1200", "2,COMPLETED,150,200,0", "3,COMPLETED,200,240,0"});
}

// A power cap the cluster is always over holds every job at the lowest clock, 0.5: a job runs
// twice its log's time. 1 (4 GPUs, 100 s, asked 105) would end at 200: killed at 105. 2 (4 GPUs,
// 100 s, asked 300) ends at 200, within its limit. Without enforcement both end at 200.
TEST_CASE("A run slowed past its limit by the model is killed at the limit", "[time_limits][golden]") {
  const std::string swf =
      "1 0 0 100 4 -1 -1 4 105 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 0 0 100 4 -1 -1 4 300 -1 1 1 1 -1 1 -1 -1 -1\n";
  const std::vector<std::string> capped = {"power.enabled=true", "power.cap_kw=0.001", "power.min_clock=0.5"};
  const auto dir = temp_dir("time-limits-slowed");
  CHECK(run_log(dir / "off", swf, capped) == std::vector<std::string>{"1,COMPLETED,0,200,0", "2,COMPLETED,0,200,0"});
  std::vector<std::string> enforced = capped;
  enforced.push_back("time_limits.enforced=true");
  CHECK(run_log(dir / "on", swf, enforced) == std::vector<std::string>{"1,TIMEOUT,0,105,420", "2,COMPLETED,0,200,0"});
}

// With a launch of 20 s, 1 (8 GPUs, asked 5 s) is killed while it launches, at 5: it starts and
// ends then, its 40 GPU-seconds wasted; 2 (8 GPUs, 100 s, asked 500) is placed at 5 and starts at
// 25, after its own launch (160 GPU-seconds wasted launching).
TEST_CASE("A limit shorter than the launch kills the run as it launches", "[time_limits][golden]") {
  const std::string swf =
      "1 0 0 100 8 -1 -1 8 5 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 0 0 100 8 -1 -1 8 500 -1 1 1 1 -1 1 -1 -1 -1\n";
  const auto dir = temp_dir("time-limits-launch");
  CHECK(run_log(dir, swf, {"time_limits.enforced=true", "launch.gpu_median_s=20"}) ==
        std::vector<std::string>{"1,TIMEOUT,5,5,40", "2,COMPLETED,25,125,160"});
  CHECK(cells(dir, "jobs.csv", "launch_s") == std::vector<std::string>{"5", "20"});
}

}  // namespace acme::test
