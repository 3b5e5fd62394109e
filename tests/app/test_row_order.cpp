// Row order and windows change no job's draws (issue 38): every random draw of a job is keyed by
// its identity (Workload::keys, the hash of its job_id), never by its row. The same job gets the
// same launch latency and the same failures in a whole trace, in a shuffled copy and in a window
// cut from it; and a shuffled trace without same-second submissions gives every job the same row
// of jobs.csv under a shipped configuration.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "harness.h"
#include "app/app.h"
#include "features/failures.h"
#include "sim/random.h"

namespace acme::test {
namespace {

const std::string kHeader =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";

// `n` Seren-schema rows, one a distinct submit second, drawn from `seed`: GPU jobs of 1 to 64
// GPUs and CPU jobs (whole_nodes: only GPU jobs of whole nodes, which then never share a node),
// of several types, users and final states.
std::vector<std::string> random_rows(std::size_t n, std::uint64_t seed, bool whole_nodes) {
  static const std::array<int, 7> kGpus = {0, 1, 2, 4, 8, 16, 64};
  static const std::array<const char*, 5> kTypes = {"Pretrain", "SFT", "Eval", "Debug", "Other"};
  static const std::array<const char*, 4> kStates = {"COMPLETED", "COMPLETED", "FAILED", "CANCELLED"};
  Rng rng(seed);
  std::vector<std::string> rows;
  std::int64_t submit = 0;
  for (std::size_t i = 0; i < n; ++i) {
    submit += 1 + static_cast<std::int64_t>(rng.uniform() * 90);  // never two in one second
    const int gpus = whole_nodes ? 8 << static_cast<int>(rng.uniform() * 3) : kGpus[static_cast<std::size_t>(rng.uniform() * 7)];
    const int nodes = std::max(1, (gpus + 7) / 8);
    const std::string type = gpus == 0 ? "CPU" : kTypes[static_cast<std::size_t>(rng.uniform() * 5)];
    const Time at = kGoldenBase + Time::seconds(submit);
    const Time start = at + Time::seconds(static_cast<std::int64_t>(rng.uniform() * 200));
    const std::int64_t run = 30 + static_cast<std::int64_t>(rng.exponential(5000));
    rows.push_back("job" + std::to_string(1000 + i * 7) + ",u" + std::to_string(static_cast<int>(rng.uniform() * 6)) + "," +
                   std::to_string(nodes) + "," + std::to_string(gpus) + "," + std::to_string(std::max(4, gpus * 4)) + "," +
                   type + "," + kStates[static_cast<std::size_t>(rng.uniform() * 4)] + "," + format_timestamp(at) + "," +
                   format_timestamp(start) + "," + format_timestamp(start + Time::seconds(run)) + "," +
                   std::to_string(run) + ",0,0\n");
  }
  return rows;
}

std::string text_of(const std::vector<std::string>& rows) {
  std::string text = kHeader;
  for (const std::string& r : rows) text += r;
  return text;
}

// The rows in another order, drawn from `seed`.
std::vector<std::string> shuffled(std::vector<std::string> rows, std::uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[static_cast<std::size_t>(rng.uniform() * static_cast<double>(i))]);
  return rows;
}

// Each job's outcome by its job_id, replayed under fifo on a cluster too large to make any job
// wait, so that a job's start and end depend on its own draws only.
std::map<std::string, JobOutcome> outcomes_by_id(const Workload& w, const LaunchModel* launch, const FailureModel* failures) {
  Simulation sim(w, small_cluster(400), make_policy("fifo"), ReplayMode::Policy);
  if (launch) sim.add_feature(launch_feature(*launch, false));
  if (failures) sim.add_feature(failures_feature(*failures));
  sim.run();
  sim.check_conservation();
  std::map<std::string, JobOutcome> out;
  for (JobId j = 0; j < w.size(); ++j) out.emplace(std::string(w.names[j]), sim.outcomes()[j]);
  return out;
}

// The whole trace, a shuffled copy and the window of its middle half, read as trace files.
struct ThreeReads {
  Workload whole, shuffled, window;
};
ThreeReads three_reads(const std::vector<std::string>& rows) {
  TraceOptions window;
  window.from = kGoldenBase + Time::seconds(static_cast<std::int64_t>(rows.size()) * 45 / 4);
  window.to = kGoldenBase + Time::seconds(static_cast<std::int64_t>(rows.size()) * 45 * 3 / 4);
  const std::string text = text_of(rows);
  return {read_acme_trace_text(text, "t.csv", {}), read_acme_trace_text(text_of(shuffled(rows, 5)), "s.csv", {}),
          read_acme_trace_text(text, "t.csv", window)};
}

// Every job of `part` has the same start, end, failures and wasted GPU-time in `whole`.
void check_same_outcomes(const std::map<std::string, JobOutcome>& whole, const std::map<std::string, JobOutcome>& part) {
  for (const auto& [id, o] : part) {
    INFO("job " << id);
    const JobOutcome& w = whole.at(id);
    CHECK(o.start == w.start);
    CHECK(o.end == w.end);
    CHECK(o.failures == w.failures);
    CHECK(o.wasted_gpu_seconds == w.wasted_gpu_seconds);
  }
}

// jobs.csv's rows by their job_id (the first column), and its header.
std::map<std::string, std::string> rows_by_id(const std::string& csv) {
  std::map<std::string, std::string> out;
  for (const std::string& line : lines_of(csv)) out.emplace(line.substr(0, line.find(',')), line);
  return out;
}

}  // namespace

