#include "sim/cluster.h"

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
      free_gpus_total_(spec.nodes * spec.gpus_per_node),
      free_cpus_total_(spec.nodes * spec.cpus_per_node),
      free_gpus_(static_cast<std::size_t>(spec.nodes), spec.gpus_per_node),
      free_cpus_(static_cast<std::size_t>(spec.nodes), spec.cpus_per_node) {
  leaves_ = 1;
  while (leaves_ < free_gpus_.size()) leaves_ *= 2;
  max_gpus_.assign(2 * leaves_, -1);
  max_cpus_.assign(2 * leaves_, -1);
  for (int n = 0; n < nodes_; ++n) {
    max_gpus_[leaves_ + static_cast<std::size_t>(n)] = gpus_per_node_;
    max_cpus_[leaves_ + static_cast<std::size_t>(n)] = cpus_per_node_;
  }
  for (std::size_t i = leaves_ - 1; i >= 1; --i) {
    max_gpus_[i] = std::max(max_gpus_[2 * i], max_gpus_[2 * i + 1]);
    max_cpus_[i] = std::max(max_cpus_[2 * i], max_cpus_[2 * i + 1]);
  }
}

RejectReason Cluster::never_fits(const JobRequest& r) const {
  if (r.node_num > nodes_) return RejectReason::NodesExceedCluster;
  if (even_share(r.gpu_num, r.node_num, 0) > gpus_per_node_) return RejectReason::GpusExceedNode;
  if (even_share(r.cpu_num, r.node_num, 0) > cpus_per_node_) return RejectReason::CpusExceedNode;
  return RejectReason::None;
}

void Cluster::collect(std::size_t idx, int gpus, int cpus, std::size_t want, Placement& out) const {
  if (out.size() == want || max_gpus_[idx] < gpus || max_cpus_[idx] < cpus) return;
  if (idx >= leaves_) {
    // A leaf passing both maxima has room for both: it is one node.
    out.push_back({static_cast<std::int32_t>(idx - leaves_), 0, 0});
    return;
  }
  collect(2 * idx, gpus, cpus, want, out);
  collect(2 * idx + 1, gpus, cpus, want, out);
}

std::optional<Placement> Cluster::find_first_fit(const JobRequest& r) const {
  const int gpus = even_share(r.gpu_num, r.node_num, 0);
  const int cpus = even_share(r.cpu_num, r.node_num, 0);
  if (r.gpu_num > free_gpus_total_) return std::nullopt;
  Placement p;
  p.reserve(static_cast<std::size_t>(r.node_num));
  collect(1, gpus, cpus, static_cast<std::size_t>(r.node_num), p);
  if (p.size() < static_cast<std::size_t>(r.node_num)) return std::nullopt;
  for (std::int32_t i = 0; i < r.node_num; ++i) {
    p[static_cast<std::size_t>(i)].gpus = even_share(r.gpu_num, r.node_num, i);
    p[static_cast<std::size_t>(i)].cpus = even_share(r.cpu_num, r.node_num, i);
  }
  return p;
}

int Cluster::count_nodes_with_room(int gpus, int cpus, int at_most) const {
  Placement p;
  collect(1, gpus, cpus, static_cast<std::size_t>(std::max(at_most, 0)), p);
  return static_cast<int>(p.size());
}

void Cluster::update(int node) {
  std::size_t i = leaves_ + static_cast<std::size_t>(node);
  max_gpus_[i] = free_gpus_[static_cast<std::size_t>(node)];
  max_cpus_[i] = free_cpus_[static_cast<std::size_t>(node)];
  for (i /= 2; i >= 1; i /= 2) {
    max_gpus_[i] = std::max(max_gpus_[2 * i], max_gpus_[2 * i + 1]);
    max_cpus_[i] = std::max(max_cpus_[2 * i], max_cpus_[2 * i + 1]);
  }
}

void Cluster::allocate(const Placement& p) {
  for (const NodeShare& s : p) {
    if (s.node < 0 || s.node >= nodes_ || s.gpus < 0 || s.cpus < 0 ||
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
    free_gpus_[static_cast<std::size_t>(s.node)] -= s.gpus;
    free_cpus_[static_cast<std::size_t>(s.node)] -= s.cpus;
    free_gpus_total_ -= s.gpus;
    free_cpus_total_ -= s.cpus;
    update(s.node);
  }
}

void Cluster::release(const Placement& p) {
  for (const NodeShare& s : p) {
    free_gpus_[static_cast<std::size_t>(s.node)] += s.gpus;
    free_cpus_[static_cast<std::size_t>(s.node)] += s.cpus;
    free_gpus_total_ += s.gpus;
    free_cpus_total_ += s.cpus;
    if (free_gpus_[static_cast<std::size_t>(s.node)] > gpus_per_node_ ||
        free_cpus_[static_cast<std::size_t>(s.node)] > cpus_per_node_)
      throw std::logic_error("release of resources that were not allocated on node " +
                             std::to_string(s.node));
    update(s.node);
  }
}

}  // namespace acme
