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
//  - topology: a multi-node job goes as close together as the graph allows: under one leaf (the
//    leaf with the least room that still holds it), else, in a three-level fabric, within one pod
//    (the pod with the least room that holds it), else over the leaves with the most room first;
//    within a leaf, and for single-node jobs, as best_fit.
// Free capacity is indexed so that placement does not visit node after node: for every g, the
// set of up nodes with at least g free GPUs; for CPU cores, the sets of up nodes with at least 0,
// 1, 2, 4, ... free cores (sim/node_set.h, two-level bitsets); and per-leaf counts of nodes by
// free GPUs. First fit walks the nodes in both the GPU set of the job's per-node share and the
// core set just below its per-node cores: O(k + n / 4096) for k nodes when cores are not scarce;
// a request fails in O(1) when too few nodes are in either set. Best fit walks the nodes with
// exactly g free GPUs (set g less set g + 1) from the share up. Topology also reads the
// leaf counts: O(leaves x gpus per node) to choose leaves. allocate() and release() cost
// O(k x (gpus per node + log cores per node)) for k nodes. No GPU or core is ever handed out twice:
// allocate() checks every share against what is free and throws std::logic_error (a bug in the
// caller) if one does not fit.
//
// A node can be taken down (a failure domain) and brought back: while down it offers nothing.
//
// Reserved capacity (ClusterSpec::reserved_nodes): the last nodes take only the job types the
// spec names (a Slurm reservation); the other jobs take the nodes before them. The reserved types
// run only there (reserved_spill false: the jobs submitted to the reservation), or there first
// and else anywhere (a job that names both partitions). A job that needs more nodes than its
// part has may use every node, so that no job is made unrunnable. Every query that takes a
// request (place, fits_now, nodes_open_to) keeps to the nodes the request may use; the free
// totals count every node.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/job.h"
#include "sim/node_set.h"

namespace acme {

struct NodeShare {
  std::int32_t node = 0;
  std::int32_t gpus = 0;
  std::int32_t cpus = 0;
  bool operator==(const NodeShare&) const = default;
};
using Placement = std::vector<NodeShare>;

// The GPUs a placement holds, summed over its nodes.
inline std::int64_t gpus_of(const Placement& p) {
  std::int64_t gpus = 0;
  for (const NodeShare& share : p) gpus += share.gpus;
  return gpus;
}

// Why a job was refused when it arrived: it can never run on the cluster, even an empty one, or
// (PolicyLimit) it fits the cluster but the run's policy can never start it (Policy::refuses).
enum class RejectReason : std::uint8_t { None, GpusExceedNode, NodesExceedCluster, CpusExceedNode, PolicyLimit };
inline constexpr std::size_t kRejectReasons = 5;
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
  int allocated_gpus() const {
    return total_gpus() - free_gpus_total_ - cordoned_free_gpus_ - down_nodes_ * gpus_per_node_;
  }
  int allocated_cpus() const {
    return total_cpus() - free_cpus_total_ - cordoned_free_cpus_ - down_nodes_ * cpus_per_node_;
  }
  // GPUs on nodes that are up and not cordoned: what new jobs could ever get now.
  int gpus_in_service() const { return (nodes_ - down_nodes_ - cordoned_nodes_) * gpus_per_node_; }
  int total_cpus() const { return nodes_ * cpus_per_node_; }
  int free_cpus() const { return free_cpus_total_; }
  int down_nodes() const { return down_nodes_; }
  // How many times room was given back (release(), bring_up()). Room only shrinks between two
  // equal readings, so a policy that found no room for a job need not look again until it changes.
  std::uint64_t room_freed() const { return room_freed_; }
  int free_gpus_on(int node) const { return free_gpus_[static_cast<std::size_t>(node)]; }
  int free_cpus_on(int node) const { return free_cpus_[static_cast<std::size_t>(node)]; }
  // The node's group under one leaf level (a leaf, or a rail group) and its pod (0 without pods):
  // the distance classes of the topology graph (Topology::group_of, pod_of).
  int leaf_of(int node) const { return node / nodes_per_leaf_; }
  int pod_of(int node) const { return leaves_per_pod_ > 0 ? leaf_of(node) / leaves_per_pod_ : 0; }
  int leaf_count() const { return leaves_; }
  bool is_down(int node) const { return down_[static_cast<std::size_t>(node)]; }

  RejectReason never_fits(const JobRequest& r) const;

  // Nodes [first, last): a range of node numbers.
  struct NodeRange {
    int first = 0, last = 0;
  };
  // The nodes a request may ever be placed on: all of them, or those before the reservation.
  NodeRange nodes_open_to(const JobRequest& r) const {
    if (reserved_from_ == nodes_) return {0, nodes_};
    if (reserved_type(r))
      return reserved_spill_ || r.node_num > nodes_ - reserved_from_ ? NodeRange{0, nodes_}
                                                                      : NodeRange{reserved_from_, nodes_};
    return r.node_num > reserved_from_ ? NodeRange{0, nodes_} : NodeRange{0, reserved_from_};
  }
  // The first reserved node (node_count() without a reservation).
  int reserved_from() const { return reserved_from_; }
  // GPUs free on the nodes of `range` that are up and not cordoned. O(1) for the whole cluster and
  // for either side of the reservation; O(n) over the n nodes of another range.
  int free_gpus_in(NodeRange range) const;

  // Nodes with room for the request now, chosen by `strategy`, written to `out` (its capacity is
  // reused: no allocation once warm); false, with `out` unspecified, if there are too few.
  // REQUIRES: never_fits(r) == RejectReason::None.
  bool place(const JobRequest& r, PlacementStrategy strategy, Placement& out) const;
  std::optional<Placement> find_placement(const JobRequest& r, PlacementStrategy strategy) const {
    Placement p;
    if (!place(r, strategy, p)) return std::nullopt;
    return p;
  }
  std::optional<Placement> find_first_fit(const JobRequest& r) const {
    return find_placement(r, PlacementStrategy::FirstFit);
  }

