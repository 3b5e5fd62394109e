// Allocation state of the cluster's nodes: free GPUs and CPU cores per node.
//
// A request of G GPUs and C cores on N nodes is spread as evenly as possible: each of its nodes
// gets G/N GPUs (the first G%N one more), and likewise for cores. A job of up to 8 GPUs thus runs
// on one node, a 64-GPU job on 8 nodes with 8 each. CPU-only jobs take cores only.
//
// Placement strategies (find_placement):
//  - first_fit: the lowest-numbered nodes with room.
//  - best_fit: the nodes with the fewest free GPUs that still have room, so that small jobs pack
//    onto partly used nodes and whole nodes stay free for large jobs.
//  - topology: a multi-node job goes under as few leaf switches as possible (the leaf with the
//    least room that still holds it, else the leaves with the most room first); within a leaf,
//    and for single-node jobs, as best_fit.
// Free capacity is indexed so that placement does not visit node after node: per-count bitsets
// of the nodes with exactly g free GPUs (first and best fit scan 64 nodes a word, at worst
// O(n / 64 x gpus per node) words, usually one or two), and per-leaf counts of nodes by free
// GPUs (topology: O(leaves x gpus per node) to choose leaves, then the chosen leaves' words).
// allocate() and release() cost O(k) for k nodes. No GPU or core is ever handed out twice:
// allocate() checks every share against what is free and throws std::logic_error (a bug in the
// caller) if one does not fit.
//
// A node can be taken down (a failure domain) and brought back: while down it offers nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/job.h"

namespace acme {

struct NodeShare {
  std::int32_t node = 0;
  std::int32_t gpus = 0;
  std::int32_t cpus = 0;
  bool operator==(const NodeShare&) const = default;
};
using Placement = std::vector<NodeShare>;

// Why a job can never run on a cluster, even an empty one.
enum class RejectReason : std::uint8_t { None, GpusExceedNode, NodesExceedCluster, CpusExceedNode };
std::string_view describe(RejectReason r);

enum class PlacementStrategy : std::uint8_t { FirstFit, BestFit, Topology };
inline constexpr std::string_view kPlacementNames[] = {"first_fit", "best_fit", "topology"};

// Share of `total` that the i-th of `parts` gets when spread as evenly as possible.
constexpr std::int32_t even_share(std::int32_t total, std::int32_t parts, std::int32_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

class Cluster {
 public:
  explicit Cluster(const ClusterSpec& spec);

  int node_count() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int total_gpus() const { return nodes_ * gpus_per_node_; }
  int free_gpus() const { return free_gpus_total_; }
  int allocated_gpus() const { return total_gpus() - free_gpus_total_ - down_nodes_ * gpus_per_node_; }
  int allocated_cpus() const { return total_cpus() - free_cpus_total_ - down_nodes_ * cpus_per_node_; }
  int total_cpus() const { return nodes_ * cpus_per_node_; }
  int free_cpus() const { return free_cpus_total_; }
  int free_gpus_on(int node) const { return free_gpus_[static_cast<std::size_t>(node)]; }
  int free_cpus_on(int node) const { return free_cpus_[static_cast<std::size_t>(node)]; }
  int leaf_of(int node) const { return node / nodes_per_leaf_; }
  int leaf_count() const { return leaves_; }
  bool is_down(int node) const { return down_[static_cast<std::size_t>(node)]; }

  RejectReason never_fits(const JobRequest& r) const;

  // Nodes with room for the request now, chosen by `strategy`; nullopt if there are too few.
  // REQUIRES: never_fits(r) == RejectReason::None.
  std::optional<Placement> find_placement(const JobRequest& r, PlacementStrategy strategy) const;
  std::optional<Placement> find_first_fit(const JobRequest& r) const {
    return find_placement(r, PlacementStrategy::FirstFit);
  }

  // How many nodes have at least `gpus` GPUs and `cpus` cores free, counting up to `at_most`.
  int count_nodes_with_room(int gpus, int cpus, int at_most) const;
  // Distinct leaf switches under the placement's nodes.
  int leaves_spanned(const Placement& p) const;

  void allocate(const Placement& p);
  void release(const Placement& p);

  // REQUIRES: nothing allocated on the node (stop its jobs first). Down: it offers no room.
  void take_down(int node);
  void bring_up(int node);

 private:
  // Appends to `out` the lowest-numbered nodes with room, until `want`.
  void scan_first(int gpus, int cpus, std::size_t want, Placement& out) const;
  // Appends to `out` nodes of `candidates` order with room, until `want`; least free GPUs first.
  void collect_best(int gpus, int cpus, std::size_t want, int only_leaf, Placement& out) const;
  std::optional<Placement> topology_fit(int gpus, int cpus, int nodes) const;
  void index_add(int node);
  void index_remove(int node);

  int nodes_;
  int gpus_per_node_;
  int cpus_per_node_;
  int nodes_per_leaf_;
  int leaves_;
  int free_gpus_total_;
  int free_cpus_total_;
  int down_nodes_ = 0;
  std::vector<std::int32_t> free_gpus_, free_cpus_;
  std::vector<bool> down_;
  std::vector<std::vector<std::uint64_t>> by_free_;    // [g]: bitset of up nodes with exactly g free GPUs
  std::vector<std::int32_t> by_free_count_;            // [g]: how many
  std::vector<std::int32_t> leaf_by_free_;             // [leaf * (G + 1) + g]: count of such nodes
};

}  // namespace acme
