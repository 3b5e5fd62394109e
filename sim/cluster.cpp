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
  }
  return "";
}

Cluster::Cluster(const ClusterSpec& spec)
    : nodes_(spec.nodes),
      gpus_per_node_(spec.gpus_per_node),
      cpus_per_node_(spec.cpus_per_node),
      nodes_per_leaf_(spec.nodes_per_leaf),
      leaves_(spec.leaves()),
      free_gpus_total_(spec.nodes * spec.gpus_per_node),
      free_cpus_total_(spec.nodes * spec.cpus_per_node),
      free_gpus_(static_cast<std::size_t>(spec.nodes), spec.gpus_per_node),
      free_cpus_(static_cast<std::size_t>(spec.nodes), spec.cpus_per_node),
      down_(static_cast<std::size_t>(spec.nodes), false),
      by_free_(static_cast<std::size_t>(spec.gpus_per_node) + 1,
               std::vector<std::uint64_t>((static_cast<std::size_t>(spec.nodes) + 63) / 64, 0)),
      by_free_count_(static_cast<std::size_t>(spec.gpus_per_node) + 1, 0),
      leaf_by_free_(static_cast<std::size_t>(leaves_) * (static_cast<std::size_t>(spec.gpus_per_node) + 1), 0) {
  for (int n = 0; n < nodes_; ++n) index_add(n);
}

RejectReason Cluster::never_fits(const JobRequest& r) const {
  if (r.node_num > nodes_) return RejectReason::NodesExceedCluster;
  if (even_share(r.gpu_num, r.node_num, 0) > gpus_per_node_) return RejectReason::GpusExceedNode;
  if (even_share(r.cpu_num, r.node_num, 0) > cpus_per_node_) return RejectReason::CpusExceedNode;
  return RejectReason::None;
}

void Cluster::index_add(int node) {
  const auto g = static_cast<std::size_t>(free_gpus_[static_cast<std::size_t>(node)]);
  by_free_[g][static_cast<std::size_t>(node) / 64] |= std::uint64_t{1} << (node % 64);
  ++by_free_count_[g];
  ++leaf_by_free_[static_cast<std::size_t>(leaf_of(node)) * by_free_.size() + g];
}

void Cluster::index_remove(int node) {
  const auto g = static_cast<std::size_t>(free_gpus_[static_cast<std::size_t>(node)]);
  by_free_[g][static_cast<std::size_t>(node) / 64] &= ~(std::uint64_t{1} << (node % 64));
  --by_free_count_[g];
  --leaf_by_free_[static_cast<std::size_t>(leaf_of(node)) * by_free_.size() + g];
}

void Cluster::scan_first(int gpus, int cpus, std::size_t want, Placement& out) const {
  // The union of the buckets with at least `gpus` free GPUs, 64 nodes at a time, lowest first.
  const std::size_t words = by_free_.empty() ? 0 : by_free_[0].size();
  for (std::size_t w = 0; w < words && out.size() < want; ++w) {
    std::uint64_t bits = 0;
    for (std::size_t g = static_cast<std::size_t>(gpus); g < by_free_.size(); ++g) bits |= by_free_[g][w];
    while (bits && out.size() < want) {
      const int node = static_cast<int>(w * 64) + std::countr_zero(bits);
      bits &= bits - 1;
      if (free_cpus_[static_cast<std::size_t>(node)] >= cpus) out.push_back({node, 0, 0});
    }
  }
}

void Cluster::collect_best(int gpus, int cpus, std::size_t want, int only_leaf, Placement& out) const {
  const int first = only_leaf >= 0 ? only_leaf * nodes_per_leaf_ : 0;
  const int last = only_leaf >= 0 ? std::min(nodes_, first + nodes_per_leaf_) : nodes_;
  for (std::size_t g = static_cast<std::size_t>(gpus); g < by_free_.size() && out.size() < want; ++g) {
    const bool none = only_leaf >= 0 ? leaf_by_free_[static_cast<std::size_t>(only_leaf) * by_free_.size() + g] == 0
                                     : by_free_count_[g] == 0;
    if (none) continue;
    const std::vector<std::uint64_t>& bits = by_free_[g];
    for (int w = first / 64; w * 64 < last && out.size() < want; ++w) {
      std::uint64_t word = bits[static_cast<std::size_t>(w)];
      while (word && out.size() < want) {
        const int node = w * 64 + std::countr_zero(word);
        word &= word - 1;
        if (node < first || node >= last) continue;
        if (free_cpus_[static_cast<std::size_t>(node)] >= cpus) out.push_back({node, 0, 0});
      }
    }
  }
}

