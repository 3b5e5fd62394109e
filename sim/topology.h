// The physical cluster as a graph (Boost.Graph lives only in topology.cpp), built from the
// ClusterSpec's fabric description.
//
// Vertices: each node's GPUs, its NVSwitch fabric, its InfiniBand NICs; leaf switches (a fat-tree
// leaf, or a rail switch of a rail-optimized fabric); spine switches (with pods: each pod's
// aggregation switches) and, with pods, core switches; one storage vertex linked to every switch
// of the top level. Edges carry their bandwidth in Gb/s. A leaf's uplinks share its downlink
// bandwidth divided by the oversubscription; an aggregation switch's core links likewise.
//
// Everything the run needs is read off the graph once, when it is built: each node's NIC links
// and their switches, each switch's links upward, the groups and pods (nodes joined through one
// leaf level, or one pod) as connected components. Routes, failure domains and cut-off nodes are
// then O(links of the job or switch). hop_count and bottleneck_gbps search the graph, O(V + E):
// for tools and tests, not for the per-event path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"

namespace acme {

// nvlink: GPU to its node's NVSwitch fabric; host: fabric to NIC (inside the node); nic: NIC to
// its leaf switch; leaf_uplink: leaf to spine (or aggregation switch); pod_uplink: aggregation
// switch to core; storage: top level to the storage network.
enum class LinkTier : std::uint8_t { NvLink, Host, Nic, LeafUplink, PodUplink, Storage };
inline constexpr const char* kLinkTierNames[] = {"nvlink", "host", "nic", "leaf_uplink", "pod_uplink", "storage"};

// A job's use of one link: `nodes` of its nodes' full per-node bandwidth cross it.
struct LinkShare {
  std::int32_t link = 0;
  double nodes = 0;
};

// Which links are down and what is left usable: made by Topology::healthy(), changed by
// Topology::set_down().
struct NetworkHealth {
  std::vector<std::uint8_t> down;     // [link]
  std::vector<std::uint8_t> reaches;  // [switch]: has a path of up links to the top level
};

class Topology {
 public:
  explicit Topology(const ClusterSpec& spec);
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  std::size_t vertex_count() const;
  std::size_t edge_count() const;
  int node_count() const;
  // Groups: nodes that reach each other through one leaf level (a fat-tree leaf's nodes, a rail
  // group's nodes); pods: nodes that reach each other below the core (the whole cluster in a
  // two-level fabric). Numbered from 0 in node order; both are contiguous ranges of nodes.
  int group_count() const;
  int group_of(int node) const;
  int pod_of(int node) const;
  int leaf_of(int node) const { return group_of(node); }
  // Links crossed between the NVSwitch fabrics of two nodes: 0 on the same node, 4 under one
  // leaf (fabric-NIC-leaf-NIC-fabric), 6 through a spine, 8 through a core.
  int hop_count(int node_a, int node_b) const;
  // Smallest link bandwidth along that shortest path, Gb/s (the NVLink bandwidth when a == b).
  double bottleneck_gbps(int node_a, int node_b) const;
  // Nodes of a group, in increasing order.
  std::vector<int> nodes_under(int group) const;

  // Links, numbered 0..link_count()-1, and switches, numbered 0..switch_count()-1 (leaves, then
  // spines or aggregation switches, then cores). Names: "node 3 nic 0-leaf 0", "leaf 0-spine 2";
  // "leaf 4", "spine 2", "core 0".
  int link_count() const;
  double link_gbps(int link) const;
  LinkTier link_tier(int link) const;
  std::string link_name(int link) const;
  int switch_count() const;
  std::string switch_name(int sw) const;
  std::optional<int> find_link(const std::string& name) const;
  std::optional<int> find_switch(const std::string& name) const;
  // Every link with the switch at one end.
  std::vector<int> links_of_switch(int sw) const;
  // The leaf switch that NIC `nic` of `node` is cabled to, and the NIC GPU `gpu` of a node uses
  // (GPUs spread evenly over the NICs, GPU i on NIC i when there are as many).
  int leaf_switch_of(int node, int nic) const;
  int nic_of_gpu(int gpu) const;

  // The links a job placed on `nodes` (distinct, >= 2 of them) loads, given the links that are
  // down (`health`), written to `out` (cleared first). Each node sends its full bandwidth, split evenly over
  // its usable NICs (NIC link up, switch reaching the top level). When the nodes span groups,
  // each leaf sends the job's traffic through it up its usable uplinks, evenly (ECMP); when they
  // span pods, each aggregation switch sends what it got up its usable core links. This is the
  // traffic of a collective whose peers sit under other switches; one job alone on whole leaves
  // of a uniform fat-tree gets what the per-node arithmetic of sim/network.h gives.
  // REQUIRES: no node of `nodes` is cut off (cut_off_nodes). O(links used).
  // Not safe to call from two threads at once (it reuses scratch space).
  void route(std::span<const int> nodes, const NetworkHealth& health, std::vector<LinkShare>& out) const;
  // Nodes with no usable NIC left, ascending.
  std::vector<int> cut_off_nodes(const NetworkHealth& health) const;
  NetworkHealth healthy() const;
  // Marks `links` down (or up again) and recomputes what reaches the top. O(switch links).
  void set_down(NetworkHealth& health, std::span<const int> links, bool down) const;

  // The network links a job placed on `nodes` uses, named, for reading: every NVLink of its nodes'
  // GPUs, each node's NIC links, and, when the nodes span groups, their leaves' uplinks.
  struct Link {
    std::string from, to;
    double gbps = 0;
  };
  std::vector<Link> links_of(const std::vector<int>& nodes) const;

  // Failure domains: what a fault takes down, as the nodes it makes unavailable (for
  // Cluster::take_down). A GPU (numbered node x gpus_per_node + i) or a NIC (node x
  // nics_per_node + i) takes its node down, a node itself, a leaf switch the nodes it cuts off
  // (every node of a fat-tree leaf; none in a rail-optimized fabric, whose nodes keep their other
  // rails).
  enum class Domain { Gpu, Node, Nic, Leaf };
  std::vector<int> nodes_in_domain(Domain domain, int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace acme
