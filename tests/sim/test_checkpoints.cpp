// Checkpoints through storage, saves that are safe only once written, restores from each level,
// and the training ledger (sim/checkpoints.h, features/training_ledger.h), worked out by hand.
#include <catch2/catch.hpp>

#include <algorithm>

#include "harness.h"
#include "sim/failure_fixtures.h"

namespace acme::test {
namespace {

std::int64_t wasted(const Simulation& sim, WasteCause cause) { return sim.wasted_by_cause()[static_cast<std::size_t>(cause)]; }

// Every second of a training job's span is one part of its ledger (sim/training.h).
std::int64_t parts(const TrainingTimes& t) {
  return t.launch + t.stall + t.lost + t.detect + t.diagnose + t.wait + t.comm_init + t.load + t.warmup;
}

}  // namespace

TEST_CASE("A checkpoint of 530B parameters at 12 bytes each takes 42 min through 20 Gb/s", "[checkpoints]") {
  FailureModel m = model({"failures.save_time_s=0", "failures.model_params=530e9", "failures.bytes_per_param=12"});
  ClusterSpec c;
  c.storage_gbps = 20.0 / c.top_switches();  // the storage links carry 20 Gb/s in all, narrower than 128 nodes' NICs
  m.use_cluster(c);
  const JobRequest big{Time{}, 1024, 128, 1024, JobType::Pretrain, 0};
  CHECK(m.checkpoints().size_gb(big) == Approx(6360));          // 530e9 x 12 bytes
  CHECK(m.checkpoints().write(big) == Time::seconds(2544));     // 6,360 GB x 8 / 20 Gb/s: 42.4 min
  CHECK(m.checkpoints().stall(big) == Time::seconds(2544));     // sync: the whole write
  FailureModel async = model({"failures.save_time_s=0", "failures.model_params=530e9", "failures.checkpoint_mode=async"});
  async.use_cluster(c);
  CHECK(async.checkpoints().stall(big) == Time::seconds(1));    // the copy to host memory: 1,024 x 200 Gb/s, 0.25 s
  CHECK(async.checkpoints().kept(big, 0).lag == Time::seconds(2544));  // safe once written, even with no node lost
}

TEST_CASE("A lazy multilevel save stalls only for the copy's part longer than the passes it overlaps",
          "[checkpoints]") {
  // 8 GPUs on 1 node, 100 GB a GPU: 800 GB. Sync: 6,400 Gb through the node's one 200 Gb/s NIC,
  // 32 s; async: 100 GB x 8 / 200 Gb/s = 4 s of copy to host memory; multilevel hides 3 of them
  // behind the next iteration's passes, or all of them behind 5 s.
  const JobRequest job{Time{}, 8, 1, 16, JobType::Pretrain, 0};
  auto stall = [&](const std::string& mode, const std::string& overlap) {
    return model({"failures.save_time_s=0", "failures.checkpoint_gb_per_gpu=100", "failures.checkpoint_mode=" + mode,
                  "failures.lazy_overlap_s=" + overlap})
        .checkpoints()
        .stall(job);
  };
  CHECK(stall("sync", "3") == Time::seconds(32));
  CHECK(stall("async", "3") == Time::seconds(4));  // async overlaps nothing
  CHECK(stall("multilevel", "3") == Time::seconds(1));
  CHECK(stall("multilevel", "5") == Time{});
  CHECK(stall("multilevel", "0") == Time::seconds(4));
  // With save_time_s given the copy is save_time_s / async_speedup (58, acme.yaml): 5.2 s, 0.2 s past 5.
  CHECK(model({"failures.save_time_s=300", "failures.checkpoint_mode=multilevel",
               "failures.lazy_overlap_s=5"}).checkpoints().stall(job) == Time::seconds(1));
}

TEST_CASE("Restores read from host memory only when the job's nodes survived, under multilevel", "[checkpoints]") {
  // 16 GPUs on 2 nodes, 25 GB a GPU: 400 GB = 3,200 Gb; the shared file system through the two
  // nodes' NICs (2 x 200 Gb/s) in 8 s; host memory at 200 Gb/s a GPU in 1 s.
  const JobRequest job{Time{}, 16, 2, 32, JobType::Pretrain, 0};
  const std::vector<std::string> keys{"failures.save_time_s=0", "failures.checkpoint_gb_per_gpu=25",
                                      "failures.load_s=0", "failures.comm_init_s=10", "failures.warmup_s=20"};
  std::vector<std::string> multilevel = keys;
  multilevel.push_back("failures.checkpoint_mode=multilevel");
  const CheckpointModel m = model(multilevel).checkpoints();
  using Restore = CheckpointModel::Restore;
  CHECK(m.restart(job, Restore::Host).load == Time::seconds(1));
  CHECK(m.restart(job, Restore::Storage).load == Time::seconds(8));
  CHECK(m.restart(job, Restore::None).load == Time{});  // a job that saves nothing loads nothing
  CHECK(m.restart(job, Restore::Storage).total() == Time::seconds(38));
  const auto kept = [](const CheckpointModel& model, const JobRequest& r, int lost) {
    const CheckpointModel::Kept k = model.kept(r, lost);
    return std::make_pair(k.from, k.lag);
  };
  CHECK(kept(m, job, 0) == std::make_pair(Restore::Host, Time{}));  // in host memory, safe at once
  CHECK(kept(m, job, 1) == std::make_pair(Restore::Storage, Time::seconds(8)));  // a node lost, no SSD level: once written
  const CheckpointModel sync = model(keys).checkpoints();
  CHECK(kept(sync, job, 1) == std::make_pair(Restore::Storage, Time{}));  // sync: safe when its stall (the write) ends
  // With an SSD level (each node: its shard and its partner's, 2 x 1,600 Gb): at 800 Gb/s, 4 s,
  // but one shard through the NICs takes 8 s, the write to storage as long: the SSDs (the nearer
  // level, as new). At 200 Gb/s, 16 s: storage has the newer save.
  multilevel.push_back("failures.ssd_gbps=800");
  const CheckpointModel ssd = model(multilevel).checkpoints();
  CHECK(ssd.ssd_transfer(job) == Time::seconds(8));
  CHECK(kept(ssd, job, 1) == std::make_pair(Restore::Ssd, Time::seconds(8)));
  CHECK(ssd.restart(job, Restore::Ssd).load == Time::seconds(8));
  CHECK(kept(ssd, job, 2) == std::make_pair(Restore::Storage, Time::seconds(8)));  // both nodes: their partners too
  const JobRequest one_node{Time{}, 8, 1, 16, JobType::Pretrain, 0};
  CHECK(kept(ssd, one_node, 1).first == Restore::Storage);  // no partner among its nodes
  multilevel.back() = "failures.ssd_gbps=200";
  CHECK(kept(model(multilevel).checkpoints(), job, 1) == std::make_pair(Restore::Storage, Time::seconds(8)));
  CHECK(model({"failures.load_s=210"}).checkpoints().restart(job, Restore::Host).load == Time::seconds(210));
}

TEST_CASE("A failure during an asynchronous write loses back to the save before", "[checkpoints]") {
  // Saves every 1,000 s of compute, writes of 100 s; async stalls 100 / 58 -> 2 s, so the cycle
  // is 1,002 s and save k is safe at k x 1,002 + 100. A 64-GPU Pretrain job of 100,000 s: find
  // one whose first run fails inside a background write (after at least one save).
  const FailureModel m = model({"failures.checkpoint_interval_s=1000", "failures.save_time_s=100",
                                "failures.checkpoint_mode=async", "failures.repair_s=500"});
  const Time wall = Time::seconds(100000 + 99 * 2);
  const auto [job, draw] = first_id(m, 64, wall, [](JobId, const auto& d) {
    return d && d->after.sec() >= 1002 && d->after.sec() % 1002 < 100;
  });
  Workload w = only_job(job, JobType::Pretrain, 64, 8, 100000);
  Simulation sim(w, small_cluster(10), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  sim.run_until(draw->after);
  REQUIRE(sim.failures_injected() == 1);
  const std::int64_t t = draw->after.sec(), saves = t / 1002;  // saves whose stall had ended
  const std::int64_t compute = t - 2 * saves;                   // no partial stall: t % 1002 < 100
  // The last save was still being written: the job keeps saves - 1 of them (sync would keep all).
  CHECK(wasted(sim, WasteCause::FailureLost) == 64 * (compute - (saves - 1) * 1000));
  CHECK(wasted(sim, WasteCause::CheckpointStall) == 64 * 2 * saves);
  const TrainingTimes* ledger = ledger_of(sim).find(job);
  REQUIRE(ledger);
  CHECK(ledger->lost == compute - (saves - 1) * 1000);
  sim.run();
  sim.check_conservation();
}

TEST_CASE("A multilevel job restores from host memory, from the SSDs or from storage, by what its failure took",
          "[checkpoints]") {
  // 16 GPUs on 2 nodes, 25 GB a GPU: 400 GB = 3,200 Gb. Storage links of 40 Gb/s in all: a write
  // or read takes 80 s. Host memory: 16 x 200 Gb/s, 1 s. SSDs at 400 Gb/s: a node moves its shard
  // and its partner's, 3,200 Gb, in 8 s (one shard through its NICs, 1,600 / 200 Gb/s: 8 s too).
  // The same with the saves as events through shared storage (the job alone on it).
  const std::string shared = GENERATE("false", "true");
  INFO("shared_storage " << shared);
  struct Case {
    const char* what;
    bool hardware;          // the failure takes one of the job's nodes down
    const char* ssd_gbps;
    std::int64_t lag, load;  // a save safe that long after its stall; the restore's read
  };
  const Case kCases[] = {{"a failure of the job alone: host memory", false, "400", 0, 1},
                         {"one node down: its shard on its partner's SSD", true, "400", 8, 8},
                         {"one node down, no SSD level: storage", true, "0", 80, 80}};
  for (const Case& c : kCases) {
    INFO(c.what);
    FailureModel m = model({"failures.checkpoint_interval_s=1000", "failures.save_time_s=0",
                            "failures.checkpoint_gb_per_gpu=25", "failures.load_s=0", "failures.comm_init_s=10",
                            "failures.warmup_s=20", "failures.checkpoint_mode=multilevel", "failures.lazy_overlap_s=0",
                            "failures.repair_s=500", std::string("failures.ssd_gbps=") + c.ssd_gbps,
                            "failures.shared_storage=" + shared});
    ClusterSpec cluster = small_cluster(4);
    cluster.storage_gbps = 40.0 / cluster.top_switches();
    m.use_cluster(cluster);
    const Time run = Time::seconds(20000);
    // The first 16-GPU job (2 nodes) whose first run (its wall: 19 saves of 1 s) fails that way
    // after a save, taking at most one node, and whose second is clear.
    const auto [job, d] = first_id(m, 16, run + Time::seconds(19), [&](JobId j, const auto& d) {
      return d && d->takes_hardware() == c.hardware && d->domain != FailureDomain::Leaf && d->after.sec() > 1001 &&
             !m.draw(key(j), 1, 16, run + run);
    });
    Workload w = only_job(job, JobType::Pretrain, 16, 2, run.sec());
    Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(m));
    sim.run();
    sim.check_conservation();
    const TrainingTimes* ledger = ledger_of(sim).find(job);
    REQUIRE(ledger);
    CHECK(sim.outcomes()[job].failures == 1);
    CHECK(ledger->comm_init == 10);
    CHECK(ledger->load == c.load);
    CHECK(ledger->warmup == 20);
    // Saves stall 1 s (the copy to host memory) every 1,000 s; the cycle is 1,001 s. A save is
    // kept when its stall had ended `lag` before the failure.
    const std::int64_t t = d->after.sec(), saves = t / 1001;
    const std::int64_t safe = std::min(saves, (t - c.lag) / 1001);
    CHECK(ledger->lost == t - saves - std::max<std::int64_t>(0, t - saves * 1001 - 1000) - safe * 1000);
  }
}

TEST_CASE("A training job's span splits exactly into training kept and the ledger's parts", "[checkpoints]") {
  // Often-failing jobs on a small cluster, every one a Pretrain job that checkpoints: no network
  // slowdown and no preemption, so nothing is left over. Also with the saves and restores sharing
  // storage links of 50 Gb/s in all (a write alone at 200 Gb/s would take 8 s: 32 s or more here).
  const std::string shared = GENERATE("false", "true");
  INFO("shared_storage " << shared);
  FailureModel m = model({"failures.table=" + (source_dir() / "tests/data/failures_often.yaml").string(),
                          "failures.comm_init_s=30", "failures.load_s=0", "failures.warmup_s=60",
                          "failures.checkpoint_gb_per_gpu=25", "failures.checkpoint_mode=" + std::string(GENERATE("async", "sync", "multilevel")),
                          "failures.shared_storage=" + shared});
  ClusterSpec cluster = small_cluster(4);
  if (shared == "true") cluster.storage_gbps = 25;
  m.use_cluster(cluster);
  Workload w = one_job(JobType::Pretrain, 8, 1, 50000, 12);
  for (std::size_t i = 0; i < w.size(); ++i) w.requests[i].submit = Time::seconds(static_cast<std::int64_t>(i) * 600);
  Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(m));
  sim.run();
  sim.check_conservation();
  REQUIRE(sim.failures_injected() > 5);
  std::int64_t lost = 0, loads = 0;
  for (const JobId job : ledger_of(sim).jobs()) {
    const JobOutcome& o = sim.outcomes()[job];
    if (o.state != JobState::Completed) continue;  // a job failures stopped for good ends FAILED
    const TrainingTimes& t = *ledger_of(sim).find(job);
    INFO("job " << job);
    CHECK((*o.end - *o.start).sec() == w.profiles[job].run.sec() + parts(t));
    lost += t.lost * 8;
    loads += t.load;
  }
  CHECK(lost <= wasted(sim, WasteCause::FailureLost));
  CHECK(loads > 0);  // restores happened (their sharing: tests/sim/test_storage_sharing.cpp)
}

}  // namespace acme::test
