// The shape of a modeled cluster, as read from configs/clusters/*.yaml (sim/io/cluster_file.h).
//
// Every field states its default. The figures of Seren and Kalos are from the AcmeTrace release
// and the NSDI '24 paper (see configs/clusters/); switch counts are assumptions stated there.
#pragma once

#include <cstdint>
#include <string>

namespace acme {

// The most GPUs a cluster may have (the topology graph holds a vertex, some 150 bytes, per GPU).
inline constexpr std::int64_t kMaxClusterGpus = 1'000'000;

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
  int nodes_per_leaf = 32;        // nodes cabled to one leaf switch; > 0
  int spines = 8;                 // spine switches, each linked to every leaf; > 0
  double oversubscription = 1.0;  // leaf downlink / uplink bandwidth, >= 1
  double storage_gbps = 400;      // per spine link to the storage network

  int total_gpus() const { return nodes * gpus_per_node; }
  int leaves() const { return (nodes + nodes_per_leaf - 1) / nodes_per_leaf; }
};

}  // namespace acme
