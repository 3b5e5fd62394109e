// Injected failures, checkpoints and recovery (sim/failures.h) on small clusters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "harness.h"
#include "sim/failure_fixtures.h"
#include "features/network.h"
#include "sim/failures.h"
#include "features/failures.h"

namespace acme::test {

TEST_CASE("The failure table gives per-GPU hazards to infrastructure reasons and per-run odds to the rest",
          "[failures]") {
  const FailureModel m = model({});
  REQUIRE(m.reasons().size() == 21);
  const FailureReason& nvlink = m.reasons().front();
  CHECK(nvlink.name == "NVLinkError");
  CHECK(nvlink.per_gpu_rate == Approx(54.0 / (2416 * 0.9 * 90 * 86400.0) * nvlink.rate_fit));
  CHECK(nvlink.ttf_mean_s == Approx(868.1 * 60 * nvlink.ttf_fit));
  const auto connection = std::find_if(m.reasons().begin(), m.reasons().end(),
                                       [](const FailureReason& r) { return r.name == "ConnectionError"; });
  REQUIRE(connection != m.reasons().end());  // per_run: drawn per run, not per GPU
  CHECK(connection->per_gpu_rate == 0);
  // Per-run reasons, over the population they were counted on: the table's count, on jobs of the
  // table's mean GPUs (from 1 GPU for DatasetLoadingError to 572 for OutOfMemoryError).
  double jobs = 0;
  for (const auto& [gpus, n] : m.population()) jobs += n;
  CHECK(jobs == Approx(32850).epsilon(1e-3));
  for (const FailureReason& r : m.reasons()) {
    if (r.per_gpu_rate > 0) continue;
    double struck = 0, struck_gpus = 0;
    for (const auto& [gpus, n] : m.population()) {
      struck += n * r.per_run_chance(static_cast<std::int32_t>(gpus));
      struck_gpus += n * gpus * r.per_run_chance(static_cast<std::int32_t>(gpus));
    }
    INFO(r.name);
    CHECK(struck == Approx(r.count).epsilon(1e-6));
    CHECK(struck_gpus / struck == Approx(r.avg_gpus).epsilon(r.avg_gpus > 1 ? 1e-6 : 1e-3));
  }
  CHECK(m.recovery_delay() == Time::seconds(90 * 60));
  CHECK(model({"failures.recovery=automatic"}).recovery_delay() == Time::seconds(7 * 60));
  CHECK(m.checkpoint_interval(JobType::Pretrain) == Time::seconds(10800));
  CHECK(m.checkpoint_interval(JobType::Eval) == Time{});
  const JobRequest big{Time{}, 16, 2, 32, JobType::Pretrain, 0};
  CHECK(m.checkpoints().stall(big) == Time::seconds(300));
  CHECK(model({"failures.checkpoint_mode=async"}).checkpoints().stall(big) == Time::seconds(5));  // 300 / 58
  // From the checkpoint's size: 16 GPUs x 25 GB = 3,200 Gb through 2 nodes' NICs of 200 Gb/s
  // (the 8 storage links carry 3,200 Gb/s): 8 s; async: the copy to host memory, 16 GPUs x 200 Gb/s, 1 s.
  FailureModel derived = model({"failures.save_time_s=0", "failures.checkpoint_gb_per_gpu=25"});
  CHECK(derived.checkpoints().stall(big) == Time::seconds(8));
  ClusterSpec narrow;
  narrow.storage_gbps = 25;  // 8 links of 25 Gb/s: 200 Gb/s, narrower than the NICs
  derived.use_cluster(narrow);
  CHECK(derived.checkpoints().stall(big) == Time::seconds(16));
  CHECK(model({"failures.save_time_s=0", "failures.checkpoint_gb_per_gpu=25", "failures.checkpoint_mode=async"})
            .checkpoints().stall(big) == Time::seconds(1));
}

TEST_CASE("Per-run reasons strike as often as the table counts them, however short the run", "[failures]") {
  // The validation's count targets (experiments/failures/validate.cpp) rest on this: a framework,
  // script or per_run reason strikes a run with probability count / jobs, its time truncated to
  // the run. One-GPU runs of one minute: the per-GPU reasons all but never strike.
  const FailureModel m = model({});
  double expected = 0;
  for (const FailureReason& r : m.reasons()) expected += r.per_run_prob;
  constexpr int kRuns = 40000;
  int failed = 0;
  for (JobId job = 0; job < kRuns; ++job)
    if (auto d = m.draw(key(job), 0, 1, Time::seconds(60))) {
      ++failed;
      CHECK(d->after < Time::seconds(60));
      CHECK(d->per_run);
      CHECK_FALSE(d->takes_hardware());  // per-run draws take no node down
    }
  CHECK(failed == Approx(expected * kRuns).epsilon(0.06));  // about 2440 +- 50
}

TEST_CASE("Per-GPU reasons strike 1 - exp(-G x lambda x T) of runs, at a truncated exponential time",
          "[failures]") {
  // 8 GPUs for 100 hours: about 2% of runs meet a per-GPU reason, and two rarely meet one run.
  // NVLinkError strikes after an exponential time of mean ttf_mean_s (1615 min) truncated to the
  // run (6000 min): m - T e^(-T/m) / (1 - e^(-T/m)), about 1465 min; a constant hazard would put
  // it near the middle of the run (3000 min).
  const FailureModel m = model({});
  const Time run = Time::hours(100);
  double lambda = 0;
  for (const FailureReason& r : m.reasons()) lambda += r.per_gpu_rate;
  const FailureReason& nvlink = m.reasons().front();
  constexpr int kRuns = 200000;
  int per_gpu = 0, nvlinks = 0;
  double nvlink_minutes = 0;
  for (JobId job = 0; job < kRuns; ++job) {
    const auto d = m.draw(key(job), 0, 8, run);
    if (!d || d->per_run) continue;
    ++per_gpu;
    if (d->reason == 0) ++nvlinks, nvlink_minutes += static_cast<double>(d->after.sec()) / 60.0;
  }
  // A per-run reason striking earlier in the same run (7% of runs) hides a few.
  CHECK(per_gpu == Approx(kRuns * -std::expm1(-lambda * 8 * static_cast<double>(run.sec()))).epsilon(0.12));
  REQUIRE(nvlinks > 500);
  const double mean = nvlink.ttf_mean_s / 60, horizon = 6000;
  const double truncated = mean - horizon * std::exp(-horizon / mean) / -std::expm1(-horizon / mean);
  CHECK(nvlink_minutes / nvlinks == Approx(truncated).epsilon(0.08));
}

TEST_CASE("A job hit by a failure loses exactly the progress since its last checkpoint", "[failures]") {
  // Checkpoints every 1000 s of compute, saves of 100 s; a 64-GPU Pretrain job of 100000 s.
  const FailureModel m = model({"failures.checkpoint_interval_s=1000", "failures.save_time_s=100",
                                "failures.repair_s=500"});
  // The first job whose first run fails; the others are submitted too late to matter.
  const Time wall = Time::seconds(100000 + 99 * 100);
  const auto [job, first] = first_id(m, 64, wall, [](JobId, const auto& d) { return d.has_value(); });
  const FailureDraw draw = *first;
  Workload w = only_job(job, JobType::Pretrain, 64, 8, 100000);
  Simulation sim(w, small_cluster(10), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  sim.run_until(Time::seconds(draw.after.sec()));
  CHECK(sim.failures_injected() == 1);
  const std::int64_t t = draw.after.sec();
  const std::int64_t saves = t / 1100, partial = std::max<std::int64_t>(0, t - saves * 1100 - 1000);
  const std::int64_t stall = saves * 100 + partial, lost = t - stall - saves * 1000;
  const auto& wasted = sim.wasted_by_cause();
  CHECK(wasted[static_cast<std::size_t>(WasteCause::FailureLost)] == 64 * lost);
  CHECK(wasted[static_cast<std::size_t>(WasteCause::CheckpointStall)] == 64 * stall);
  CHECK(sim.outcomes()[job].failures == 1);
  sim.run();
  sim.check_conservation();
  CHECK(sim.outcomes()[job].state == JobState::Completed);
}

TEST_CASE("A hardware failure takes the job's node down and brings it back after repair",
          "[failures]") {
  const FailureModel m = model({"failures.repair_s=500", "failures.recovery=automatic"});
  // An 8-GPU job of 1000 hours whose first run fails with an infrastructure reason: find one.
  const Time run = Time::hours(1000);
  const auto [job, d] = first_id(m, 8, run, [](JobId, const auto& d) { return d && d->takes_hardware(); });
  Workload w = only_job(job, JobType::SFT, 8, 1, run.sec());
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  sim.run_until(d->after);
  REQUIRE(sim.nodes_failed() == 1);
  CHECK(sim.cluster().is_down(0));
  CHECK(sim.cluster().free_gpus() == 8);
  sim.run_until(d->after + Time::seconds(499));
  CHECK(sim.cluster().is_down(0));
  sim.run_until(d->after + Time::seconds(500));
  CHECK_FALSE(sim.cluster().is_down(0));
  sim.run();
  const Conservation c = sim.check_conservation();
  CHECK(c.job_gpu_seconds == c.integral_gpu_seconds);
}

TEST_CASE("GPU-seconds stay conserved and the same seed gives the same failures under fifo and backfill",
          "[failures]") {
  const FailureModel m = model({"failures.checkpoint_interval_s=3600", "failures.repair_s=1800"});
  // Whole-node jobs only, so that no node failure stops a bystander and each job's runs depend
  // on its own draws alone.
  Workload w;
  w.users.intern("u");
  for (int i = 0; i < 60; ++i) {
    JobRequest r;
    r.submit = Time::seconds(600 * i);
    r.type = i % 3 == 0 ? JobType::Pretrain : i % 3 == 1 ? JobType::SFT : JobType::Eval;
    r.node_num = i % 3 == 0 ? 4 : 1;
    r.gpu_num = 8 * r.node_num;
    r.cpu_num = 64 * r.node_num;
    JobProfile p;
    p.run = Time::seconds(20000 + 7919 * (i % 11));
    p.final_state = JobState::Completed;
    w.add("j" + std::to_string(i), r, p);
  }
  // Per job, in order: the time from each start to the failure that stopped it.
  struct Recorder : Sink {
    explicit Recorder(std::size_t n) : started(n), failed(n) {}
    void on_fact(const Fact& f) override {
      if (f.kind == FactKind::Started) started[f.job] = f.time;
      if (f.kind == FactKind::Failed) failed[f.job].push_back((f.time - started[f.job]).sec());
    }
    void finish(const RunRecord&) override {}
    std::vector<Time> started;
    std::vector<std::vector<std::int64_t>> failed;
  };
  std::map<std::string, std::vector<std::vector<std::int64_t>>> failures_by_policy;
  for (const std::string policy : {"fifo", "backfill"}) {
    Simulation sim(w, small_cluster(8), make_policy(policy), ReplayMode::Policy);
    Recorder recorder(w.size());
    sim.add_sink(recorder);
    sim.add_feature(failures_feature(m));
    sim.run();
    const Conservation c = sim.check_conservation();
    CHECK(c.job_gpu_seconds == c.integral_gpu_seconds);
    CHECK(c.ended == w.size());
    CHECK(sim.failures_injected() > 0);
    CHECK(std::any_of(recorder.failed.begin(), recorder.failed.end(), [](const auto& f) { return !f.empty(); }));
    failures_by_policy[policy] = recorder.failed;
  }
  CHECK(failures_by_policy["fifo"] == failures_by_policy["backfill"]);
}

}  // namespace acme::test

namespace acme::test {

TEST_CASE("A job stopped by a node failure under it reruns in full after recovery", "[failures]") {
  const FailureModel m = model({"failures.repair_s=500", "failures.recovery=automatic"});
  // A: 4 GPUs, hit by an infrastructure failure in its first run. B: 4 GPUs on the same node,
  // long, with no failure of its own in its first run: its end event is pending when A's node
  // fails, and must not end B's next run. A runs for `horizon`.
  const Time horizon = Time::hours(1000);
  JobId a = 0;
  std::optional<FailureDraw> d;
  for (; a < 100000; ++a)
    if ((d = m.draw(key(a), 0, 4, horizon)) && d->takes_hardware()) break;
  REQUIRE(d);
  const std::int64_t run_b = d->after.sec() + 100000;
  JobId b = a + 1;
  while (m.draw(key(b), 0, 4, Time::seconds(run_b))) ++b;
  Workload w = one_job(JobType::SFT, 4, 1, horizon.sec(), static_cast<int>(b) + 1);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w.requests[i].submit = Time::seconds(i == a || i == b ? 0 : 1'000'000'000);
    if (i == b) w.profiles[i].run = Time::seconds(run_b);
  }
  Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  sim.run();
  sim.check_conservation();
  const JobOutcome& ob = sim.outcomes()[b];
  CHECK(ob.failures >= 1);
  CHECK(ob.run_time() >= Time::seconds(run_b));  // the rerun is whole, not cut at the old end
}

}  // namespace acme::test

namespace acme::test {

TEST_CASE("Recorded failures are kept, or completed when injected ones stand for all", "[failures]") {
  // A 1-GPU job the trace records as FAILED after 100 s, with a job id whose own draw strikes
  // nothing in those 100 s: only the recorded state decides how it ends.
  for (const std::string setting : {"keep", "complete"}) {
    const FailureModel m = model({"failures.recorded_failed=" + setting});
    const JobId job = first_id(m, 1, Time::seconds(100), [](JobId, const auto& d) { return !d; }).first;
    Workload w = only_job(job, JobType::Debug, 1, 1, 100);
    for (JobProfile& p : w.profiles) p.final_state = JobState::Failed;
    Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(m));
    sim.run_until(Time::seconds(100));
    const bool complete = setting == "complete";
    CHECK(sim.outcomes()[job].state == (complete ? JobState::Completed : JobState::Failed));
    CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::FailedJob)] == (complete ? 0 : 100));
  }
}

}  // namespace acme::test

