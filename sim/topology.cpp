#include "sim/topology.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace acme {
namespace {

enum class VertexKind { Gpu, Fabric, Nic, Leaf, Spine, Storage };

struct VertexProps {
  VertexKind kind = VertexKind::Gpu;
  int index = 0;  // node index for GPUs, fabrics and NICs; switch index otherwise
};
struct EdgeProps {
  double gbps = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

}  // namespace

struct Topology::Impl {
  Graph g;
  int gpus_per_node = 0, nics_per_node = 0, nodes_per_leaf = 1;
  std::vector<Vertex> fabric_of_node;
  std::vector<int> leaf_of_node;
  int leaves = 0;
  double nvlink_gbps = 0;

  // Shortest path (in links) from a to b as a predecessor walk; returns the links' vertices.
  std::vector<Vertex> path(Vertex a, Vertex b) const {
    std::vector<Vertex> pred(boost::num_vertices(g));
    pred[a] = a;
    boost::breadth_first_search(
        g, a,
        boost::visitor(boost::make_bfs_visitor(
            boost::record_predecessors(pred.data(), boost::on_tree_edge()))));
    std::vector<Vertex> out{b};
    while (out.back() != a) out.push_back(pred[out.back()]);
    return out;
  }
};

Topology::Topology(const ClusterSpec& spec) : impl_(std::make_unique<Impl>()) {
  Graph& g = impl_->g;
  impl_->nvlink_gbps = spec.nvlink_gbps;
  impl_->gpus_per_node = spec.gpus_per_node;
  impl_->nics_per_node = spec.nics_per_node;
  impl_->nodes_per_leaf = spec.nodes_per_leaf;
  impl_->leaves = spec.leaves();
  std::vector<Vertex> leaves, spines;
  for (int l = 0; l < impl_->leaves; ++l) leaves.push_back(boost::add_vertex({VertexKind::Leaf, l}, g));
  for (int s = 0; s < spec.spines; ++s) spines.push_back(boost::add_vertex({VertexKind::Spine, s}, g));
  const Vertex storage = boost::add_vertex({VertexKind::Storage, 0}, g);

  for (int n = 0; n < spec.nodes; ++n) {
    const Vertex fabric = boost::add_vertex({VertexKind::Fabric, n}, g);
    impl_->fabric_of_node.push_back(fabric);
    for (int i = 0; i < spec.gpus_per_node; ++i)
      boost::add_edge(boost::add_vertex({VertexKind::Gpu, n}, g), fabric, {spec.nvlink_gbps}, g);
    const int leaf = n / spec.nodes_per_leaf;
    impl_->leaf_of_node.push_back(leaf);
    for (int i = 0; i < spec.nics_per_node; ++i) {
      const Vertex nic = boost::add_vertex({VertexKind::Nic, n}, g);
      boost::add_edge(fabric, nic, {spec.nic_gbps}, g);
      boost::add_edge(nic, leaves[static_cast<std::size_t>(leaf)], {spec.nic_gbps}, g);
    }
  }
  const double leaf_down = spec.nodes_per_leaf * spec.nics_per_node * spec.nic_gbps;
  const double uplink = leaf_down / spec.oversubscription / spec.spines;
  for (Vertex l : leaves)
    for (Vertex s : spines) boost::add_edge(l, s, {uplink}, g);
  for (Vertex s : spines) boost::add_edge(s, storage, {spec.storage_gbps}, g);
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

std::size_t Topology::vertex_count() const { return boost::num_vertices(impl_->g); }
std::size_t Topology::edge_count() const { return boost::num_edges(impl_->g); }
int Topology::node_count() const { return static_cast<int>(impl_->fabric_of_node.size()); }
int Topology::leaf_count() const { return impl_->leaves; }
int Topology::leaf_of(int node) const { return impl_->leaf_of_node.at(static_cast<std::size_t>(node)); }

int Topology::hop_count(int a, int b) const {
  if (a == b) return 0;
  const auto p = impl_->path(impl_->fabric_of_node.at(static_cast<std::size_t>(a)),
                             impl_->fabric_of_node.at(static_cast<std::size_t>(b)));
  return static_cast<int>(p.size()) - 1;
}

double Topology::bottleneck_gbps(int a, int b) const {
  if (a == b) return impl_->nvlink_gbps;
  const auto p = impl_->path(impl_->fabric_of_node.at(static_cast<std::size_t>(a)),
                             impl_->fabric_of_node.at(static_cast<std::size_t>(b)));
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < p.size(); ++i)
    least = std::min(least, impl_->g[boost::edge(p[i - 1], p[i], impl_->g).first].gbps);
  return least;
}

std::vector<int> Topology::nodes_under(int leaf) const {
  std::vector<int> out;
  for (int n = leaf * impl_->nodes_per_leaf; n < node_count() && n < (leaf + 1) * impl_->nodes_per_leaf; ++n)
    out.push_back(n);
  return out;
}

namespace {

std::string vertex_name(const Graph& g, Vertex v) {
  static constexpr const char* kNames[] = {"gpu", "fabric", "nic", "leaf", "spine", "storage"};
  const VertexProps& p = g[v];
  if (p.kind == VertexKind::Gpu || p.kind == VertexKind::Fabric || p.kind == VertexKind::Nic)
    return "node " + std::to_string(p.index) + " " + kNames[static_cast<int>(p.kind)];
  return std::string(kNames[static_cast<int>(p.kind)]) + " " + std::to_string(p.index);
}

}  // namespace

std::vector<Topology::Link> Topology::links_of(const std::vector<int>& nodes) const {
  const Graph& g = impl_->g;
  std::vector<Link> out;
  std::vector<Vertex> leaves;
  auto add = [&](Vertex a, Vertex b) {
    out.push_back({vertex_name(g, a), vertex_name(g, b), g[boost::edge(a, b, g).first].gbps});
  };
  for (int n : nodes) {
    const Vertex fabric = impl_->fabric_of_node.at(static_cast<std::size_t>(n));
    for (auto [e, end] = boost::out_edges(fabric, g); e != end; ++e) {
      const Vertex other = boost::target(*e, g);
      add(fabric, other);
      if (g[other].kind != VertexKind::Nic) continue;
      for (auto [f, fend] = boost::out_edges(other, g); f != fend; ++f) {
        const Vertex leaf = boost::target(*f, g);
        if (g[leaf].kind != VertexKind::Leaf) continue;
        add(other, leaf);
        if (std::find(leaves.begin(), leaves.end(), leaf) == leaves.end()) leaves.push_back(leaf);
      }
    }
  }
  if (leaves.size() > 1)
    for (Vertex leaf : leaves)
      for (auto [e, end] = boost::out_edges(leaf, g); e != end; ++e)
        if (g[boost::target(*e, g)].kind == VertexKind::Spine) add(leaf, boost::target(*e, g));
  return out;
}

std::vector<int> Topology::nodes_in_domain(Domain domain, int index) const {
  switch (domain) {
    case Domain::Gpu: return {index / std::max(impl_->gpus_per_node, 1)};
    case Domain::Nic: return {index / std::max(impl_->nics_per_node, 1)};
    case Domain::Node: return {index};
    case Domain::Leaf: return nodes_under(index);
  }
  return {};
}

}  // namespace acme