  // How many nodes of `range` have at least `gpus` GPUs and `cpus` cores free, counting up to
  // `at_most`. O(n / 64) over every node; O(at_most + n / 4096) within a smaller range.
  int count_nodes_with_room(int gpus, int cpus, int at_most, NodeRange range) const;
  int count_nodes_with_room(int gpus, int cpus, int at_most) const {
    return count_nodes_with_room(gpus, cpus, at_most, {0, nodes_});
  }
  // Whether place() would succeed now, whatever the strategy, without choosing nodes: a policy
  // may test this before work that only matters for a job that can start.
  // REQUIRES: never_fits(r) == RejectReason::None.
  bool fits_now(const JobRequest& r) const { return fits_now(r.gpu_num, r.cpu_num, r.node_num, nodes_open_to(r)); }
  // The same for a request of `gpus` GPUs and `cpus` cores over `nodes` nodes of `range` (the
  // nodes open to it): what a policy that groups requests by shape (policies/shape.h) asks.
  bool fits_now(int gpus, int cpus, int nodes, NodeRange range) const {
    return gpus <= free_gpus_total_ && cpus <= free_cpus_total_ &&
           count_nodes_with_room(even_share(gpus, nodes, 0), even_share(cpus, nodes, 0), nodes, range) >= nodes;
  }
  // Distinct leaf switches under the placement's nodes. O(k) for k nodes.
  int leaves_spanned(const Placement& p) const;

  void allocate(const Placement& p);
  void release(const Placement& p);

  // REQUIRES: nothing allocated on the node (stop its jobs first). Down: it offers no room.
  void take_down(int node);
  void bring_up(int node);
  // Cordoned (a node being drained): its jobs run on and give back what they hold, but it offers
  // no room and its free GPUs and cores are not counted free. Cordoning a down node does nothing.
  void cordon(int node);
  void uncordon(int node);
  bool is_cordoned(int node) const { return cordoned_[static_cast<std::size_t>(node)]; }
  bool is_empty(int node) const {
    return free_gpus_[static_cast<std::size_t>(node)] == gpus_per_node_ &&
           free_cpus_[static_cast<std::size_t>(node)] == cpus_per_node_;
  }

 private:
  bool reserved_type(const JobRequest& r) const { return (reserved_types_ >> static_cast<unsigned>(r.type)) & 1u; }
  // Places the request on nodes of `range` only (place() without the reservation's rules).
  bool place_within(const JobRequest& r, PlacementStrategy strategy, NodeRange range, Placement& out) const;
  // Appends to `out` the lowest-numbered nodes of `range` with room, until `want`.
  void scan_first(int gpus, int cpus, std::size_t want, NodeRange range, Placement& out) const;
  // Appends to `out` nodes of `range` with room, until `want`; least free GPUs first.
  void collect_best(int gpus, int cpus, std::size_t want, NodeRange range, Placement& out) const;
  bool topology_fit(int gpus, int cpus, int nodes, NodeRange range, Placement& out) const;
  void index_add(int node);
  void index_remove(int node);
  // Adds `gpus` and `cpus` (negative: takes) to an up node's free counts, and to the indexes.
  void change_free(int node, int gpus, int cpus);
  // Adds `gpus` and `cpus` (negative: takes) to the cluster's free totals, counting them for the
  // node's side of the reservation: the node's own counts and the indexes are the caller's.
  void count_free(int node, int gpus, int cpus) {
    free_gpus_total_ += gpus;
    free_cpus_total_ += cpus;
    if (node >= reserved_from_) free_gpus_reserved_ += gpus;
  }

  int nodes_;
  int gpus_per_node_;
  int cpus_per_node_;
  int nodes_per_leaf_;
  int leaves_;
  int leaves_per_pod_;  // 0: no pods
  int reserved_from_;   // nodes [reserved_from_, nodes_) are reserved
  std::uint32_t reserved_types_;  // bit 1 << type: the job types that may use them (all without a reservation)
  bool reserved_spill_;           // the reserved types may use the other nodes too
  int free_gpus_total_;
  int free_gpus_reserved_;  // of free_gpus_total_, on the reserved nodes
  int free_cpus_total_;
  int down_nodes_ = 0;
  int cordoned_nodes_ = 0;
  int cordoned_free_gpus_ = 0, cordoned_free_cpus_ = 0;  // free on cordoned nodes
  std::uint64_t room_freed_ = 0;
  std::vector<std::int32_t> free_gpus_, free_cpus_;
  std::vector<bool> down_;
  std::vector<bool> cordoned_;
  NodeSetArray at_least_;                    // set g: up nodes with at least g free GPUs (set G + 1: none)
  std::vector<std::int32_t> leaf_by_free_;   // [leaf * (G + 1) + g]: up nodes of the leaf with exactly g
  std::vector<std::int32_t> leaf_row_;       // [node]: where its leaf's counts start in leaf_by_free_
  std::vector<int> core_levels_;             // 0, 1, 2, 4, ... and cores per node: ascending
  NodeSetArray cores_at_least_{0, 0};        // set i: up nodes with at least core_levels_[i] free cores
  std::vector<int> levels_upto_;             // [c]: how many levels are <= c cores
  mutable std::vector<std::uint8_t> leaf_seen_;  // all zero between calls of leaves_spanned
  // The tightest core set that holds every node with `cpus` free cores.
  BitsView with_cores(int cpus) const;
};

}  // namespace acme