TEST_CASE("A job's launch latency is the same in the whole trace, a shuffled copy and a window", "[row-order][launch]") {
  const ThreeReads r = three_reads(random_rows(120, 3, false));
  REQUIRE(r.window.size() > 30);
  REQUIRE(r.window.size() < r.whole.size());
  LaunchModel launch;
  launch.gpu_median_s = 20;
  launch.cpu_median_s = 5;
  launch.sigma = 1.5;
  const auto whole = outcomes_by_id(r.whole, &launch, nullptr);
  check_same_outcomes(whole, outcomes_by_id(r.shuffled, &launch, nullptr));
  check_same_outcomes(whole, outcomes_by_id(r.window, &launch, nullptr));
  // Nothing waits: each job's queueing delay is its drawn latency, that of its job_id's key.
  std::set<std::int64_t> latencies;
  for (JobId j = 0; j < r.whole.size(); ++j) {
    const auto& o = whole.at(std::string(r.whole.names[j]));
    if (!o.start) continue;
    const Time queue = *o.start - r.whole.requests[j].submit;
    CHECK(queue == launch.draw(job_key(r.whole.names[j]), 0, r.whole.requests[j]));
    latencies.insert(queue.sec());
  }
  CHECK(latencies.size() > 10);
}

TEST_CASE("A job meets the same failures in the whole trace, a shuffled copy and a window", "[row-order][failures]") {
  const ThreeReads r = three_reads(random_rows(120, 4, true));
  std::vector<YamlValue> values{yaml_override("failures.enabled=true"), yaml_override("failures.repair_s=600")};
  Params params("failures", values);
  const FailureModel failures = load_failure_model(params, (source_dir() / "tests/data/failures_often.yaml").string());
  const auto whole = outcomes_by_id(r.whole, nullptr, &failures);
  check_same_outcomes(whole, outcomes_by_id(r.shuffled, nullptr, &failures));
  check_same_outcomes(whole, outcomes_by_id(r.window, nullptr, &failures));
  int failed = 0;
  for (const auto& [id, o] : whole) failed += o.failures > 0;
  CHECK(failed > 10);
}

TEST_CASE("A shuffled trace without same-second submissions gives every job the same row of jobs.csv",
          "[row-order]") {
  const auto dir = temp_dir("row-order");
  const std::vector<std::string> rows = random_rows(150, 6, false);
  std::ofstream(dir / "whole.csv") << text_of(rows);
  std::ofstream(dir / "shuffled.csv") << text_of(shuffled(rows, 7));
  std::map<std::string, std::string> jobs[2];
  for (int k = 0; k < 2; ++k) {
    RunArgs args;
    args.config = (source_dir() / "configs/seren.yaml").string();
    args.overrides = {"workload.trace=" + (dir / (k == 0 ? "whole.csv" : "shuffled.csv")).string(), "outputs=jobs",
                      "failures.enabled=true", "power.enabled=true", "cache.enabled=false"};
    args.out_dir = (dir / (k == 0 ? "whole" : "shuffled")).string();
    args.progress = false;
    REQUIRE(run_command(args) == 0);
    jobs[k] = rows_by_id(read_file(dir / (k == 0 ? "whole" : "shuffled") / "jobs.csv"));
  }
  REQUIRE(jobs[0].size() == rows.size() + 1);  // and the header
  CHECK(jobs[0] == jobs[1]);
}

}  // namespace acme::test