std::optional<Placement> Cluster::topology_fit(int gpus, int cpus, int nodes) const {
  // Nodes with room per leaf, by GPUs alone (cores are checked when nodes are picked).
  std::vector<std::pair<int, int>> room;  // (nodes with room, leaf)
  const std::size_t width = by_free_.size();
  for (int l = 0; l < leaves_; ++l) {
    int n = 0;
    for (std::size_t g = static_cast<std::size_t>(gpus); g < width; ++g)
      n += leaf_by_free_[static_cast<std::size_t>(l) * width + g];
    if (n > 0) room.emplace_back(n, l);
  }
  Placement p;
  p.reserve(static_cast<std::size_t>(nodes));
  // The tightest single leaf that holds the job...
  const auto one = std::min_element(room.begin(), room.end(), [&](auto a, auto b) {
    const bool fa = a.first >= nodes, fb = b.first >= nodes;
    return fa != fb ? fa : (fa ? a < b : false);
  });
  if (one != room.end() && one->first >= nodes) {
    collect_best(gpus, cpus, static_cast<std::size_t>(nodes), one->second, p);
    if (p.size() == static_cast<std::size_t>(nodes)) return p;
    p.clear();
  }
  // ...else the roomiest leaves first.
  std::sort(room.begin(), room.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (const auto& [n, leaf] : room) {
    if (p.size() == static_cast<std::size_t>(nodes)) break;
    collect_best(gpus, cpus, static_cast<std::size_t>(nodes), leaf, p);
  }
  if (p.size() < static_cast<std::size_t>(nodes)) return std::nullopt;
  return p;
}

std::optional<Placement> Cluster::find_placement(const JobRequest& r, PlacementStrategy strategy) const {
  const int gpus = even_share(r.gpu_num, r.node_num, 0);
  const int cpus = even_share(r.cpu_num, r.node_num, 0);
  if (r.gpu_num > free_gpus_total_ || r.cpu_num > free_cpus_total_) return std::nullopt;
  const auto want = static_cast<std::size_t>(r.node_num);
  std::optional<Placement> p;
  if (strategy == PlacementStrategy::Topology && r.node_num > 1) {
    p = topology_fit(gpus, cpus, r.node_num);
  } else if (strategy != PlacementStrategy::FirstFit && gpus > 0) {
    p.emplace();
    collect_best(gpus, cpus, want, -1, *p);
  }
  if (!p || p->size() < want) {  // first fit, also when cores made a best or topology fit fail
    p.emplace();
    p->reserve(want);
    scan_first(gpus, cpus, want, *p);
    if (p->size() < want) return std::nullopt;
  }
  for (std::int32_t i = 0; i < r.node_num; ++i) {
    (*p)[static_cast<std::size_t>(i)].gpus = even_share(r.gpu_num, r.node_num, i);
    (*p)[static_cast<std::size_t>(i)].cpus = even_share(r.cpu_num, r.node_num, i);
  }
  return p;
}

int Cluster::count_nodes_with_room(int gpus, int cpus, int at_most) const {
  Placement p;
  scan_first(gpus, cpus, static_cast<std::size_t>(std::max(at_most, 0)), p);
  return static_cast<int>(p.size());
}

int Cluster::leaves_spanned(const Placement& p) const {
  int count = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i && !seen; ++j) seen = leaf_of(p[j].node) == leaf_of(p[i].node);
    count += !seen;
  }
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
    index_remove(s.node);
    free_gpus_[static_cast<std::size_t>(s.node)] -= s.gpus;
    free_cpus_[static_cast<std::size_t>(s.node)] -= s.cpus;
    free_gpus_total_ -= s.gpus;
    free_cpus_total_ -= s.cpus;
    index_add(s.node);
  }
}

void Cluster::release(const Placement& p) {
  for (const NodeShare& s : p) {
    if (down_[static_cast<std::size_t>(s.node)] ||
        free_gpus_[static_cast<std::size_t>(s.node)] + s.gpus > gpus_per_node_ ||
        free_cpus_[static_cast<std::size_t>(s.node)] + s.cpus > cpus_per_node_)
      throw std::logic_error("release of resources that were not allocated on node " + std::to_string(s.node));
    index_remove(s.node);
    free_gpus_[static_cast<std::size_t>(s.node)] += s.gpus;
    free_cpus_[static_cast<std::size_t>(s.node)] += s.cpus;
    free_gpus_total_ += s.gpus;
    free_cpus_total_ += s.cpus;
    index_add(s.node);
  }
}

void Cluster::take_down(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (down_[n]) return;
  if (free_gpus_[n] != gpus_per_node_ || free_cpus_[n] != cpus_per_node_)
    throw std::logic_error("node " + std::to_string(node) + " taken down with jobs on it");
  index_remove(node);
  down_[n] = true;
  free_gpus_total_ -= gpus_per_node_;
  free_cpus_total_ -= cpus_per_node_;
  ++down_nodes_;
}

void Cluster::bring_up(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (!down_[n]) return;
  down_[n] = false;
  free_gpus_total_ += gpus_per_node_;
  free_cpus_total_ += cpus_per_node_;
  --down_nodes_;
  index_add(node);
}

}  // namespace acme
