// Conservation and the policy contract, over every registered policy and both replay modes.
#include <catch2/catch.hpp>

#include "harness.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"

namespace acme::test {
namespace {

Workload job_workload(std::uint64_t seed) {
  const SyntheticModel m = shipped_model("seren");
  // A small cluster at 1/40 of Seren's rate: queues form and large jobs are rejected.
  return generate_workload(m, *parse_timestamp("2023-03-01"), *parse_timestamp("2023-03-04"), 1.0 / 40, seed, 8);
}

// Starts the first queued job again and again: a bug the core must catch.
class DoubleStarter final : public Policy {
 public:
  void on_queued(JobId job, const JobRequest&) override { if (!first_) first_ = job; }
  void schedule(SchedulingPass& pass) override {
    if (first_) pass.try_start(*first_);
  }
  std::optional<JobId> first_;
};

// Never starts anything.
class Idle final : public Policy {
 public:
  void on_queued(JobId, const JobRequest&) override {}
  void schedule(SchedulingPass&) override {}
};

}  // namespace

TEST_CASE("Every policy conserves jobs and GPU-time and starts no job before its submission", "[contract]") {
  const Workload w = job_workload(3);
  REQUIRE(w.size() > 100);
  for (const PolicyEntry& entry : policy_table()) {
    for (ReplayMode mode : {ReplayMode::Policy, ReplayMode::Recorded}) {
      INFO("policy " << entry.name << ", replay " << (mode == ReplayMode::Policy ? "policy" : "recorded"));
      Simulation sim(w, small_cluster(16), make_policy(entry.name), mode);
      sim.run();
      const Conservation c = sim.check_conservation();
      CHECK(c.ended == w.size());
      CHECK(c.job_gpu_seconds == c.integral_gpu_seconds);
      CHECK(c.job_gpu_seconds > 0);
      std::size_t rejected = 0;
      for (std::size_t i = 0; i < w.size(); ++i) {
        const JobOutcome& o = sim.outcomes()[i];
        rejected += o.state == JobState::Rejected;
        if (!o.start) continue;
        CHECK(*o.start >= w.requests[i].submit);
        CHECK(*o.end - *o.start == w.profiles[i].run);
        CHECK(o.state == w.profiles[i].final_state);
      }
      CHECK(rejected > 0);  // 1024-GPU jobs on a 128-GPU cluster
    }
  }
}

TEST_CASE("Starting a job that is not pending is reported as a policy bug", "[contract]") {
  const Workload w = job_workload(4);
  Simulation sim(w, small_cluster(16), std::make_unique<DoubleStarter>(), ReplayMode::Policy);
  CHECK_THROWS_WITH(sim.run(), Catch::Contains("policy bug: asked to start job") && Catch::Contains("which is not pending"));
}

TEST_CASE("A job left pending forever fails the end-of-run conservation check", "[contract]") {
  const Workload w = job_workload(5);
  Simulation sim(w, small_cluster(16), std::make_unique<Idle>(), ReplayMode::Policy);
  sim.run();
  CHECK(sim.done());
  CHECK_THROWS_WITH(sim.check_conservation(), Catch::Contains("never ended"));
}

TEST_CASE("run_until stops at a timestamp and step advances one distinct timestamp", "[contract]") {
  const Workload w = read_acme_trace((source_dir() / "tests/golden/six_jobs.csv").string(), {});
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  const Time base = *parse_timestamp("2023-03-01");
  sim.run_until(base + Time::seconds(99));
  CHECK(sim.now() == base + Time::seconds(20));  // the last event before 99: j4 withdrawn
  CHECK(sim.cluster().allocated_gpus() == 8);
  REQUIRE(sim.step());
  CHECK(sim.now() == base + Time::seconds(100));
  CHECK(sim.cluster().allocated_gpus() == 16);
  sim.run();
  CHECK(sim.done());
  CHECK_FALSE(sim.step());
}

TEST_CASE("A job's outcome refuses a run time or a count it cannot hold, rather than wrap", "[contract]") {
  JobOutcome o;
  o.add_run_time(Time::seconds(INT32_MAX - 1));
  o.add_run_time(Time::seconds(1));
  CHECK(o.run_time() == Time::seconds(INT32_MAX));
  CHECK_THROWS_AS(o.add_run_time(Time::seconds(1)), std::overflow_error);
  CHECK(o.run_time() == Time::seconds(INT32_MAX));
  o.preemptions = UINT16_MAX - 1;
  JobOutcome::count(o.preemptions);
  CHECK(o.preemptions == UINT16_MAX);
  CHECK_THROWS_AS(JobOutcome::count(o.preemptions), std::overflow_error);
  CHECK(o.preemptions == UINT16_MAX);
}

}  // namespace acme::test
