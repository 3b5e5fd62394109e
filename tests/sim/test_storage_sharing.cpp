// Checkpoints through shared storage (failures.shared_storage, sim/storage_sharing.h): the sharing
// rule on its own, and two jobs whose saves overlap, worked by hand.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "failure_fixtures.h"
#include "harness.h"
#include "sim/simulation.h"
#include "sim/storage_sharing.h"

namespace acme::test {
namespace {

// Storage links of 100 Gb/s. A (800 Gb, asking 100) starts at 0: alone it ends at 8. B (the same)
// starts at 2: they ask 200, each gets half. A has 600 Gb left: at 50 Gb/s it ends at 14; B's
// 800 at 50 would end at 18. When A ends, B has 800 - 12 x 50 = 200 left, at 100: it ends at 16.
TEST_CASE("StorageSharing: transfers in flight share the storage links in proportion, and their ends move",
          "[storage]") {
  StorageSharing s(100);
  std::vector<StorageSharing::Moved> moved;
  const std::uint32_t a = s.add(Time::seconds(0), 1, 7, 100, 100, moved);
  REQUIRE(moved.size() == 1);
  CHECK(moved[0].id == a);
  CHECK(moved[0].end == Time::seconds(8));
  CHECK(s.what_of(a) == 7);
  moved.clear();
  const std::uint32_t b = s.add(Time::seconds(2), 2, 1, 100, 100, moved);
  REQUIRE(moved.size() == 2);  // A's end moved, and B's
  CHECK(moved[0].id == a);
  CHECK(moved[0].end == Time::seconds(14));
  CHECK_FALSE(s.current(a, 1));  // A's first end event is stale now
  CHECK(s.current(a, moved[0].version));
  CHECK(moved[1].end == Time::seconds(18));
  CHECK(s.in_flight() == 2);
  moved.clear();
  s.remove(Time::seconds(14), a, moved);
  REQUIRE(moved.size() == 1);
  CHECK(moved[0].id == b);
  CHECK(moved[0].end == Time::seconds(16));
  moved.clear();
  s.remove_job(Time::seconds(15), 2, moved);
  CHECK(s.in_flight() == 0);
  CHECK(s.peak_in_flight() == 2);
  CHECK(moved.empty());
}

// Two pretraining jobs of one node (8 GPUs, a 200 Gb/s NIC) on a 2-node cluster whose storage
// links carry 200 Gb/s in all (2 spines x 100): a checkpoint of 8 x 31.25 = 250 GB (2,000 Gb) takes
// 10 s alone. A saves every 300 s of compute and runs 1,000 s of work, B the same, 5 s later.
// Sync, by hand:
//  - A's save at 300 writes alone for 5 s (1,000 Gb); B's starts at 305 and both get 100 Gb/s:
//    A's last 1,000 Gb end at 315, B has then written 1,000 and writes the rest at 200: 320.
//  - So every pair of saves: A stalls 15 s (300-315, 615-630, 930-945), B 15 s (305-320, 620-635,
//    935-950); A ends at 1,000 + 45 = 1,045, B at 5 + 1,045 = 1,050.
//  - Without sharing each save stalls 10 s: A ends at 1,030, B at 1,035.
// Async: the copy to host memory (2,000 Gb over 8 x 200 Gb/s: 1.25 s, 1 s) stalls them, the writes
// go on behind: A ends at 1,003 and B at 1,008 either way.
TEST_CASE("Shared storage: two jobs whose saves overlap share the storage links and end later", "[storage]") {
  const std::vector<std::string> keys{"failures.checkpoint_interval_s=300", "failures.save_time_s=0",
                                      "failures.checkpoint_gb_per_gpu=31.25", "failures.host_gbps=200"};
  ClusterSpec cluster = small_cluster(2);
  cluster.storage_gbps = 100;
  auto clear = [](const FailureModel& m) {
    return first_id(m, 8, Time::seconds(3000), [&](JobId j, const auto& d) {
      return !d && !m.draw(key(j + 1), 0, 8, Time::seconds(3000));
    }).first;
  };
  struct Case {
    std::string mode, shared;
    std::int64_t a_end, b_end, stall_gpu_s;
  };
  for (const Case& c : {Case{"sync", "true", 1045, 1050, 2 * 3 * 15 * 8}, Case{"sync", "false", 1030, 1035, 2 * 3 * 10 * 8},
                        Case{"async", "true", 1003, 1008, 2 * 3 * 1 * 8}, Case{"async", "false", 1003, 1008, 2 * 3 * 1 * 8}}) {
    INFO(c.mode << ", shared_storage " << c.shared);
    std::vector<std::string> settings = keys;
    settings.push_back("failures.checkpoint_mode=" + c.mode);
    settings.push_back("failures.shared_storage=" + c.shared);
    FailureModel failures = model(settings);
    failures.use_cluster(cluster);
    const JobId a = clear(failures);
    Workload w = one_job(JobType::Pretrain, 8, 1, 1000, static_cast<int>(a) + 2);
    for (std::size_t i = 0; i < w.size(); ++i) w.requests[i].submit = Time::seconds(1'000'000'000);
    w.requests[a].submit = Time::seconds(0);
    w.requests[a + 1].submit = Time::seconds(5);
    Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(failures));
    sim.run_until(Time::seconds(999'999'999));
    CHECK(sim.outcomes()[a].end == Time::seconds(c.a_end));
    CHECK(sim.outcomes()[a + 1].end == Time::seconds(c.b_end));
    CHECK(sim.wasted_by_cause()[static_cast<std::size_t>(WasteCause::CheckpointStall)] == c.stall_gpu_s);
    sim.run();
    CHECK_NOTHROW(sim.check_conservation());
  }
}

// A restore shares the storage links too. The often-failing table, sync saves every 1,800 s of
// compute, the same 250 GB checkpoint (10 s alone through 200 Gb/s of storage links). A (5,000 s
// of work) fails at t_f, after its first save (1,800-1,810) and before its second, by a failure
// of its own (no node down); it gives its GPUs back, is queued again after 60 + 40 s, starts at
// once and sets up its communicators for 30 s: its restore read starts at t_r = t_f + 130. B
// (2,000 s of work, no failure) is submitted at t_r - 1,800, so that its one save starts at t_r
// too. By hand, shared: both move 2,000 Gb at 100 Gb/s and end at t_r + 20, so A's load and B's
// stall are 20 s (10 alone); B ends at t_r + 200 + 20; A warms up 60 s, computes the 3,200 s left
// with one save, alone, of 10 s: it ends at t_r + 20 + 60 + 3,200 + 10.
TEST_CASE("Shared storage: a restore after a failure shares the storage links with a save", "[storage]") {
  for (const std::string shared : {"true", "false"}) {
    INFO("shared_storage " << shared);
    FailureModel failures = model({"failures.table=" + (source_dir() / "tests/data/failures_often.yaml").string(),
                                   "failures.checkpoint_mode=sync", "failures.save_time_s=0", "failures.load_s=0",
                                   "failures.checkpoint_gb_per_gpu=31.25", "failures.comm_init_s=30",
                                   "failures.warmup_s=60", "failures.detect_s=60", "failures.diagnose_s=40",
                                   "failures.hold_gpus=false", "failures.shared_storage=" + shared});
    ClusterSpec cluster = small_cluster(4);
    cluster.storage_gbps = 100;
    failures.use_cluster(cluster);
    const auto [a, draw] = first_id(failures, 8, Time::seconds(5020), [&](JobId j, const auto& d) {
      return d && !d->takes_hardware() && d->after.sec() > 1810 && d->after.sec() < 3600 &&
             !failures.draw(key(j), 1, 8, Time::seconds(5000)) && !failures.draw(key(j + 1), 0, 8, Time::seconds(2010));
    });
    const std::int64_t t_r = draw->after.sec() + 130;
    Workload w = one_job(JobType::Pretrain, 8, 1, 5000, static_cast<int>(a) + 2);
    for (std::size_t i = 0; i < w.size(); ++i) w.requests[i].submit = Time::seconds(1'000'000'000);
    w.requests[a].submit = Time::seconds(0);
    w.requests[a + 1].submit = Time::seconds(t_r - 1800);
    w.profiles[a + 1].run = Time::seconds(2000);
    Simulation sim(w, cluster, make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(failures));
    sim.run_until(Time::seconds(999'999'999));
    const std::int64_t meet = shared == "true" ? 20 : 10;
    CHECK(sim.outcomes()[a].failures == 1);
    CHECK(ledger_of(sim).find(a)->load == meet);
    CHECK(ledger_of(sim).find(a + 1)->stall == meet);
    CHECK(sim.outcomes()[a + 1].end == Time::seconds(t_r + 200 + meet));
    CHECK(sim.outcomes()[a].end == Time::seconds(t_r + meet + 60 + 3200 + 10));
  }
}

}  // namespace
}  // namespace acme::test
