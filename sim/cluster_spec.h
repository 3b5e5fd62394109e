// The shape of a modeled cluster, as read from configs/clusters/*.yaml (io/cluster_file.h).
//
// Every field states its default. The figures of Seren and Kalos are from the AcmeTrace release
// and the NSDI '24 paper (see configs/clusters/); switch counts are assumptions stated there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace acme {

// The most GPUs a cluster may have (the topology graph holds a vertex, some 150 bytes, per GPU).
inline constexpr std::int64_t kMaxClusterGpus = 1'000'000;

// How nodes reach each other over InfiniBand. A fat-tree cables all of a node's NICs to its leaf
// switch; a rail-optimized fabric cables NIC i of every node of a group to the group's rail switch
// i. Either is two levels (leaves under spines) or three (pods of leaves under aggregation
// switches, pods under core switches).
enum class Fabric : std::uint8_t { FatTree, RailOptimized };
inline constexpr std::string_view kFabricNames[] = {"fat_tree", "rail_optimized"};

struct ClusterSpec {
  std::string name = "cluster";
  int nodes = 1;                  // GPU nodes; > 0
  int gpus_per_node = 8;          // GPUs per node, 1..64; nodes x gpus_per_node <= kMaxClusterGpus
  std::string gpu_model = "A100-80GB";
  int gpu_memory_gb = 80;
  double nvlink_gbps = 4800;      // per GPU to the node's NVSwitch fabric (A100: 600 GB/s)
  int cpus_per_node = 128;        // CPU cores per node; > 0; nodes x cpus_per_node < 2^31
  int host_memory_gb = 1024;
  int nics_per_node = 1;          // InfiniBand NICs per node; > 0
  double nic_gbps = 200;          // per NIC
  Fabric fabric = Fabric::FatTree;
  int nodes_per_leaf = 32;        // nodes under one leaf switch (rail-optimized: per rail group); > 0
  // Spine switches, each linked to every leaf; with pods, the aggregation switches of each pod,
  // each linked to every leaf of its pod. > 0
  int spines = 8;
  double oversubscription = 1.0;  // leaf downlink / uplink bandwidth, >= 1
  int leaves_per_pod = 0;         // 0: two levels; > 0: three, pods of this many leaves (or rail groups)
  int cores = 8;                  // with pods: core switches, each linked to every aggregation switch; > 0
  double pod_oversubscription = 1.0;  // with pods: aggregation downlink / core uplink bandwidth, >= 1
  double storage_gbps = 400;      // per link from a top-level switch (spine, or core) to the storage network
  // Capacity reserved for some job types (a Slurm reservation; run keys capacity.reserved_*): the
  // last reserved_nodes nodes take only jobs whose JobType bit is set in reserved_types (bit
  // 1 << type); with reserved_spill those jobs may use the other nodes too (sim/cluster.h).
  // 0: no reservation.
  int reserved_nodes = 0;
  std::uint32_t reserved_types = 0;
  bool reserved_spill = false;

  int total_gpus() const { return nodes * gpus_per_node; }
  // Groups of nodes under one leaf (rail-optimized: one rail group), and pods of groups.
  int leaves() const { return (nodes + nodes_per_leaf - 1) / nodes_per_leaf; }
  int top_switches() const { return leaves_per_pod > 0 ? cores : spines; }
  int pods() const { return leaves_per_pod > 0 ? (leaves() + leaves_per_pod - 1) / leaves_per_pod : 1; }
};

}  // namespace acme
