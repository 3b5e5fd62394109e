// The policy contract, run over every registered policy, and golden schedules for each policy
// (worked out by hand in tests/golden/README.md).
#include <catch2/catch.hpp>

#include <map>

#include "harness.h"
#include "io/config.h"
#include "sim/random.h"

namespace acme::test {
namespace {

// A random workload: bursts of jobs of 0 to 16 GPUs over a few minutes, some of them cancelled
// while waiting, some never fitting a cluster of 16 GPUs.
Workload random_workload(std::uint64_t seed, int jobs) {
  Workload w;
  Rng rng(seed);
  const std::int32_t sizes[] = {0, 1, 2, 4, 8, 8, 16, 24};
  const JobState states[] = {JobState::Completed, JobState::Failed, JobState::Cancelled, JobState::Timeout};
  std::int64_t t = 0;
  for (int i = 0; i < jobs; ++i) {
    t += static_cast<std::int64_t>(rng.exponential(5));
    JobRequest r;
    JobProfile p;
    r.submit = kGoldenBase + Time::seconds(t);
    r.gpu_num = sizes[rng.next() % 8];
    r.node_num = std::max(1, (r.gpu_num + 7) / 8);
    r.cpu_num = r.gpu_num == 0 ? 1 + static_cast<std::int32_t>(rng.next() % 16) : 8 * r.gpu_num;
    r.type = static_cast<JobType>(r.gpu_num == 0 ? 0 : 1 + rng.next() % 6);
    r.user = w.users.intern("u" + std::to_string(rng.next() % 5));
    p.run = Time::seconds(static_cast<std::int64_t>(rng.exponential(60)));
    p.final_state = states[rng.next() % 4];
    p.set_recorded_start(r.submit + Time::seconds(static_cast<std::int64_t>(rng.exponential(20))));
    if (rng.uniform() < 0.05) {
      p.set_cancel_pending_at(r.submit + Time::seconds(static_cast<std::int64_t>(rng.exponential(30))));
      p.run = Time{};
      p.final_state = JobState::Cancelled;
    }
    w.add("j" + std::to_string(i), r, p);
  }
  return w;
}

// Watches the cluster through the facts: GPUs in use never exceed the cluster, and per type.
class Watcher final : public Sink {
 public:
  explicit Watcher(int total) : total_(total) {}
  void on_fact(const Fact& f) override {
    const std::int64_t g = f.request->gpu_num;
    if (f.kind == FactKind::Started) used_ += g;
    if (f.kind == FactKind::Ended || f.kind == FactKind::Preempted) used_ -= g;
    if (f.kind == FactKind::Failed || f.kind == FactKind::Requeued)
      used_ -= gpus_of(*f.placement);
    peak_ = std::max(peak_, used_);
    if (f.kind == FactKind::Started && f.time < f.request->submit) early_ = true;
  }
  void finish(const RunRecord&) override {}
  std::int64_t used_ = 0, peak_ = 0;
  int total_;
  bool early_ = false;
};

struct Run {
  std::vector<JobOutcome> outcomes;
  Conservation conservation;
  std::int64_t peak = 0;
  bool early = false;
};

Run run(const Workload& w, const std::string& policy, ReplayMode mode, int nodes) {
  Params estimates("estimate", {});
  Simulation sim(w, small_cluster(nodes), make_policy(policy), mode, make_estimates(w, estimates, 7));
  Watcher watch(nodes * 8);
  sim.add_sink(watch);
  sim.run();
  return Run{sim.outcomes(), sim.check_conservation(), watch.peak_, watch.early_};
}

bool same(const std::vector<JobOutcome>& a, const std::vector<JobOutcome>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].start != b[i].start || a[i].end != b[i].end || a[i].state != b[i].state ||
        a[i].gpu_seconds != b[i].gpu_seconds || a[i].preemptions != b[i].preemptions)
      return false;
  return true;
}

}  // namespace

TEST_CASE("Every policy keeps the contract on random workloads", "[contract]") {
  for (const PolicyEntry& entry : policy_table()) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const Workload w = random_workload(seed, 300);
      for (ReplayMode mode : {ReplayMode::Policy, ReplayMode::Recorded}) {
        INFO("policy " << entry.name << ", seed " << seed << ", replay " << name(mode));
        const Run a = run(w, std::string(entry.name), mode, 2);
        // Every job ended in exactly one terminal state; GPU-time adds up (checked by the core).
        CHECK(a.conservation.ended == w.size());
        CHECK(a.conservation.job_gpu_seconds == a.conservation.integral_gpu_seconds);
        CHECK(a.peak <= 16);    // never over-allocated
        CHECK_FALSE(a.early);   // no job started before its submission
        for (std::size_t i = 0; i < w.size(); ++i) {
          const JobOutcome& o = a.outcomes[i];
          if (w.requests[i].gpu_num > 16) CHECK(o.state == JobState::Rejected);
          if (o.start && o.preemptions == 0) CHECK(*o.end - *o.start == w.profiles[i].run);
          if (o.start) CHECK(o.run_time() >= w.profiles[i].run);
          CHECK(o.wasted_gpu_seconds <= o.gpu_seconds);
        }
        // Same input and seed, same schedule.
        CHECK(same(a.outcomes, run(w, std::string(entry.name), mode, 2).outcomes));
      }
    }
  }
}