namespace acme::test {

TEST_CASE("A failed job holds its GPUs while diagnosed, then restarts after reloading its checkpoint",
          "[failures]") {
  // An 8-GPU SFT job of 20,000 s on one node (no checkpoints): its first run is cut by a failure
  // that takes no node; its second run is clear. Manual recovery: 90 min, held; restart 200 s.
  const Time run = Time::seconds(20000);
  for (const bool hold : {true, false}) {
    const FailureModel m = model({"failures.comm_init_s=50", "failures.load_s=50", "failures.warmup_s=100",
                                  std::string("failures.hold_gpus=") + (hold ? "true" : "false")});
    const auto [job, d] = first_id(m, 8, run, [&](JobId j, const auto& d) {
      return d && !d->takes_hardware() && !m.draw(key(j), 1, 8, run + Time::seconds(200));
    });
    Workload w = only_job(job, JobType::SFT, 8, 1, run.sec());
    Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(m));
    const Time failed = d->after, requeued = d->after + m.recovery_delay();
    REQUIRE(m.recovery_delay() == Time::seconds(5400));
    sim.run_until(failed);
    CHECK(sim.failures_injected() == 1);
    CHECK(sim.cluster().allocated_gpus() == (hold ? 8 : 0));
    sim.run_until(requeued - Time::seconds(1));
    CHECK(sim.cluster().allocated_gpus() == (hold ? 8 : 0));
    sim.run_until(requeued);  // queued again and started at once: reloading
    CHECK(sim.cluster().allocated_gpus() == 8);
    // The rerun: 200 s reloading, then the whole 20,000 s (nothing was saved). The other jobs
    // start much later.
    sim.run_until(requeued + Time::seconds(200) + run);
    CHECK(sim.outcomes()[job].end == requeued + Time::seconds(200) + run);
    const auto& wasted = sim.wasted_by_cause();
    CHECK(wasted[static_cast<std::size_t>(WasteCause::FailureLost)] == 8 * failed.sec());
    CHECK(wasted[static_cast<std::size_t>(WasteCause::RecoveryHold)] == (hold ? 8 * 5400 : 0));
    CHECK(wasted[static_cast<std::size_t>(WasteCause::Restart)] == 8 * 200);
    CHECK(sim.outcomes()[job].gpu_seconds == 8 * (failed.sec() + (hold ? 5400 : 0) + 200 + run.sec()));
    sim.run();
    sim.check_conservation();
  }
}

