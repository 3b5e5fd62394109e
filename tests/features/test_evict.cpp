// Eviction of slow nodes (features/stragglers.h, stragglers.mitigation: evict): a 2-node job slow
// from its start is evicted after detect_s, without a spare (it gives back its nodes and waits
// behind the job queued before it) and with one (it restarts at once on its nodes), each worked by
// hand; and the presets of configs/stragglers/ load.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "features/failures.h"
#include "features/stragglers.h"
#include "harness.h"
#include "app/app.h"
#include "io/yaml_util.h"
#include "sim/failure_fixtures.h"

namespace acme::test {
namespace {

// The cell of the run's jobs.csv column `name` (a feature's, Feature::columns) for `job`;
// none when no feature writes that column.
std::optional<double> job_cell(const Simulation& sim, std::string_view name, JobId job) {
  for (const auto& f : sim.features())
    for (const FeatureColumn& c : f->columns(FeatureOutput::Job))
      if (c.name == name) return c.cell(*f, job).value;
  return std::nullopt;
}

// One episode at a time lasts 3,000 s; 30% of nodes slow; 1-node jobs never slowed.
StragglerModel evicting(int spares) {
  StragglerModel m;
  m.enabled = true;
  m.prevalence = 0.3;
  m.min_episode_s = m.max_episode_s = 3000;
  m.min_nodes = 2;
  m.evict = true;
  m.detect_s = 600;
  m.spares = spares;
  return m;
}

// Checkpoints every 300 s of compute, each stalling 10 s (sync); restarts of 10 + 8 + 20 s (the
// load: 16 GPUs x 25 GB = 3,200 Gb through the job's two 200 Gb/s NICs).
const std::vector<std::string> kCheckpoints{"failures.checkpoint_interval_s=300", "failures.save_time_s=10",
                                            "failures.checkpoint_gb_per_gpu=25", "failures.load_s=0",
                                            "failures.comm_init_s=10", "failures.warmup_s=20"};

}  // namespace

// Job A: 2 nodes (16 GPUs), 3,000 s of work, submitted at 0 on a 2-node cluster; job B: 1 node,
// 1,000 s (a Debug job: no checkpoints), submitted at 100, waits for A. The copy of A picked has one node slow from its start
// (one episode in progress, past 600 s), no failure, and its second run (on clean nodes) meets
// no episode; B never fails. By hand:
//  - A's run 0 is slow (1.1) from 0; at 600 s it has been slow for detect_s: evicted. It held
//    600 s: a save at 300 s of compute (stall 300-310, safe at 310), compute 590 s, of which the
//    save covers 300: work kept 300 / 1.1 = 272.7 -> 272 s; lost 290 compute-s x 16 = 4,640
//    GPU-s, and its slowness 590 x (1 - 1/1.1) = 53.6 s, of which the kept 300/590: 27.3 s x 16 =
//    436 GPU-s: 5,076 GPU-s wasted as `straggler`; the stall 10 x 16 = 160.
//  - its run 1: 38 s of restart, then 3,000 - 272 = 2,728 s of work with (2,728 - 1) / 300 = 9
//    saves of 10 s: 2,856 s held.
//  - without a spare A is queued behind B, which starts at 600 and ends at 1,600; A runs again
//    from 1,600 to 4,456 (its ledger: 1,000 s waiting).
//  - with a spare A runs again at once, from 600 to 3,456; B waits until then and ends at 4,456.
TEST_CASE("Evict: a 2-node job slow from its start is evicted at 600 s and waits for nodes, or with a spare restarts at once",
          "[stragglers][evict]") {
  const FailureModel failures = model(kCheckpoints);
  const StragglerModel probe = evicting(0);
  const auto [job, none] = first_id(failures, 16, Time::seconds(6000), [&](JobId j, const auto& d) {
    if (d || failures.draw(key(j), 1, 16, Time::seconds(6000)) || failures.draw(key(j + 1), 0, 8, Time::seconds(2000)))
      return false;
    StragglerStream run0(probe, key(j), 0, 2);
    if (!run0.slow(0) || run0.in_progress(0).size() != 1) return false;
    run0.advance(600);
    const StragglerStream run1(probe, key(j), 1, 2, true);
    return run0.slow(600) && run0.in_progress(600).size() == 1 && run1.next_change(0) > 6000;
  });
  for (const int spares : {0, 1}) {
    INFO("spares: " << spares);
    Workload w = one_job(JobType::Pretrain, 16, 2, 3000, static_cast<int>(job) + 2);
    for (std::size_t i = 0; i < w.size(); ++i) w.requests[i].submit = Time::seconds(i == job ? 0 : 1'000'000'000);
    const JobId b = job + 1;
    w.requests[b].submit = Time::seconds(100);
    w.requests[b].gpu_num = w.requests[b].cpu_num = 8;
    w.requests[b].node_num = 1;
    w.requests[b].type = JobType::Debug;  // saves no checkpoint
    w.profiles[b].run = Time::seconds(1000);
    Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(failures));
    sim.add_feature(straggler_feature(evicting(spares)));
    sim.run_until(Time::seconds(999'999'999));  // before the other copies
    const JobOutcome &a = sim.outcomes()[job], &o = sim.outcomes()[b];
    CHECK(a.failures == 0);
    CHECK(a.start->sec() == 0);
    CHECK(a.end->sec() == (spares ? 3456 : 4456));
    CHECK(o.start->sec() == (spares ? 3456 : 600));
    CHECK(o.end->sec() == (spares ? 4456 : 1600));
    CHECK(a.gpu_seconds == 16 * (600 + 2856));
    CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::Straggler)] == 5076);
    CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::CheckpointStall)] == 16 * (10 + 90));
    CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::Restart)] == 16 * 38);
    CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::FailureLost)] == 0);
    CHECK(job_cell(sim, "evictions", job) == 1.0);
    const TrainingTimes* t = ledger_of(sim).find(job);
    REQUIRE(t);
    CHECK(t->evicted == 290);  // lost to the eviction, not to a failure
    CHECK(t->lost == 0);
    CHECK(t->stall == 100);
    CHECK(t->wait == (spares ? 0 : 1000));
    CHECK(t->comm_init == 10);
    CHECK(t->load == 8);
    CHECK(t->warmup == 20);
    CHECK(t->detect + t->diagnose == 0);
    sim.run();
    sim.check_conservation();
  }
}