TEST_CASE("Quota refuses on arrival a job larger than its quota and all that may be lent to it", "[quota]") {
  // One node of 8 GPUs: Pretrain's 70% is 5 GPUs, Eval's 5% is 0, 3 are unassigned. With
  // Pretrain not lending, an Eval job may borrow at most the 3 unassigned GPUs.
  const Workload w = read_acme_trace_text(
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
      "big,u1,1,8,16,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:00Z,2023-03-01 01:00:00Z\n"
      "small,u1,1,3,16,Eval,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:00Z,2023-03-01 01:00:00Z\n"
      "own,u2,1,5,16,Pretrain,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:00Z,2023-03-01 01:00:00Z\n",
      "t.csv", {});
  for (const char* lend : {"0", "1"}) {
    Params params("policy", {yaml_override(std::string("policy.lend.Pretrain=") + lend)});
    Simulation sim(w, small_cluster(1), make_policy("quota", params), ReplayMode::Policy);
    sim.run();
    CHECK_NOTHROW(sim.check_conservation());
    const auto& o = sim.outcomes();
    if (lend == std::string("0")) {
      CHECK(o[0].state == JobState::Rejected);
      CHECK(o[0].reject == RejectReason::PolicyLimit);
      CHECK(o[0].end.value_or(Time{}) == w.requests[0].submit);
    } else {  // Pretrain's 5 idle GPUs may be lent: 8 can be borrowed, so it waits its turn
      CHECK(o[0].state == JobState::Completed);
    }
    CHECK(o[1].state == JobState::Completed);
    CHECK(o[2].state == JobState::Completed);
  }
}

TEST_CASE("Quota keeps every group within its quota except for borrowed GPUs", "[contract][quota]") {
  // Track each group's GPUs over time from the jobs' runs: own use may exceed the quota only by
  // what the cluster lends, which is bounded by the other groups' idle quota.
  const Workload w = random_workload(11, 400);
  const Run r = run(w, "quota", ReplayMode::Policy, 4);
  CHECK(r.conservation.ended == w.size());
  std::int64_t preempted = 0;
  for (const JobOutcome& o : r.outcomes) preempted += o.preemptions;
  CHECK(preempted > 0);  // reclaims happened
}

TEST_CASE("Preemption loses the current run's work and counts it as wasted", "[contract]") {
  CHECK(replay_golden("priority.csv", small_cluster(2), "priority", ReplayMode::Policy, {"policy.preemptive=true"}) ==
        golden_expected("priority.preemptive.expected"));
}

TEST_CASE("Priority starts the highest-priority job first and holds the rest behind it", "[golden]") {
  CHECK(replay_golden("priority.csv", small_cluster(2), "priority", ReplayMode::Policy) ==
        golden_expected("priority.priority.expected"));
}

TEST_CASE("Quota lends idle GPUs and reclaims them from the borrower that started last", "[golden]") {
  const std::vector<std::string> quotas = {"policy.quota_pct.Pretrain=50", "policy.quota_pct.Eval=50",
                                           "policy.quota_pct.SFT=0", "policy.quota_pct.MLLM=0",
                                           "policy.quota_pct.Other=0", "policy.quota_pct.Debug=0"};
  CHECK(replay_golden("quota.csv", small_cluster(2), "quota", ReplayMode::Policy, quotas) ==
        golden_expected("quota.quota.expected"));
}

TEST_CASE("Backfill starts a job that ends before the reservation and never delays the head", "[golden]") {
  const std::vector<std::string> exact = {"estimate.factor=1", "estimate.sigma=0"};
  CHECK(replay_golden("backfill.csv", small_cluster(2), "backfill", ReplayMode::Policy, exact) ==
        golden_expected("backfill.backfill.expected"));
  CHECK(replay_golden("backfill.csv", small_cluster(2), "fifo", ReplayMode::Policy, exact) ==
        golden_expected("backfill.fifo.expected"));
}

TEST_CASE("Backfill plans with the time limits an SWF log records (estimate.model recorded)", "[golden]") {
  CHECK(replay_golden("easy_recorded.swf", small_cluster(1), "backfill", ReplayMode::Policy, {"estimate.model=recorded"}) ==
        golden_expected("easy_recorded.recorded.expected"));
  CHECK(replay_golden("easy_recorded.swf", small_cluster(1), "backfill", ReplayMode::Policy,
                      {"estimate.factor=1", "estimate.sigma=0"}) == golden_expected("easy_recorded.exact.expected"));
}