TEST_CASE("A job hit by a node failure holds only its GPUs on the nodes that stay up", "[failures]") {
  // A 16-GPU job on two 8-GPU nodes whose first run meets a hardware failure: the struck node
  // goes down, it keeps the other node's 8 GPUs through the recovery delay.
  const FailureModel m = model({"failures.repair_s=100000"});
  const Time run = Time::hours(1000);
  const auto [job, d] = first_id(m, 16, run, [](JobId, const auto& d) { return d && d->takes_hardware(); });
  Workload w = only_job(job, JobType::SFT, 16, 2, run.sec());
  Simulation sim(w, small_cluster(3), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  sim.run_until(d->after);
  REQUIRE(sim.nodes_failed() == 1);
  const int struck = m.where(key(job), 0) < 0.5 ? 0 : 1;
  CHECK(sim.cluster().is_down(struck));
  CHECK(sim.cluster().allocated_gpus() == 8);
  CHECK(sim.cluster().free_gpus_on(1 - struck) == 0);
  sim.run_until(d->after + m.recovery_delay());
  CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::RecoveryHold)] ==
        8 * m.recovery_delay().sec());
  sim.run();
  const Conservation c = sim.check_conservation();
  CHECK(c.job_gpu_seconds == c.integral_gpu_seconds);
}

