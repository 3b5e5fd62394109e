// The physical cluster as a graph (Boost.Graph lives only in topology.cpp).
//
// Vertices: each node's GPUs, its NVSwitch fabric, its InfiniBand NICs; leaf switches, each
// serving `nodes_per_leaf` nodes; spine switches linked to every leaf; and one storage vertex
// linked to every spine (the network that checkpoints and model loads cross). Edges carry their
// bandwidth in Gb/s. Leaf-to-spine links share the leaf's downlink bandwidth divided by the
// oversubscription ratio.
//
// Queries take node indices 0..nodes-1. Building is O(V + E); hop_count and bottleneck_gbps are
// one breadth-first search, O(V + E): for models and tools, not for the per-event hot path.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"

namespace acme {

class Topology {
 public:
  explicit Topology(const ClusterSpec& spec);
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  std::size_t vertex_count() const;
  std::size_t edge_count() const;
  int node_count() const;
  int leaf_count() const;
  int leaf_of(int node) const;
  // Links crossed between the NVSwitch fabrics of two nodes: 0 on the same node, 4 under one
  // leaf (fabric-NIC-leaf-NIC-fabric), 6 through a spine.
  int hop_count(int node_a, int node_b) const;
  // Smallest link bandwidth along that shortest path, Gb/s (the NVLink bandwidth when a == b).
  double bottleneck_gbps(int node_a, int node_b) const;
  // Nodes cabled to a leaf switch, in increasing order.
  std::vector<int> nodes_under(int leaf) const;

  // A link of the graph, named by its two ends ("node 3 nic 1", "leaf 0", "spine 2", ...).
  struct Link {
    std::string from, to;
    double gbps = 0;
  };
  // The network links a job placed on `nodes` uses: every NVLink of its nodes' GPUs, each
  // node's NIC links (fabric to NIC, NIC to leaf), and, when the nodes sit under more than one
  // leaf, those leaves' uplinks to the spines. O(links of the nodes and leaves).
  std::vector<Link> links_of(const std::vector<int>& nodes) const;

  // Failure domains: what a fault takes down, as the nodes it makes unavailable (for
  // Cluster::take_down). A GPU (numbered node x gpus_per_node + i) or a NIC (node x
  // nics_per_node + i) takes its node down, a node itself, a leaf switch every node under it.
  enum class Domain { Gpu, Node, Nic, Leaf };
  std::vector<int> nodes_in_domain(Domain domain, int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace acme
