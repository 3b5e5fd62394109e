// Allocation state of the cluster's nodes: free GPUs and CPU cores per node.
//
// A request of G GPUs and C cores on N nodes is spread as evenly as possible: each of its nodes
// gets G/N GPUs (the first G%N one more), and likewise for cores. A job of up to 8 GPUs thus runs
// on one node, a 64-GPU job on 8 nodes with 8 each. CPU-only jobs take cores only.
//
// Free capacity is indexed by a max-segment-tree over nodes, so finding room for a job does not
// scan every node: first-fit of a job on k nodes costs O(k log n) when free nodes are plentiful.
// allocate() and release() cost O(k log n). No GPU or core is ever handed out twice: allocate()
// checks every share against what is free and throws std::logic_error (a bug in the caller,
// never an input problem) if one does not fit.
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

// Share of `total` that the i-th of `parts` gets when spread as evenly as possible.
constexpr std::int32_t even_share(std::int32_t total, std::int32_t parts, std::int32_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

class Cluster {
 public:
  explicit Cluster(const ClusterSpec& spec);

  int node_count() const { return nodes_; }
  int total_gpus() const { return nodes_ * gpus_per_node_; }
  int free_gpus() const { return free_gpus_total_; }
  int allocated_gpus() const { return total_gpus() - free_gpus_total_; }
  int total_cpus() const { return nodes_ * cpus_per_node_; }
  int free_cpus() const { return free_cpus_total_; }
  int free_gpus_on(int node) const { return free_gpus_[static_cast<std::size_t>(node)]; }
  int free_cpus_on(int node) const { return free_cpus_[static_cast<std::size_t>(node)]; }

  RejectReason never_fits(const JobRequest& r) const;

  // The lowest-numbered nodes with room for the request now; nullopt if there are too few.
  // REQUIRES: never_fits(r) == RejectReason::None.
  std::optional<Placement> find_first_fit(const JobRequest& r) const;

  // How many nodes have at least `gpus` GPUs and `cpus` cores free, counting up to `at_most`.
  // O(at_most log n).
  int count_nodes_with_room(int gpus, int cpus, int at_most) const;

  void allocate(const Placement& p);
  void release(const Placement& p);

 private:
  void update(int node);
  void collect(std::size_t idx, int gpus, int cpus, std::size_t want, Placement& out) const;

  int nodes_;
  int gpus_per_node_;
  int cpus_per_node_;
  int free_gpus_total_;
  int free_cpus_total_;
  std::vector<std::int32_t> free_gpus_, free_cpus_;
  std::size_t leaves_;                         // power of two >= nodes_
  std::vector<std::int32_t> max_gpus_, max_cpus_;  // segment tree, root at 1
};

}  // namespace acme