TEST_CASE("A failure takes down its reason's domain: nothing, the struck node, or a leaf switch's nodes",
          "[failures]") {
  // The test table (tests/data/failures_often.yaml), NodeFailure's domain set in turn. Three
  // leaves of 3 nodes; A (16 GPUs) lands on nodes 0 and 1, B (8) on node 2, under the same leaf,
  // C (8) on node 3, under the next. A's first run fails with NodeFailure; B and C meet nothing.
  const auto dir = temp_dir("failure-domains");
  for (const std::string domain : {"job", "node", "leaf"}) {
    const FailureModel m = node_failure_model(dir, domain);
    const Time run = Time::hours(10);
    const auto [a, failure, b] = node_failure_jobs(m, run);
    JobId c = b + 1;
    while (m.draw(key(c), 0, 8, run)) ++c;
    Workload w = only_job(c, JobType::SFT, 8, 1, run.sec());  // only c submitted at 0
    w.requests[a].gpu_num = 16, w.requests[a].node_num = 2, w.requests[a].cpu_num = 16;
    for (JobId j : {a, b}) w.requests[j].submit = Time::seconds(0);
    ClusterSpec cluster = small_cluster(9);
    cluster.nodes_per_leaf = 3;
    Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(m));
    sim.run_until(failure.after);
    REQUIRE(sim.outcomes()[a].failures == 1);
    CHECK(sim.outcomes()[c].failures == 0);
    std::vector<int> down;
    for (int n = 0; n < 9; ++n)
      if (sim.cluster().is_down(n)) down.push_back(n);
    const int struck = m.where(key(a), 0) < 0.5 ? 0 : 1;  // 8 of A's 16 GPUs on each node
    if (domain == "job") CHECK(down.empty());
    if (domain == "node") CHECK(down == std::vector<int>{struck});
    if (domain == "leaf") CHECK(down == std::vector<int>{0, 1, 2});
    CHECK(sim.outcomes()[b].failures == (domain == "leaf" ? 1 : 0));  // B sits under A's leaf
    CHECK(sim.nodes_failed() == down.size());
    sim.run_until(failure.after + Time::seconds(500));
    for (int n = 0; n < 9; ++n) CHECK_FALSE(sim.cluster().is_down(n));
    sim.run();
    const Conservation conserved = sim.check_conservation();
    CHECK(conserved.job_gpu_seconds == conserved.integral_gpu_seconds);
  }
}

