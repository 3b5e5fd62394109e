// Routes over the topology graph and jobs sharing links (network.contention), on hand-drawn
// clusters whose numbers are worked out in each test's comment.
#include <catch2/catch.hpp>

#include "harness.h"
#include "features/network.h"
#include "sim/link_sharing.h"
#include "sim/network.h"
#include "sim/topology.h"

namespace acme::test {
namespace {

JobRequest pretrain(std::int32_t gpus, std::int32_t nodes) {
  JobRequest r;
  r.gpu_num = gpus;
  r.node_num = nodes;
  r.cpu_num = 8 * gpus;
  r.type = JobType::Pretrain;
  return r;
}

NetworkSettings network_settings(std::vector<std::string> sets = {}) {
  std::vector<YamlValue> values;
  for (const std::string& s : sets) values.push_back(yaml_override(s));
  Params p("network", values);
  return read_network_settings(p, true);
}

// The starvation of one job alone on `nodes`, needing 200 Gb/s per node.
double alone(const Topology& t, const std::vector<int>& nodes, const NetworkHealth& health) {
  std::vector<LinkShare> route;
  t.route(nodes, health, route);
  LinkSharing sharing(t, Time::hours(1));
  std::vector<JobId> changed;
  sharing.add(0, route, 200, changed);
  return sharing.starvation(0);
}

Workload pretrain_trace(const std::vector<std::tuple<int, int, int, int>>& jobs) { return trace_of(jobs, "Pretrain"); }

// Runs `w` under fifo with the network model `net` (first fit) and returns the outcomes.
std::vector<JobOutcome> run(const Workload& w, const ClusterSpec& spec, const NetworkSettings& net) {
  Simulation sim(w, spec, make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(network_feature(net, spec, Time::hours(1)));
  sim.run();
  sim.check_conservation();
  return sim.outcomes();
}


}  // namespace

TEST_CASE("One job alone on whole leaves of a fat-tree gets the per-node arithmetic's slowdown from the graph",
          "[contention]") {
  // Leaves of 2 nodes, 2 spines, oversubscription 2: each leaf-spine link carries
  // 2 x 200 / 2 / 2 = 100 Gb/s. The job's 2 nodes per leaf send 2 x 200 / 2 = 200 Gb/s over each:
  // starvation 2, as the arithmetic's 200 / (200 / 2).
  ClusterSpec spec = small_cluster(4);
  spec.oversubscription = 2;
  const Topology t(spec);
  const NetworkModel m(spec, network_settings());
  const double s = alone(t, {0, 1, 2, 3}, t.healthy());
  CHECK(s == Approx(2.0));
  CHECK(m.slowdown_starved(pretrain(32, 4), s, 2) == Approx(m.slowdown(pretrain(32, 4), 2)));
  CHECK(alone(t, {0, 1}, t.healthy()) == Approx(1.0));  // one leaf: the NICs alone
}

TEST_CASE("Where the graph and the per-node arithmetic disagree, a run takes the graph's answer", "[contention]") {
  // Leaves of 4 nodes, 1 spine, oversubscription 2: the uplink carries 4 x 200 / 2 = 400 Gb/s.
  // j1 and j2 fill nodes 0 and 1; j3 lands on nodes 2-5, two under each leaf, which send
  // 2 x 200 = 400 Gb/s up: starvation 1, slowdown 1 + 0.4 x 0.05 (one extra leaf) = 1.02, so
  // j3 runs ceil(1000 x 1.02) = 1020 s. The arithmetic assumes full leaves: 200 / 2 Gb/s,
  // slowdown 1.42, 1420 s.
  ClusterSpec spec = small_cluster(8);
  spec.nodes_per_leaf = 4;
  spec.spines = 1;
  spec.oversubscription = 2;
  const Workload w = pretrain_trace({{1, 8, 0, 5000}, {1, 8, 0, 5000}, {4, 32, 0, 1000}});
  const auto graph = run(w, spec, network_settings({"network.contention=true"}));
  CHECK(at(graph[2].end) - at(graph[2].start) == 1020);
  CHECK(graph[2].slowdown == Approx(1.02f));
  const auto arithmetic = run(w, spec, network_settings());
  CHECK(at(arithmetic[2].end) - at(arithmetic[2].start) == 1420);
}

TEST_CASE("Two jobs sharing links slow each other by the proportional rule and speed up when one ends",
          "[contention]") {
  // Two nodes, each under its own leaf (200 Gb/s NIC, uplink 1 x 200 / 1 / 1 = 200 Gb/s). j1 and
  // j2 both take 4 GPUs on each node, so they share both NICs and both uplinks.
  //  - j1 alone from 0: starvation 1, slowdown 1 + 0.4 x 0.05 = 1.02, end ceil(1000 x 1.02) = 1020.
  //  - j2 starts at 100: every link asked 400 of 200, starvation 2, slowdown 1 + 0.4 + 0.02 = 1.42.
  //    j1 had done 100 / 1.02 = 98.04 s of work: end 100 + ceil(901.96 x 1.42) = 100 + 1281 = 1381.
  //    j2: end 100 + ceil(1000 x 1.42) = 1520.
  //  - j1 ends at 1381: j2 had done 1281 / 1.42 = 902.11 s, alone again at 1.02:
  //    end 1381 + ceil(97.89 x 1.02) = 1381 + 100 = 1481.
  ClusterSpec spec = small_cluster(2);
  spec.nodes_per_leaf = 1;
  spec.spines = 1;
  const Workload w = pretrain_trace({{2, 8, 0, 1000}, {2, 8, 100, 1000}});
  const auto o = run(w, spec, network_settings({"network.contention=true"}));
  CHECK(at(o[0].end) == 1381);
  CHECK(at(o[1].start) == 100);
  CHECK(at(o[1].end) == 1481);
  CHECK(o[0].slowdown == Approx(1.381).epsilon(0.001));  // its mean over the run: 1381 s for ~1000 s of work
  // Contention off: each alone by the arithmetic (two leaves, no oversubscription): 1.02.
  const auto off = run(w, spec, network_settings());
  CHECK(at(off[0].end) == 1020);
  CHECK(at(off[1].end) == 100 + 1020);
}

TEST_CASE("Contention on links that are never short of bandwidth leaves every job as the arithmetic has it",
          "[contention]") {
  // need_gbps 0: no link is ever asked for anything, so every starvation is 1 both ways and only
  // the leaf penalty slows jobs: the rate changes (none) must leave the schedule as it is.
  const Workload w = read_acme_trace((source_dir() / "tests/golden/six_jobs.csv").string(), {});
  ClusterSpec spec = small_cluster(2);
  spec.nodes_per_leaf = 1;
  std::vector<std::string> sets;
  for (const char* type : {"Pretrain", "MLLM", "SFT", "Debug", "Other", "Eval", "CPU"})
    sets.push_back(std::string("network.need_gbps.") + type + "=0");
  const auto off = run(w, spec, network_settings(sets));
  sets.push_back("network.contention=true");
  const auto on = run(w, spec, network_settings(sets));
  REQUIRE(on.size() == off.size());
  for (std::size_t i = 0; i < on.size(); ++i) {
    CHECK(on[i].start == off[i].start);
    CHECK(on[i].end == off[i].end);
    CHECK(on[i].gpu_seconds == off[i].gpu_seconds);
    CHECK(on[i].slowdown == off[i].slowdown);
  }
}

TEST_CASE("A spine down moves routes to the other spine, and a leaf down stops the jobs it cuts off",
          "[contention]") {
  // Leaves of 2 nodes, 2 spines, no oversubscription: each uplink carries 2 x 200 / 2 = 200 Gb/s.
  // A job on nodes 0-3 sends 200 Gb/s over each uplink: starvation 1, slowdown 1.02.
  //  - spine 1 down from 100 to 300: each leaf's 400 Gb/s goes over one uplink of 200: starvation
  //    2, slowdown 1.42. Work at 100: 100 / 1.02 = 98.04 s; at 300: + 200 / 1.42 = 238.88 s;
  //    end 300 + ceil(761.12 x 1.02) = 300 + 777 = 1077.
  //  - leaf 0 down from 100 to 300 instead: nodes 0 and 1 have no path left, the job stops (its
  //    100 s are lost, no checkpoints), waits for them, and runs again from 300: end 300 + 1020.
  ClusterSpec spec = small_cluster(4);
  const Topology t(spec);
  NetworkHealth health = t.healthy();
  t.set_down(health, t.links_of_switch(*t.find_switch("spine 1")), true);
  CHECK(alone(t, {0, 1, 2, 3}, health) == Approx(2.0));
  CHECK(t.cut_off_nodes(health).empty());

  const Workload w = pretrain_trace({{4, 32, 0, 1000}});
  const auto spine = run(w, spec, network_settings({"network.contention=true", "network.faults=spine 1 from 100s for 200s"}));
  CHECK(at(spine[0].end) == 1077);
  CHECK(error_of([&] { run(w, spec, network_settings({"network.contention=true", "network.faults=spine 9 from 1h for 1h"})); })
            .rfind("network.faults: the topology has no switch or link named 'spine 9'", 0) == 0);
  const auto leaf = run(w, spec, network_settings({"network.contention=true", "network.faults=leaf 0 from 100s for 200s"}));
  CHECK(leaf[0].failures == 1);
  CHECK(at(leaf[0].end) == 300 + 1020);
  CHECK(leaf[0].state == JobState::Completed);
}

TEST_CASE("A rail-optimized cluster places and slows as derived from its rails", "[contention]") {
  // 4 nodes in rail groups of 2, 2 NICs of 100 Gb/s per node: group 0 (nodes 0, 1) has rail
  // switches leaf 0 (NIC 0s) and leaf 1 (NIC 1s), group 1 leaves 2 and 3; one spine. A rail
  // switch's uplink carries 2 nodes x 1 NIC x 100 / oversubscription.
  ClusterSpec spec = small_cluster(4);
  spec.fabric = Fabric::RailOptimized;
  spec.nics_per_node = 2;
  spec.nic_gbps = 100;
  spec.spines = 1;
  spec.oversubscription = 2;  // uplinks of 100 Gb/s
  const Topology t(spec);
  CHECK(t.leaf_switch_of(0, 0) == 0);
  CHECK(t.leaf_switch_of(0, 1) == 1);
  CHECK(t.leaf_switch_of(3, 1) == 3);
  CHECK(t.hop_count(0, 1) == 4);  // fabric-NIC-rail-NIC-fabric
  CHECK(t.hop_count(0, 2) == 6);  // through the spine
  // Within a group each node sends 100 Gb/s per NIC: starvation 1. Across the groups each rail
  // switch sends its 2 nodes' 100 Gb/s up one 100 Gb/s uplink: starvation 2.
  CHECK(alone(t, {0, 1}, t.healthy()) == Approx(1.0));
  CHECK(alone(t, {0, 1, 2, 3}, t.healthy()) == Approx(2.0));
  // A rail switch down cuts no node off (each keeps its other rail), but node 0 and 1's traffic
  // then crosses one 100 Gb/s NIC: starvation 2.
  CHECK(t.nodes_in_domain(Topology::Domain::Leaf, 0).empty());
  NetworkHealth health = t.healthy();
  t.set_down(health, t.links_of_switch(0), true);
  CHECK(alone(t, {0, 1}, health) == Approx(2.0));
  // Topology placement keeps a 2-node job in one rail group: nodes 2 and 3 when node 0 is busy.
  Cluster c(spec);
  c.allocate(Placement{{0, 8, 64}});
  CHECK(*c.find_placement(pretrain(16, 2), PlacementStrategy::Topology) == Placement{{2, 8, 64}, {3, 8, 64}});
}

TEST_CASE("A three-level fat-tree has pods from its graph, and placement keeps a job in one pod", "[contention]") {
  // 8 nodes, leaves of 2, pods of 2 leaves (nodes 0-3 and 4-7), 2 aggregation switches per pod,
  // 2 cores. Leaf-aggregation links: 2 x 200 / 2 = 200 Gb/s; aggregation-core: 2 x 200 / 2 = 200.
  ClusterSpec spec = small_cluster(8);
  spec.leaves_per_pod = 2;
  spec.cores = 2;
  const Topology t(spec);
  const Cluster cluster(spec);
  for (int n = 0; n < 8; ++n) {
    CHECK(t.group_of(n) == cluster.leaf_of(n));
    CHECK(t.pod_of(n) == cluster.pod_of(n));
  }
  CHECK(t.hop_count(0, 1) == 4);
  CHECK(t.hop_count(0, 2) == 6);
  CHECK(t.hop_count(0, 4) == 8);
  std::vector<LinkShare> route;
  t.route(std::vector<int>{0, 4}, t.healthy(), route);
  CHECK(std::count_if(route.begin(), route.end(), [&](const LinkShare& s) { return t.link_tier(s.link) == LinkTier::PodUplink; }) == 8);
  // Nodes 1, 3 and 7 busy: no leaf holds a 3-node job. The roomiest leaves (leaf 2: nodes 4, 5,
  // then leaf 0) would span both pods; pod 1 holds it: nodes 4, 5, 6.
  Cluster c(spec);
  for (int busy : {1, 3, 7}) c.allocate(Placement{{busy, 8, 64}});
  CHECK(*c.find_placement(pretrain(24, 3), PlacementStrategy::Topology) ==
        Placement{{4, 8, 64}, {5, 8, 64}, {6, 8, 64}});
}

}  // namespace acme::test
