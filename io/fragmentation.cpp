#include "io/fragmentation.h"

#include <algorithm>

namespace acme {

Fragmentation::Fragmentation(int nodes, int gpus_per_node)
    : node_free_(static_cast<std::size_t>(nodes), gpus_per_node),
      nodes_by_free_(static_cast<std::size_t>(gpus_per_node) + 1, 0),
      one_node_waiting_(static_cast<std::size_t>(gpus_per_node) + 1, 0) {
  nodes_by_free_.back() = nodes;
}

void Fragmentation::wait(const JobRequest& r, int sign) {
  if (r.gpu_num == 0) return;
  if (r.node_num == 1 && static_cast<std::size_t>(r.gpu_num) < one_node_waiting_.size())
    one_node_waiting_[static_cast<std::size_t>(r.gpu_num)] += sign;
  else
    waiting_[{r.gpu_num, r.node_num}] += sign;  // shapes are few: kept at zero, not erased
}

void Fragmentation::hold(const Placement& p, int sign) {
  for (const NodeShare& s : p) {
    auto& free = node_free_[static_cast<std::size_t>(s.node)];
    --nodes_by_free_[static_cast<std::size_t>(free)];
    free += sign * s.gpus;
    ++nodes_by_free_[static_cast<std::size_t>(free)];
  }
}

Fragmentation::Counts Fragmentation::count(std::int64_t free) const {
  Counts out;
  // Nodes with at least k free GPUs, for every k.
  std::vector<std::int64_t> at_least(nodes_by_free_.size() + 1, 0);
  for (std::size_t k = nodes_by_free_.size(); k-- > 0;) at_least[k] = at_least[k + 1] + nodes_by_free_[k];
  std::size_t smallest = nodes_by_free_.size();
  bool any_waiting = false;
  const auto shape = [&](std::int64_t gpus, std::int32_t nodes, std::int64_t count) {
    if (count == 0) return;
    any_waiting = true;
    const auto share = static_cast<std::size_t>(even_share(gpus, nodes, 0));
    smallest = std::min(smallest, share);
    if (gpus <= free && (share >= at_least.size() || at_least[share] < nodes)) out.blocked += gpus * count;
  };
  for (std::size_t g = 1; g < one_node_waiting_.size(); ++g)
    shape(static_cast<std::int64_t>(g), 1, one_node_waiting_[g]);
  for (const auto& [gpus_nodes, count] : waiting_) shape(gpus_nodes.first, gpus_nodes.second, count);
  for (std::size_t k = 0; any_waiting && k < smallest && k < nodes_by_free_.size(); ++k)
    out.unusable += static_cast<std::int64_t>(k) * nodes_by_free_[k];
  return out;
}

}  // namespace acme
