// What the failure and checkpoint tests share: a failure model from keys, one-job workloads, and
// the search for the job id whose keyed draws a test needs.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness.h"
#include "features/failures.h"
#include "sim/failures.h"
#include "sim/simulation.h"

namespace acme::test {

inline const std::string kTable = (source_dir() / "configs" / "failures" / "acme.yaml").string();

// The failures feature's ledger of `sim`'s run (REQUIRES: failures on).
inline const TrainingLedger& ledger_of(const Simulation& sim) {
  std::vector<const Feature*> features;
  for (const auto& f : sim.features()) features.push_back(f.get());
  const TrainingLedger* ledger = training_ledger(features);
  REQUIRE(ledger);
  return *ledger;
}

inline FailureModel model(const std::vector<std::string>& settings) {
  std::vector<YamlValue> values{yaml_override("failures.enabled=true")};
  for (const std::string& s : settings) values.push_back(yaml_override(s));
  Params params("failures", values);
  FailureModel m = load_failure_model(params, kTable);
  params.check_all_used();
  return m;
}

// One job of `gpus` GPUs on `nodes` nodes running `run_s` seconds, submitted at 0.
inline Workload one_job(JobType type, std::int32_t gpus, std::int32_t nodes, std::int64_t run_s, int copies = 1) {
  Workload w;
  for (int i = 0; i < copies; ++i) {
    JobRequest r;
    r.submit = Time::seconds(0);
    r.gpu_num = gpus;
    r.node_num = nodes;
    r.cpu_num = gpus;
    r.type = type;
    JobProfile p;
    p.run = Time::seconds(run_s);
    p.final_state = JobState::Completed;
    r.user = w.users.intern("u");
    w.add("j" + std::to_string(i), r, p);
  }
  return w;
}

// The key of one_job()'s copy `job` (named "j<job>"): what its failure draws are keyed by.
inline std::uint64_t key(JobId job) { return job_key("j" + std::to_string(job)); }

// Failure draws are keyed by the job's identity, so a test looks for the copy whose draws it
// needs: the first id whose first run of `gpus` GPUs over `horizon` gets a draw that `wanted` accepts (none: the
// run is clear), up to 100,000 ids.
template <class Wanted>
std::pair<JobId, std::optional<FailureDraw>> first_id(const FailureModel& m, std::int32_t gpus, Time horizon,
                                                      Wanted wanted) {
  for (JobId job = 0; job < 100000; ++job)
    if (auto d = m.draw(key(job), 0, gpus, horizon); wanted(job, d)) return {job, d};
  FAIL("no job id with the wanted draws");
  return {};
}

// Copies 0..`job` of one_job(), of which only copy `job` is submitted at 0, the others too late
// to matter.
inline Workload only_job(JobId job, JobType type, std::int32_t gpus, std::int32_t nodes, std::int64_t run_s) {
  Workload w = one_job(type, gpus, nodes, run_s, static_cast<int>(job) + 1);
  for (std::size_t i = 0; i < w.size(); ++i) w.requests[i].submit = Time::seconds(i == job ? 0 : 1'000'000'000);
  return w;
}

// The test table with NodeFailure taking down `domain` (repairs of 500 s), written into `dir`.
inline FailureModel node_failure_model(const std::filesystem::path& dir, const std::string& domain) {
  const std::string table = (dir / (domain + ".yaml")).string();
  std::ofstream(table) << read_file(source_dir() / "tests/data/failures_often.yaml") << "takes_down:\n  NodeFailure: "
                       << domain << "\n";
  return model({"failures.table=" + table, "failures.repair_s=500"});
}

// For the domain tests: A, the first id whose first 16-GPU run of `run` fails with NodeFailure,
// that failure, and B, the next id whose 8-GPU run meets nothing.
struct NodeFailureJobs {
  JobId a;
  FailureDraw failure;
  JobId b;
};
inline NodeFailureJobs node_failure_jobs(const FailureModel& m, Time run) {
  const auto [a, d] = first_id(m, 16, run, [&](JobId, const auto& d) {
    return d && m.reasons()[d->reason].name == "NodeFailure";
  });
  JobId b = a + 1;
  while (m.draw(key(b), 0, 8, run)) ++b;
  return {a, *d, b};
}

}  // namespace acme::test