TEST_CASE("A leaf switch failure in a rail-optimized fabric cuts no node off: only the struck job fails",
          "[failures]") {
  // As above with NodeFailure taking down a leaf, on rails (2 NICs per node, each on its own rail
  // switch) with contention on: the failed switch is one rail, every node keeps the other, so no
  // node goes down and B, on the same rail group, runs on; the switch stays down for the repair.
  const FailureModel m = node_failure_model(temp_dir("failure-rail"), "leaf");
  const Time run = Time::hours(10);
  const auto [a, failure, b] = node_failure_jobs(m, run);
  Workload w = only_job(b, JobType::SFT, 8, 1, run.sec());
  w.requests[a].gpu_num = 16, w.requests[a].node_num = 2, w.requests[a].cpu_num = 16;
  w.requests[a].submit = Time::seconds(0);
  ClusterSpec cluster = small_cluster(9);
  cluster.nodes_per_leaf = 3;
  cluster.fabric = Fabric::RailOptimized;
  cluster.nics_per_node = 2;
  Params net("network", {yaml_override("network.contention=true")});
  Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(network_feature(read_network_settings(net, true), cluster, Time::hours(1)));
  sim.add_feature(failures_feature(m));
  sim.run_until(failure.after);
  REQUIRE(sim.outcomes()[a].failures == 1);
  CHECK(sim.outcomes()[b].failures == 0);
  CHECK(sim.nodes_failed() == 0);
  for (int n = 0; n < 9; ++n) CHECK_FALSE(sim.cluster().is_down(n));
  sim.run();
  sim.check_conservation();
}

