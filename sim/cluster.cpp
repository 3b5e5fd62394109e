#include "sim/cluster.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

namespace acme {

std::string_view describe(RejectReason r) {
  switch (r) {
    case RejectReason::None: return "";
    case RejectReason::GpusExceedNode: return "needs more GPUs per node than a node has";
    case RejectReason::NodesExceedCluster: return "needs more nodes than the cluster has";
    case RejectReason::CpusExceedNode: return "needs more CPU cores per node than a node has";
    case RejectReason::PolicyLimit: return "needs more GPUs than the scheduling policy can ever give it";
  }
  return "";
}

Cluster::Cluster(const ClusterSpec& spec)
    : nodes_(spec.nodes),
      gpus_per_node_(spec.gpus_per_node),
      cpus_per_node_(spec.cpus_per_node),
      nodes_per_leaf_(spec.nodes_per_leaf),
      leaves_(spec.leaves()),
      leaves_per_pod_(spec.leaves_per_pod),
      reserved_from_(spec.nodes - std::clamp(spec.reserved_nodes, 0, spec.nodes)),
      reserved_types_(spec.reserved_nodes > 0 ? spec.reserved_types : ~0u),
      reserved_spill_(spec.reserved_spill),
      free_gpus_total_(spec.nodes * spec.gpus_per_node),
      free_gpus_reserved_((spec.nodes - reserved_from_) * spec.gpus_per_node),
      free_cpus_total_(spec.nodes * spec.cpus_per_node),
      free_gpus_(static_cast<std::size_t>(spec.nodes), spec.gpus_per_node),
      free_cpus_(static_cast<std::size_t>(spec.nodes), spec.cpus_per_node),
      down_(static_cast<std::size_t>(spec.nodes), false),
      cordoned_(static_cast<std::size_t>(spec.nodes), false),
      at_least_(spec.nodes, spec.gpus_per_node + 2),
      leaf_by_free_(static_cast<std::size_t>(leaves_) * (static_cast<std::size_t>(spec.gpus_per_node) + 1), 0) {
  core_levels_.push_back(0);
  for (int c = 1; c < cpus_per_node_; c *= 2) core_levels_.push_back(c);
  if (cpus_per_node_ > 0) core_levels_.push_back(cpus_per_node_);
  cores_at_least_ = NodeSetArray(nodes_, static_cast<int>(core_levels_.size()));
  leaf_row_.resize(static_cast<std::size_t>(nodes_));
  for (int n = 0; n < nodes_; ++n) leaf_row_[static_cast<std::size_t>(n)] = leaf_of(n) * (gpus_per_node_ + 1);
  leaf_seen_.assign(static_cast<std::size_t>(leaves_), 0);
  levels_upto_.resize(static_cast<std::size_t>(std::max(cpus_per_node_, 0)) + 1);
  for (int c = 0; c <= cpus_per_node_; ++c)
    levels_upto_[static_cast<std::size_t>(c)] =
        static_cast<int>(std::upper_bound(core_levels_.begin(), core_levels_.end(), c) - core_levels_.begin());
  for (int n = 0; n < nodes_; ++n) index_add(n);
}

RejectReason Cluster::never_fits(const JobRequest& r) const {
  if (r.node_num > nodes_) return RejectReason::NodesExceedCluster;
  if (even_share(r.gpu_num, r.node_num, 0) > gpus_per_node_) return RejectReason::GpusExceedNode;
  if (even_share(r.cpu_num, r.node_num, 0) > cpus_per_node_) return RejectReason::CpusExceedNode;
  return RejectReason::None;
}

void Cluster::index_add(int node) {
  const int g = free_gpus_[static_cast<std::size_t>(node)];
  at_least_.add(node, 0, g + 1);
  cores_at_least_.add(node, 0, levels_upto_[static_cast<std::size_t>(free_cpus_[static_cast<std::size_t>(node)])]);
  ++leaf_by_free_[static_cast<std::size_t>(leaf_row_[static_cast<std::size_t>(node)] + g)];
}

void Cluster::index_remove(int node) {
  const int g = free_gpus_[static_cast<std::size_t>(node)];
  at_least_.remove(node, 0, g + 1);
  cores_at_least_.remove(node, 0, levels_upto_[static_cast<std::size_t>(free_cpus_[static_cast<std::size_t>(node)])]);
  --leaf_by_free_[static_cast<std::size_t>(leaf_row_[static_cast<std::size_t>(node)] + g)];
}

void Cluster::change_free(int node, int gpus, int cpus) {
  const auto n = static_cast<std::size_t>(node);
  if (cordoned_[n]) {  // out of the indexes and the free totals
    free_gpus_[n] += gpus;
    free_cpus_[n] += cpus;
    cordoned_free_gpus_ += gpus;
    cordoned_free_cpus_ += cpus;
    return;
  }
  const int g0 = free_gpus_[n], g1 = g0 + gpus;
  const int c0 = free_cpus_[n], c1 = c0 + cpus;
  free_gpus_[n] = g1;
  free_cpus_[n] = c1;
  count_free(node, gpus, cpus);
  // Only the sets between the old and the new counts change.
  if (g0 != g1) {
    if (g1 > g0) at_least_.add(node, g0 + 1, g1 + 1);
    else at_least_.remove(node, g1 + 1, g0 + 1);
    const auto leaf = static_cast<std::size_t>(leaf_row_[n]);
    --leaf_by_free_[leaf + static_cast<std::size_t>(g0)];
    ++leaf_by_free_[leaf + static_cast<std::size_t>(g1)];
  }
  // The core sets of the levels in (min, max] of the old and new counts.
  const int from = levels_upto_[static_cast<std::size_t>(std::min(c0, c1))];
  const int to = levels_upto_[static_cast<std::size_t>(std::max(c0, c1))];
  if (c1 > c0) cores_at_least_.add(node, from, to);
  else cores_at_least_.remove(node, from, to);
}

BitsView Cluster::with_cores(int cpus) const {
  const int c = std::clamp(cpus, 0, cpus_per_node_);
  return cores_at_least_.view(levels_upto_[static_cast<std::size_t>(c)] - 1);
}

void Cluster::scan_first(int gpus, int cpus, std::size_t want, NodeRange range, Placement& out) const {
  const BitsView room = at_least_.view(gpus);
  const BitsView cores = with_cores(cpus);
  for (int node = find_next_common(room, cores, range.first); node != kNoNode && node < range.last && out.size() < want;
       node = find_next_common(room, cores, node + 1))
    if (free_cpus_[static_cast<std::size_t>(node)] >= cpus) out.push_back({node, 0, 0});
}

void Cluster::collect_best(int gpus, int cpus, std::size_t want, NodeRange range, Placement& out) const {
  const int first = range.first, last = range.last;
  // Within one leaf, its counts tell which g have nodes; over every node, the sets' sizes do.
  const int leaf = leaf_of(first);
  const bool one_leaf = last - first <= nodes_per_leaf_ && first == leaf * nodes_per_leaf_;
  const bool whole = first == 0 && last == nodes_;
  const auto width = static_cast<std::size_t>(gpus_per_node_) + 1;
  for (std::size_t g = static_cast<std::size_t>(gpus); g < width && out.size() < want; ++g) {
    const auto k = static_cast<int>(g);  // the nodes with exactly g free GPUs: in set g, not in set g + 1
    const bool none = one_leaf ? leaf_by_free_[static_cast<std::size_t>(leaf) * width + g] == 0
                               : whole && at_least_.size(k) == at_least_.size(k + 1);
    if (none) continue;
    const BitsView nodes = at_least_.view(k), more = at_least_.view(k + 1);
    const BitsView cores = with_cores(cpus);
    for (int node = find_next_common_except(nodes, cores, more, first); node != kNoNode && node < last && out.size() < want;
         node = find_next_common_except(nodes, cores, more, node + 1))
      if (free_cpus_[static_cast<std::size_t>(node)] >= cpus) out.push_back({node, 0, 0});
  }
}

bool Cluster::topology_fit(int gpus, int cpus, int nodes, NodeRange range, Placement& p) const {
  // Nodes with room per leaf, by GPUs alone (cores are checked when nodes are picked; a leaf the
  // range cuts counts nodes outside it too, which collect_best then skips).
  std::vector<std::pair<int, int>> room;  // (nodes with room, leaf)
  const auto width = static_cast<std::size_t>(gpus_per_node_) + 1;
  const auto in_leaf = [&](int l) {
    return NodeRange{std::max(range.first, l * nodes_per_leaf_), std::min(range.last, (l + 1) * nodes_per_leaf_)};
  };
  for (int l = leaf_of(range.first); l < leaves_ && l * nodes_per_leaf_ < range.last; ++l) {
    int n = 0;
    for (std::size_t g = static_cast<std::size_t>(gpus); g < width; ++g)
      n += leaf_by_free_[static_cast<std::size_t>(l) * width + g];
    if (n > 0) room.emplace_back(n, l);
  }
  // The tightest single leaf that holds the job...
  const auto one = std::min_element(room.begin(), room.end(), [&](auto a, auto b) {
    const bool fa = a.first >= nodes, fb = b.first >= nodes;
    return fa != fb ? fa : (fa ? a < b : false);
  });
  if (one != room.end() && one->first >= nodes) {
    collect_best(gpus, cpus, static_cast<std::size_t>(nodes), in_leaf(one->second), p);
    if (p.size() == static_cast<std::size_t>(nodes)) return true;
    p.clear();
  }
  // ...else the roomiest leaves first, within the tightest pod that holds the job if there are pods.
  std::sort(room.begin(), room.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (leaves_per_pod_ > 0) {
    std::vector<int> pod_room(static_cast<std::size_t>((leaves_ + leaves_per_pod_ - 1) / leaves_per_pod_), 0);
    for (const auto& [n, leaf] : room) pod_room[static_cast<std::size_t>(leaf / leaves_per_pod_)] += n;
    int best = -1;
    for (int pod = 0; pod < static_cast<int>(pod_room.size()); ++pod)
      if (pod_room[static_cast<std::size_t>(pod)] >= nodes &&
          (best < 0 || pod_room[static_cast<std::size_t>(pod)] < pod_room[static_cast<std::size_t>(best)]))
        best = pod;
    for (const auto& [n, leaf] : room) {
      if (best < 0 || p.size() == static_cast<std::size_t>(nodes)) break;
      if (leaf / leaves_per_pod_ == best) collect_best(gpus, cpus, static_cast<std::size_t>(nodes), in_leaf(leaf), p);
    }
    if (p.size() == static_cast<std::size_t>(nodes)) return true;
    p.clear();
  }
  for (const auto& [n, leaf] : room) {
    if (p.size() == static_cast<std::size_t>(nodes)) break;
    collect_best(gpus, cpus, static_cast<std::size_t>(nodes), in_leaf(leaf), p);
  }
  return p.size() == static_cast<std::size_t>(nodes);
}

bool Cluster::place(const JobRequest& r, PlacementStrategy strategy, Placement& out) const {
  const NodeRange open = nodes_open_to(r);
  // A reserved type that may spill over: its own nodes first.
  if (reserved_from_ < nodes_ && reserved_type(r) && open.first == 0 && open.last == nodes_ &&
      place_within(r, strategy, {reserved_from_, nodes_}, out))
    return true;
  return place_within(r, strategy, open, out);
}

bool Cluster::place_within(const JobRequest& r, PlacementStrategy strategy, NodeRange range, Placement& out) const {
  const int gpus = even_share(r.gpu_num, r.node_num, 0);
  const int cpus = even_share(r.cpu_num, r.node_num, 0);
  if (r.gpu_num > free_gpus_total_ || r.cpu_num > free_cpus_total_) return false;
  if (at_least_.size(gpus) < r.node_num || with_cores(cpus).size < r.node_num)
    return false;  // too few nodes with room
  const auto want = static_cast<std::size_t>(r.node_num);
  out.clear();
  if (strategy == PlacementStrategy::Topology && r.node_num > 1) topology_fit(gpus, cpus, r.node_num, range, out);
  else if (strategy != PlacementStrategy::FirstFit && gpus > 0) collect_best(gpus, cpus, want, range, out);
  if (out.size() < want) {  // first fit, also when cores made a best or topology fit fail
    out.clear();
    scan_first(gpus, cpus, want, range, out);
    if (out.size() < want) return false;
  }
  for (std::int32_t i = 0; i < r.node_num; ++i) {
    out[static_cast<std::size_t>(i)].gpus = even_share(r.gpu_num, r.node_num, i);
    out[static_cast<std::size_t>(i)].cpus = even_share(r.cpu_num, r.node_num, i);
  }
  return true;
}

int Cluster::count_nodes_with_room(int gpus, int cpus, int at_most, NodeRange range) const {
  const BitsView room = at_least_.view(std::max(gpus, 0));
  const bool whole = range.first == 0 && range.last == nodes_;
  if (cpus <= 0)
    return whole ? std::min(room.size, std::max(at_most, 0)) : count_common_in(room, room, range.first, range.last, at_most);
  const BitsView cores = with_cores(cpus);
  // When `cpus` is a level of the core sets, a member of `cores` has room for it: count by words.
  const int level = core_levels_[static_cast<std::size_t>(levels_upto_[static_cast<std::size_t>(std::min(cpus, cpus_per_node_))] - 1)];
  if (level == cpus)
    return whole ? count_common(room, cores, std::max(at_most, 0))
                 : count_common_in(room, cores, range.first, range.last, std::max(at_most, 0));
  int count = 0;
  for (int node = find_next_common(room, cores, range.first); node != kNoNode && node < range.last && count < at_most;
       node = find_next_common(room, cores, node + 1))
    count += free_cpus_[static_cast<std::size_t>(node)] >= cpus;
  return count;
}

int Cluster::free_gpus_in(NodeRange range) const {
  if (range.first == 0 && range.last == nodes_) return free_gpus_total_;
  if (range.first == reserved_from_ && range.last == nodes_) return free_gpus_reserved_;
  if (range.first == 0 && range.last == reserved_from_) return free_gpus_total_ - free_gpus_reserved_;
  int free = 0;
  for (int n = range.first; n < range.last; ++n)
    if (!down_[static_cast<std::size_t>(n)] && !cordoned_[static_cast<std::size_t>(n)]) free += free_gpus_on(n);
  return free;
}

int Cluster::leaves_spanned(const Placement& p) const {
  if (p.size() == 1) return 1;  // most jobs
  int count = 0;
  for (const NodeShare& s : p) {
    std::uint8_t& seen = leaf_seen_[static_cast<std::size_t>(leaf_of(s.node))];
    count += !seen;
    seen = 1;
  }
  for (const NodeShare& s : p) leaf_seen_[static_cast<std::size_t>(leaf_of(s.node))] = 0;
  return count;
}

void Cluster::allocate(const Placement& p) {
  for (const NodeShare& s : p) {
    if (s.node < 0 || s.node >= nodes_ || s.gpus < 0 || s.cpus < 0 || down_[static_cast<std::size_t>(s.node)] ||
        free_gpus_[static_cast<std::size_t>(s.node)] < s.gpus ||
        free_cpus_[static_cast<std::size_t>(s.node)] < s.cpus)
      throw std::logic_error("over-allocation: node " + std::to_string(s.node) + " asked for " +
                             std::to_string(s.gpus) + " GPUs and " + std::to_string(s.cpus) +
                             " cores it does not have free");
  }
  for (std::size_t i = 1; i < p.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (p[i].node == p[j].node) throw std::logic_error("placement names node twice");
  for (const NodeShare& s : p) {
    change_free(s.node, -s.gpus, -s.cpus);
  }
}

void Cluster::release(const Placement& p) {
  ++room_freed_;
  for (const NodeShare& s : p) {
    if (s.gpus == 0 && s.cpus == 0) continue;  // nothing held there (a node since gone down may hold it)
    if (down_[static_cast<std::size_t>(s.node)] ||
        free_gpus_[static_cast<std::size_t>(s.node)] + s.gpus > gpus_per_node_ ||
        free_cpus_[static_cast<std::size_t>(s.node)] + s.cpus > cpus_per_node_)
      throw std::logic_error("release of resources that were not allocated on node " + std::to_string(s.node));
    change_free(s.node, s.gpus, s.cpus);
  }
}

void Cluster::take_down(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (down_[n]) return;
  if (free_gpus_[n] != gpus_per_node_ || free_cpus_[n] != cpus_per_node_)
    throw std::logic_error("node " + std::to_string(node) + " taken down with jobs on it");
  uncordon(node);
  index_remove(node);
  down_[n] = true;
  count_free(node, -gpus_per_node_, -cpus_per_node_);
  ++down_nodes_;
}

void Cluster::bring_up(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (!down_[n]) return;
  down_[n] = false;
  ++room_freed_;
  count_free(node, gpus_per_node_, cpus_per_node_);
  --down_nodes_;
  index_add(node);
}

void Cluster::cordon(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (cordoned_[n] || down_[n]) return;
  index_remove(node);
  cordoned_[n] = true;
  ++cordoned_nodes_;
  count_free(node, -free_gpus_[n], -free_cpus_[n]);
  cordoned_free_gpus_ += free_gpus_[n];
  cordoned_free_cpus_ += free_cpus_[n];
}

void Cluster::uncordon(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (!cordoned_[n]) return;
  cordoned_[n] = false;
  --cordoned_nodes_;
  ++room_freed_;
  count_free(node, free_gpus_[n], free_cpus_[n]);
  cordoned_free_gpus_ -= free_gpus_[n];
  cordoned_free_cpus_ -= free_cpus_[n];
  index_add(node);
}

}  // namespace acme
