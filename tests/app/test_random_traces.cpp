// Random traces of both schemas (tests/app/random_trace.h: sizes, types and states in random
// mixes, evaluation jobs of hundreds of GPUs, whole-cluster jobs, bursts of thousands in one
// second, loads from 0.3 to 3, zero-length and week-long jobs, CPU-only jobs, empty and quoted
// fields), each read from its file and replayed under every registered policy (a test-only one
// such as tests/policies/newcomer_policy.cpp included) and the recorded replay, with the launch
// latency, failures, power, contention and slow nodes off and then all on. Every run must:
//  - keep every invariant of tests/policies/auditor.h: conservation, no over-allocation, one
//    terminal fact per job, no job that fits the cluster REJECTED (but by a policy's own limit);
//  - give every job the same outcome for a shuffled copy of the file, ties kept as the
//    documentation defines them (sim/README.md: same-second rows in file order);
//  - and one variant a case, written by execute_run on one thread and on two, give the same bytes,
//    and the shuffled copy the same row of jobs.csv for every job.
// Then every trace kept under tests/data/regressions/ (NAME-SEED.csv with NAME-SEED.cluster.yaml)
// goes through the same checks.
//
// Environment: ACMESIM_RANDOM_TRACE_CASES (default 16: CI's share; scripts/random_traces.sh
// runs hundreds) cases from ACMESIM_RANDOM_TRACE_SEED
// (default 1); a failing case writes its trace and cluster to ACMESIM_RANDOM_TRACE_KEEP (default
// random-trace-failures/ in the current folder) as a regression trace ready to commit.
// scripts/random_traces.sh runs new seeds for as long as asked.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>

#include "harness.h"
#include "app/app.h"
#include "app/random_trace.h"
#include "io/cluster_file.h"
#include "policies/auditor.h"