// Without checkpoints an eviction would keep nothing and start the job over: a 2-node job of
// 100,000 s on nodes that turn slow every ~4,200 s (two nodes at 30%, episodes of 3,000 s) is
// never evicted; it runs at its slow nodes' pace and ends.
TEST_CASE("Evict: a job that saves no checkpoints is never evicted, it tolerates its slow nodes", "[stragglers][evict]") {
  const Workload w = one_job(JobType::Pretrain, 16, 2, 100000);
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(straggler_feature(evicting(0)));
  sim.run();
  sim.check_conservation();
  CHECK(sim.outcomes()[0].state == JobState::Completed);
  CHECK(job_cell(sim, "evictions", 0) == 0.0);
  REQUIRE(sim.outcomes()[0].end);
  CHECK(*sim.outcomes()[0].end > Time::seconds(100000));  // slowed, not stopped
  CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::Straggler)] > 0);
}

// Tolerated (the default), the same job is never stopped: it runs slow for its episode.
TEST_CASE("Evict: tolerated, the same draws never stop a run and no evictions column is written", "[stragglers][evict]") {
  StragglerModel m = evicting(0);
  m.evict = false;
  const Workload w = one_job(JobType::Pretrain, 16, 2, 3000, 20);
  Simulation sim(w, small_cluster(40), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(straggler_feature(m));
  sim.run();
  sim.check_conservation();
  CHECK(!job_cell(sim, "evictions", 0));
  CHECK(job_cell(sim, "straggler_s", 0));
  for (const JobOutcome& o : sim.outcomes()) CHECK(o.preemptions == 0);
}

// Each preset is a map of stragglers.* keys that a run takes (as --set overrides here).
TEST_CASE("Evict: the presets of configs/stragglers/ load and run", "[stragglers][evict]") {
  const auto dir = temp_dir("stragglers-presets");
  for (const char* preset : {"megascale", "falcon"}) {
    INFO(preset);
    RunArgs args;
    args.config = (source_dir() / "configs/kalos.yaml").string();
    args.overrides = {"policy.name=fifo", "workload.from=2023-06-01", "workload.to=2023-06-02", "outputs=jobs,summary"};
    for (const YamlValue& v : read_yaml_file((source_dir() / "configs/stragglers" / (std::string(preset) + ".yaml")).string()))
      args.overrides.push_back(v.key() + "=" + v.as_string());
    args.out_dir = (dir / preset).string();
    args.progress = false;
    REQUIRE(run_command(args) == 0);
    const std::string summary = read_file(dir / preset / "summary.csv");
    CHECK(summary.find("stragglers.mitigation") != std::string::npos);
    const std::string header = lines_of(read_file(dir / preset / "jobs.csv")).front();
    CHECK(header.ends_with(std::string(preset) == "megascale" ? ",straggler_s,evictions" : ",straggler_s"));
  }
}

}  // namespace acme::test
