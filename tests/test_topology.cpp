#include <catch2/catch.hpp>

#include "harness.h"
#include "sim/topology.h"

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