TEST_CASE("Acme holds back a user's evaluations past the QOS limit without blocking other users", "[golden]") {
  CHECK(replay_golden("acme_limits.csv", small_cluster(2), "acme", ReplayMode::Policy, {"policy.user_gpu_limit.Eval=2"}) ==
        golden_expected("acme_limits.user.expected"));
  CHECK(replay_golden("acme_limits.csv", small_cluster(2), "acme", ReplayMode::Policy,
                      {"policy.user_gpu_limit.Eval=0", "policy.type_gpu_limit.Eval=2"}) ==
        golden_expected("acme_limits.type.expected"));
}

TEST_CASE("A job larger than a QOS limit starts once nothing else holds the limit, never rejected", "[golden]") {
  CHECK(replay_golden("acme_oversize.csv", small_cluster(3), "acme", ReplayMode::Policy, {"policy.user_gpu_limit.Eval=4"}) ==
        golden_expected("acme_oversize.user.expected"));
  CHECK(replay_golden("acme_oversize.csv", small_cluster(3), "acme", ReplayMode::Policy, {"policy.type_gpu_limit.Eval=4"}) ==
        golden_expected("acme_oversize.type.expected"));
}

TEST_CASE("Acme's job-count limits charge a job one whatever its GPUs", "[golden]") {
  CHECK(replay_golden("acme_limits.csv", small_cluster(2), "acme", ReplayMode::Policy, {"policy.user_job_limit.Eval=1"}) ==
        golden_expected("acme_limits.userjobs.expected"));
  CHECK(replay_golden("acme_oversize.csv", small_cluster(3), "acme", ReplayMode::Policy, {"policy.type_job_limit.Eval=2"}) ==
        golden_expected("acme_oversize.typejobs.expected"));
}

TEST_CASE("Reserved nodes take only their job types, the others the rest unless they need more", "[golden]") {
  ClusterSpec cluster = small_cluster(2);
  CHECK(replay_golden("reserved.csv", cluster, "greedy", ReplayMode::Policy) == golden_expected("reserved.none.expected"));
  cluster.reserved_nodes = 1;
  cluster.reserved_types = 1u << static_cast<unsigned>(JobType::Pretrain);
  CHECK(replay_golden("reserved.csv", cluster, "greedy", ReplayMode::Policy) == golden_expected("reserved.strict.expected"));
  cluster.reserved_spill = true;
  CHECK(replay_golden("reserved.csv", cluster, "greedy", ReplayMode::Policy) == golden_expected("reserved.spill.expected"));
}

TEST_CASE("Backfill past a blocked job counts the spare GPUs of its own nodes, and jobs kept apart never delay it",
          "[golden]") {
  ClusterSpec cluster = small_cluster(3);
  cluster.reserved_nodes = 1;
  cluster.reserved_types = 1u << static_cast<unsigned>(JobType::Pretrain);
  const std::vector<std::string> exact = {"estimate.factor=1", "estimate.sigma=0"};
  CHECK(replay_golden("reserved_backfill.csv", cluster, "backfill", ReplayMode::Policy, exact) ==
        golden_expected("reserved_backfill.backfill.expected"));
}

TEST_CASE("A launch latency holds the GPUs, delays the start and counts in the queueing delay", "[golden]") {
  CHECK(replay_golden("acme_limits.csv", small_cluster(2), "acme", ReplayMode::Policy,
                      {"policy.user_gpu_limit.Eval=2", "launch.gpu_median_s=5"}) ==
        golden_expected("acme_limits.launch.expected"));
}

TEST_CASE("Acme backfills behind a blocked job only at its backfill interval, and never delays it", "[golden]") {
  const std::vector<std::string> exact = {"estimate.factor=1", "estimate.sigma=0"};
  CHECK(replay_golden("acme_backfill.csv", small_cluster(2), "acme", ReplayMode::Policy, exact) ==
        golden_expected("acme_backfill.acme.expected"));
}

TEST_CASE("The SJF oracle starts the shortest pending jobs first", "[golden]") {
  CHECK(replay_golden("shortest.csv", small_cluster(1), "sjf", ReplayMode::Policy) ==
        golden_expected("shortest.sjf.expected"));
}

TEST_CASE("The SRTF oracle suspends a longer job for a shorter one without losing its work", "[golden]") {
  CHECK(replay_golden("suspend.csv", small_cluster(1), "srtf", ReplayMode::Policy) ==
        golden_expected("suspend.srtf.expected"));
}

TEST_CASE("A policy key the policy does not have is an error naming it", "[contract]") {
  Params params("policy", {yaml_override("policy.preemptve=true")});
  CHECK_THROWS_WITH(make_policy("priority", params),
                    Catch::StartsWith("--set: policy.preemptve: not a key here (valid: policy.type_priority.<name>"));
  Params quota("policy", {yaml_override("policy.quota_pct.Eval=90")});
  CHECK_THROWS_WITH(make_policy("quota", quota), Catch::Contains("over 100%"));
}

}  // namespace acme::test