namespace acme::test {
namespace {

// Every registered policy, then the recorded replay; each with the features off and on.
std::vector<std::vector<std::string>> variants(std::uint64_t seed) {
  std::vector<std::vector<std::string>> policies;
  for (const PolicyEntry& e : policy_table()) policies.push_back({"policy.name=" + std::string(e.name)});
  policies.push_back({"replay=recorded"});
  const std::vector<std::string> features = {
      "launch.gpu_median_s=20", "launch.cpu_median_s=3", "launch.sigma=1.5", "failures.enabled=true",
      "failures.table=" + (source_dir() / "tests/data/failures_often.yaml").string(),
      "failures.seed=" + std::to_string(seed), "power.enabled=true", "network.slowdown=true",
      "network.contention=true", "stragglers.enabled=true", "stragglers.prevalence=0.05",
      "stragglers.seed=" + std::to_string(seed)};
  std::vector<std::vector<std::string>> out;
  for (int on = 0; on < 2; ++on)
    for (std::vector<std::string> v : policies) {
      if (on) v.insert(v.end(), features.begin(), features.end());
      out.push_back(std::move(v));
    }
  return out;
}

RunConfig config_of(const std::vector<std::string>& variant, const std::string& trace, std::uint64_t seed) {
  std::vector<std::string> sets = {"cluster=" + (source_dir() / "configs/clusters/seren.yaml").string(),
                                   "workload.trace=" + trace, "seed=" + std::to_string(seed),
                                   "outputs=jobs,timeseries,summary,waste,run_json", "metrics.interval_s=3600"};
  sets.insert(sets.end(), variant.begin(), variant.end());
  std::vector<YamlValue> values;
  for (const std::string& s : sets) values.push_back(yaml_override(s));
  return make_run_config(values);
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

// jobs.csv's rows by job_id.
std::map<std::string, std::string> jobs_rows(const fs::path& file) {
  std::map<std::string, std::string> out;
  for (const std::string& line : lines_of(read_file(file))) out.emplace(line.substr(0, line.find(',')), line);
  return out;
}

// The first problem of the trace `text` on `cluster` under every variant, or "" if none.
std::string first_problem(const std::string& text, const ClusterSpec& cluster, std::uint64_t seed, const fs::path& dir) {
  const fs::path file = dir / "trace.csv", shuffled_file = dir / "shuffled.csv";
  std::ofstream(file, std::ios::binary) << text;
  std::ofstream(shuffled_file, std::ios::binary) << shuffled_rows(text, seed + 1);
  TraceOptions one_thread;
  one_thread.threads = 1;
  const Workload w = read_acme_trace(file.string(), one_thread), s = read_acme_trace(shuffled_file.string(), one_thread);
  if (w.size() != s.size()) return "the shuffled copy has another number of jobs";
  const auto all = variants(seed);
  for (std::size_t v = 0; v < all.size(); ++v) {
    const std::string what = "under " + joined(all[v]) + ": ";
    RunConfig config = config_of(all[v], file.string(), seed);
    std::map<std::string, std::string> rows, shuffled;
    try {
      std::vector<std::string> problems = audit(config, cluster, w, 2000, &rows);
      if (problems.empty()) problems = audit(config, cluster, s, 2000, &shuffled);
      if (!problems.empty()) return what + problems.front();
    } catch (const std::exception& e) {
      return what + "threw " + e.what();
    }
    for (const auto& [id, row] : rows)
      if (shuffled.at(id) != row) return what + "job " + id + " is " + row + ", shuffled " + shuffled.at(id);
    if (v != seed % all.size()) continue;  // one variant a case: the files, on one thread and two
    for (const char* run : {"one", "two", "shuffled"}) fs::remove_all(dir / run);
    execute_run(config, cluster, w, dir / "one", false);
    config.threads = 2;
    execute_run(config, cluster, w, dir / "two", false);
    if (const std::string f = first_difference(dir / "one", dir / "two"); !f.empty())
      return what + f + " differs between one thread and two";
    config = config_of(all[v], shuffled_file.string(), seed);
    execute_run(config, cluster, s, dir / "shuffled", false);
    if (jobs_rows(dir / "one" / "jobs.csv") != jobs_rows(dir / "shuffled" / "jobs.csv"))
      return what + "jobs.csv differs for the shuffled copy";
  }
  return "";
}

// Writes a failing trace where ACMESIM_RANDOM_TRACE_KEEP says, as NAME-SEED.csv and its cluster.
std::string keep(const RandomTrace& t, std::uint64_t seed) {
  const char* env = std::getenv("ACMESIM_RANDOM_TRACE_KEEP");
  const fs::path dir = fs::absolute(env && *env ? env : "random-trace-failures");
  fs::create_directories(dir);
  const std::string stem = t.schema + "-" + std::to_string(seed);
  std::ofstream(dir / (stem + ".csv"), std::ios::binary) << t.text;
  std::ofstream(dir / (stem + ".cluster.yaml")) << cluster_yaml(t.cluster);
  return (dir / (stem + ".csv")).string();
}

}  // namespace

TEST_CASE("Random traces of both schemas keep every invariant under every policy, rerun and shuffled",
          "[random-traces]") {
  const std::uint64_t cases = env_number("ACMESIM_RANDOM_TRACE_CASES", 16);
  const std::uint64_t first = env_number("ACMESIM_RANDOM_TRACE_SEED", 1);
  const fs::path dir = temp_dir("random-traces");
  for (std::uint64_t seed = first; seed < first + cases; ++seed) {
    const RandomTrace t = random_trace(seed);
    const std::string problem = first_problem(t.text, t.cluster, seed, dir);
    if (problem.empty()) continue;
    FAIL_CHECK("seed " << seed << " (" << t.shape << "): " << problem << "\nthe trace: " << keep(t, seed));
  }
}

TEST_CASE("Every regression trace kept in tests/data/regressions keeps every invariant", "[random-traces]") {
  const fs::path dir = temp_dir("random-trace-regressions");
  int traces = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "tests/data/regressions")) {
    if (e.path().extension() != ".csv") continue;
    const std::string stem = e.path().stem().string();
    const std::uint64_t seed = std::strtoull(stem.substr(stem.rfind('-') + 1).c_str(), nullptr, 10);
    const ClusterSpec cluster = load_cluster_spec((e.path().parent_path() / (stem + ".cluster.yaml")).string());
    INFO("regression trace " << e.path().string());
    CHECK(first_problem(read_file(e.path()), cluster, seed, dir) == "");
    ++traces;
  }
  CHECK(traces > 0);
}

}  // namespace acme::test
