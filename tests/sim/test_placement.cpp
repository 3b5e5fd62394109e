// Placement strategies and the network model on a small hand-drawn topology: 6 nodes of 8 GPUs
// and 64 cores, 2 nodes per leaf switch (leaf 0: nodes 0-1, leaf 1: 2-3, leaf 2: 4-5).
#include <catch2/catch.hpp>

#include "harness.h"
#include "sim/network.h"
#include "features/network.h"

namespace acme::test {
namespace {

JobRequest job(std::int32_t gpus, std::int32_t nodes, JobType type = JobType::Pretrain) {
  JobRequest r;
  r.gpu_num = gpus;
  r.node_num = nodes;
  r.cpu_num = 8 * gpus;
  r.type = type;
  return r;
}

}  // namespace

TEST_CASE("Best fit packs a small job onto the fullest node that still has room", "[placement]") {
  Cluster c(small_cluster(6));
  c.allocate({{0, 2, 0}, {2, 5, 0}});  // free: node 0 has 6, node 2 has 3, the rest 8
  CHECK(*c.find_placement(job(3, 1), PlacementStrategy::FirstFit) == Placement{{0, 3, 24}});
  CHECK(*c.find_placement(job(3, 1), PlacementStrategy::BestFit) == Placement{{2, 3, 24}});
  CHECK(*c.find_placement(job(4, 1), PlacementStrategy::BestFit) == Placement{{0, 4, 32}});
  CHECK(*c.find_placement(job(3, 1), PlacementStrategy::Topology) == Placement{{2, 3, 24}});
}

TEST_CASE("Topology placement keeps a multi-node job under the fewest leaf switches", "[placement]") {
  Cluster c(small_cluster(6));
  c.allocate({{0, 1, 0}});  // leaf 0 has one whole node free, leaves 1 and 2 two each
  const auto first = *c.find_placement(job(16, 2), PlacementStrategy::FirstFit);
  CHECK(first == Placement{{1, 8, 64}, {2, 8, 64}});
  CHECK(c.leaves_spanned(first) == 2);
  const auto topo = *c.find_placement(job(16, 2), PlacementStrategy::Topology);
  CHECK(topo == Placement{{2, 8, 64}, {3, 8, 64}});  // the tightest leaf that holds it: leaf 1
  CHECK(c.leaves_spanned(topo) == 1);
  // Three nodes fit under no single leaf: the roomiest leaves first (1, then 2).
  CHECK(*c.find_placement(job(24, 3), PlacementStrategy::Topology) == Placement{{2, 8, 64}, {3, 8, 64}, {4, 8, 64}});
}

TEST_CASE("A node taken down offers no room until it is brought back up", "[placement]") {
  Cluster c(small_cluster(6));
  c.take_down(3);
  CHECK(c.free_gpus() == 40);
  CHECK(c.allocated_gpus() == 0);
  CHECK(*c.find_placement(job(16, 2), PlacementStrategy::Topology) == Placement{{0, 8, 64}, {1, 8, 64}});
  c.allocate({{0, 8, 0}});
  CHECK(*c.find_placement(job(16, 2), PlacementStrategy::Topology) == Placement{{4, 8, 64}, {5, 8, 64}});
  CHECK_THROWS_AS(c.allocate({{3, 1, 0}}), std::logic_error);
  CHECK_THROWS_AS(c.take_down(0), std::logic_error);  // a job runs there
  c.bring_up(3);
  CHECK(c.free_gpus() == 40);
  CHECK(*c.find_placement(job(16, 2), PlacementStrategy::Topology) == Placement{{2, 8, 64}, {3, 8, 64}});
}

TEST_CASE("The network model slows multi-node jobs by bandwidth and leaves spanned", "[placement]") {
  ClusterSpec seren = small_cluster(6);
  seren.oversubscription = 2;
  Params defaults("network", {});
  const NetworkModel m(seren, read_network_settings(defaults, true));
  CHECK(m.slowdown(job(8, 1), 1) == 1.0);
  CHECK(m.slowdown(job(16, 2), 1) == Approx(1.0));                    // 200 Gb/s as needed
  CHECK(m.slowdown(job(16, 2), 2) == Approx(1 + 0.4 * 1 + 0.4 * 0.05));  // uplinks halve it
  CHECK(m.slowdown(job(16, 2, JobType::Eval), 3) == Approx(1.0));     // evaluation does not talk
  ClusterSpec kalos = seren;
  kalos.nics_per_node = 5;
  Params hungry("network", {yaml_override("network.need_gbps.Pretrain=400")});
  const NetworkModel k(kalos, read_network_settings(hungry, true));
  const NetworkModel s(seren, read_network_settings(hungry, true));
  CHECK(k.slowdown(job(16, 2), 1) == Approx(1.0));
  CHECK(s.slowdown(job(16, 2), 1) == Approx(1.4));
}

TEST_CASE("A slowed job holds its GPUs longer and a suspended one keeps work at its speed", "[placement]") {
  const Workload w = read_acme_trace((source_dir() / "tests/golden/six_jobs.csv").string(), {});
  ClusterSpec spec = small_cluster(2);
  spec.nodes_per_leaf = 1;  // j2's two nodes span two leaves
  spec.oversubscription = 2;
  Params defaults("network", {});
  Simulation sim(w, spec, make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(network_feature(read_network_settings(defaults, true), spec, Time::hours(1)));
  sim.run();
  sim.check_conservation();
  const JobOutcome& j2 = sim.outcomes()[1];
  CHECK(j2.leaves_spanned == 2);
  CHECK(j2.slowdown == Approx(1.42f));
  CHECK(*j2.end - *j2.start == Time::seconds(71));  // ceil(50 x 1.42)
  CHECK(j2.gpu_seconds == 16 * 71);
}

}  // namespace acme::test