TEST_CASE("A node a failure finds already down stays down until the later repair", "[failures]") {
  // The test table with a second per-GPU reason, ECCError, that takes down the node of one GPU,
  // while NodeFailure takes down its leaf switch. X (8 GPUs) meets ECCError at t1, Y (8 GPUs,
  // the other node of the same leaf) NodeFailure at t2, within the repair time of X's node.
  std::string table_text = read_file(source_dir() / "tests/data/failures_often.yaml");
  table_text.replace(table_text.find("infrastructure:"), 15, "infrastructure:\n  ECCError: [3, 8, 60, 50]");
  table_text += "takes_down:\n  ECCError: gpu\n  NodeFailure: leaf\n";
  const auto dir = temp_dir("failure-twice");
  const std::string table = (dir / "t.yaml").string();
  std::ofstream(table) << table_text;
  constexpr std::int64_t kRepair = 100000;
  const FailureModel m = model({"failures.table=" + table, "failures.repair_s=" + std::to_string(kRepair)});
  const Time run = Time::hours(100);
  auto reason_of = [&](const FailureDraw& d) { return m.reasons()[d.reason].name; };
  const auto [x, dx] = first_id(m, 8, run, [&](JobId, const auto& d) { return d && reason_of(*d) == "ECCError"; });
  const Time t1 = dx->after;
  JobId y = x + 1;
  std::optional<FailureDraw> dy;
  for (;; ++y) {
    dy = m.draw(key(y), 0, 8, run);
    if (dy && reason_of(*dy) == "NodeFailure" && dy->after > t1 && dy->after < t1 + Time::seconds(kRepair)) break;
  }
  const Time t2 = dy->after;
  Workload w = only_job(y, JobType::SFT, 8, 1, run.sec());  // only y submitted at 0
  w.requests[x].submit = Time::seconds(0);
  ClusterSpec cluster = small_cluster(6);
  cluster.nodes_per_leaf = 3;
  Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  // The nodes down under the first leaf (X and Y, rerun, may fail again under the other).
  auto down = [&] {
    std::vector<int> out;
    for (int n = 0; n < 3; ++n)
      if (sim.cluster().is_down(n)) out.push_back(n);
    return out;
  };
  sim.run_until(t1);
  const std::vector<int> first = down();
  REQUIRE(first.size() == 1);
  CHECK(sim.nodes_failed() == 1);
  CHECK(first.front() < 2);  // X's node: X and Y hold nodes 0 and 1
  sim.run_until(t2);
  CHECK(down() == std::vector<int>{0, 1, 2});
  CHECK(sim.nodes_failed() == 3);  // X's node counted once
  sim.run_until(t1 + Time::seconds(kRepair));
  CHECK(down() == std::vector<int>{0, 1, 2});  // X's node waits for the leaf's repair
  sim.run_until(t2 + Time::seconds(kRepair));
  CHECK(down().empty());
  sim.run();
  const Conservation c = sim.check_conservation();
  CHECK(c.job_gpu_seconds == c.integral_gpu_seconds);
}

}  // namespace acme::test
