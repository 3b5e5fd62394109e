#include <catch2/catch.hpp>

#include "harness.h"
#include "sim/topology.h"
#include "io/cluster_file.h"

namespace acme::test {

TEST_CASE("The topology graph has GPUs, fabrics, NICs, leaves, spines and storage", "[topology]") {
  ClusterSpec s = small_cluster(5);
  s.nics_per_node = 2;
  const Topology t(s);
  // 3 leaves + 2 spines + storage + 5 x (fabric + 8 GPUs + 2 NICs)
  CHECK(t.vertex_count() == 3 + 2 + 1 + 5 * 11);
  // per node 8 GPU links + 2 x (fabric-NIC + NIC-leaf); 3 x 2 leaf-spine; 2 spine-storage
  CHECK(t.edge_count() == 5 * 12 + 6 + 2);
  CHECK(t.leaf_of(0) == 0);
  CHECK(t.leaf_of(3) == 1);
  CHECK(t.hop_count(0, 0) == 0);
  CHECK(t.hop_count(0, 1) == 4);
  CHECK(t.hop_count(0, 4) == 6);
  CHECK(t.bottleneck_gbps(0, 1) == s.nic_gbps);
}

TEST_CASE("A placement's links and the failure domains come from the graph", "[topology]") {
  ClusterSpec s = small_cluster(5);  // leaves of 2 nodes: {0, 1}, {2, 3}, {4}
  s.gpus_per_node = 2;
  const Topology t(s);
  CHECK(t.nodes_under(1) == std::vector<int>{2, 3});
  CHECK(t.nodes_under(2) == std::vector<int>{4});
  // Node 0 alone: its 2 NVLinks and its NIC's two links; no uplink.
  const auto one = t.links_of({0});
  REQUIRE(one.size() == 4);
  CHECK(one[3].from == "node 0 nic 0");
  CHECK(one[3].to == "leaf 0");
  CHECK(one[3].gbps == 200);
  // Nodes 1 and 2 under two leaves: 2 x 4 node links, plus each leaf's 2 spine uplinks.
  const auto two = t.links_of({1, 2});
  CHECK(two.size() == 8 + 4);
  CHECK(two.back().to.rfind("spine", 0) == 0);
  CHECK(t.nodes_in_domain(Topology::Domain::Gpu, 5) == std::vector<int>{2});
  CHECK(t.nodes_in_domain(Topology::Domain::Nic, 3) == std::vector<int>{3});
  CHECK(t.nodes_in_domain(Topology::Domain::Leaf, 0) == std::vector<int>{0, 1});
  CHECK(t.nodes_in_domain(Topology::Domain::Node, 4) == std::vector<int>{4});
}

TEST_CASE("The Seren and Kalos cluster files load with the published shapes", "[topology]") {
  const ClusterSpec seren = load_cluster_spec((source_dir() / "configs/clusters/seren.yaml").string());
  const ClusterSpec kalos = load_cluster_spec((source_dir() / "configs/clusters/kalos.yaml").string());
  CHECK(seren.total_gpus() == 2288);
  CHECK(kalos.total_gpus() == 2416);
  CHECK(seren.nics_per_node * seren.nic_gbps == 200);
  CHECK(kalos.nics_per_node * kalos.nic_gbps == 1000);
  CHECK(Topology(kalos).node_count() == 302);
}

}  // namespace acme::test
