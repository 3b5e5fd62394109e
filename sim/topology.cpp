#include "sim/topology.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

namespace acme {
namespace {

enum class VertexKind { Gpu, Fabric, Nic, Leaf, Spine, Core, Storage };

struct VertexProps {
  VertexKind kind = VertexKind::Gpu;
  int index = 0;  // node index for GPUs, fabrics and NICs; switch number within its kind otherwise
  int sub = 0;    // GPU or NIC number within the node
};
struct EdgeProps {
  double gbps = 0;
  int id = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

int tier_of(VertexKind k) {
  return k == VertexKind::Leaf ? 1 : k == VertexKind::Spine ? 2 : k == VertexKind::Core ? 3 : 0;
}

std::string vertex_name(const Graph& g, Vertex v) {
  static constexpr const char* kNames[] = {"gpu", "fabric", "nic", "leaf", "spine", "core", "storage"};
  const VertexProps& p = g[v];
  const char* name = kNames[static_cast<int>(p.kind)];
  switch (p.kind) {
    case VertexKind::Fabric: return "node " + std::to_string(p.index) + " fabric";
    case VertexKind::Gpu:
    case VertexKind::Nic: return "node " + std::to_string(p.index) + " " + name + " " + std::to_string(p.sub);
    case VertexKind::Storage: return name;
    default: return std::string(name) + " " + std::to_string(p.index);
  }
}

// Union-find over node indices.
struct Components {
  std::vector<int> parent;
  explicit Components(int n) : parent(static_cast<std::size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int a) {
    while (parent[static_cast<std::size_t>(a)] != a) a = parent[static_cast<std::size_t>(a)];
    return a;
  }
  void join(int a, int b) { parent[static_cast<std::size_t>(find(a))] = find(b); }
  // Component numbers 0, 1, ... in order of each component's lowest node.
  std::vector<int> numbered() {
    std::vector<int> out(parent.size()), number(parent.size(), -1);
    int next = 0;
    for (std::size_t n = 0; n < parent.size(); ++n) {
      int& k = number[static_cast<std::size_t>(find(static_cast<int>(n)))];
      if (k < 0) k = next++;
      out[n] = k;
    }
    return out;
  }
};

}  // namespace

struct Topology::Impl {
  Graph g;
  int gpus_per_node = 0, nics_per_node = 0;
  double nvlink_gbps = 0;
  std::vector<Vertex> fabric_of_node;
  struct LinkEnds {
    Vertex a, b;
    double gbps;
    LinkTier tier;
  };
  std::vector<LinkEnds> links;
  std::vector<Vertex> switches;       // leaves, then spines (or aggregation switches), then cores
  std::vector<int> switch_of_vertex;  // [vertex]: its switch number, or -1
  struct Up {
    int link, to;  // a link to a switch of the next level up
  };
  std::vector<std::vector<Up>> up_links;  // [switch]
  struct NicLink {
    int link, leaf;
  };
  std::vector<std::vector<NicLink>> nics;  // [node]: NIC-to-leaf links, by NIC number
  std::vector<int> group_of_node, pod_of_node;
  int groups = 0;
  // route()'s scratch: traffic per switch, and the switches touched.
  mutable std::vector<double> traffic;
  mutable std::vector<int> touched, next_touched;

  int add_edge(Vertex a, Vertex b, double gbps, LinkTier tier) {
    const int id = static_cast<int>(links.size());
    boost::add_edge(a, b, EdgeProps{gbps, id}, g);
    links.push_back({a, b, gbps, tier});
    return id;
  }

  // Shortest path (in links) from a to b as a predecessor walk; returns the links' vertices.
  std::vector<Vertex> path(Vertex a, Vertex b) const {
    std::vector<Vertex> pred(boost::num_vertices(g));
    pred[a] = a;
    boost::breadth_first_search(
        g, a,
        boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge()))));
    std::vector<Vertex> out{b};
    while (out.back() != a) out.push_back(pred[out.back()]);
    return out;
  }

  // Reads off the graph what routes need: NIC links, links upward, groups and pods.
  void index_graph(int nodes) {
    switch_of_vertex.assign(boost::num_vertices(g), -1);
    for (std::size_t s = 0; s < switches.size(); ++s) switch_of_vertex[switches[s]] = static_cast<int>(s);
    up_links.assign(switches.size(), {});
    for (std::size_t s = 0; s < switches.size(); ++s) {
      const int tier = tier_of(g[switches[s]].kind);
      for (auto [e, end] = boost::out_edges(switches[s], g); e != end; ++e) {
        const Vertex other = boost::target(*e, g);
        if (switch_of_vertex[other] >= 0 && tier_of(g[other].kind) == tier + 1)
          up_links[s].push_back({g[*e].id, switch_of_vertex[other]});
      }
    }
    nics.assign(static_cast<std::size_t>(nodes), {});
    Components by_leaf(nodes), by_pod(nodes);
    std::vector<int> first_on_switch(switches.size(), -1);
    std::vector<int> first_in_pod(switches.size(), -1);
    const bool has_cores = std::any_of(switches.begin(), switches.end(),
                                       [&](Vertex v) { return g[v].kind == VertexKind::Core; });
    for (int n = 0; n < nodes; ++n) {
      for (auto [e, end] = boost::out_edges(fabric_of_node[static_cast<std::size_t>(n)], g); e != end; ++e) {
        const Vertex nic = boost::target(*e, g);
        if (g[nic].kind != VertexKind::Nic) continue;
        for (auto [f, fend] = boost::out_edges(nic, g); f != fend; ++f) {
          const int leaf = switch_of_vertex[boost::target(*f, g)];
          if (leaf < 0) continue;
          nics[static_cast<std::size_t>(n)].push_back({g[*f].id, leaf});
          int& first = first_on_switch[static_cast<std::size_t>(leaf)];
          if (first >= 0) by_leaf.join(n, first);
          else first = n;
          for (const Up& up : up_links[static_cast<std::size_t>(leaf)]) {
            int& pod_first = first_in_pod[static_cast<std::size_t>(up.to)];
            if (pod_first >= 0) by_pod.join(n, pod_first);
            else pod_first = n;
          }
        }
      }
    }
    group_of_node = by_leaf.numbered();
    // Below the core of a three-level fabric, a pod; a two-level fabric is one pod.
    pod_of_node = has_cores ? by_pod.numbered() : std::vector<int>(static_cast<std::size_t>(nodes), 0);
    groups = group_of_node.empty() ? 0 : group_of_node.back() + 1;
    traffic.assign(switches.size(), 0.0);
  }

  // Spreads `amount` from switch `from` over its up links to switches that reach the top.
  void spread_up(int from, double amount, const NetworkHealth& h, std::vector<LinkShare>& out, bool onward) const {
    int usable = 0;
    for (const Up& up : up_links[static_cast<std::size_t>(from)])
      usable += !h.down[static_cast<std::size_t>(up.link)] && h.reaches[static_cast<std::size_t>(up.to)];
    if (usable == 0) return;
    for (const Up& up : up_links[static_cast<std::size_t>(from)]) {
      if (h.down[static_cast<std::size_t>(up.link)] || !h.reaches[static_cast<std::size_t>(up.to)]) continue;
      out.push_back({up.link, amount / usable});
      if (!onward) continue;
      if (traffic[static_cast<std::size_t>(up.to)] == 0.0) next_touched.push_back(up.to);
      traffic[static_cast<std::size_t>(up.to)] += amount / usable;
    }
  }
};

Topology::Topology(const ClusterSpec& spec) : impl_(std::make_unique<Impl>()) {
  Impl& t = *impl_;
  Graph& g = t.g;
  t.nvlink_gbps = spec.nvlink_gbps;
  t.gpus_per_node = spec.gpus_per_node;
  t.nics_per_node = spec.nics_per_node;
  const int rails = spec.fabric == Fabric::RailOptimized ? spec.nics_per_node : 1;
  const int groups = spec.leaves();
  const bool pods = spec.leaves_per_pod > 0;
  for (int l = 0; l < groups * rails; ++l) t.switches.push_back(boost::add_vertex({VertexKind::Leaf, l, 0}, g));
  const int aggregation = pods ? spec.pods() * spec.spines : spec.spines;
  for (int s = 0; s < aggregation; ++s) t.switches.push_back(boost::add_vertex({VertexKind::Spine, s, 0}, g));
  for (int c = 0; pods && c < spec.cores; ++c) t.switches.push_back(boost::add_vertex({VertexKind::Core, c, 0}, g));
  const Vertex storage = boost::add_vertex({VertexKind::Storage, 0, 0}, g);
  auto leaf = [&](int l) { return t.switches[static_cast<std::size_t>(l)]; };
  auto spine = [&](int s) { return t.switches[static_cast<std::size_t>(groups * rails + s)]; };

  for (int n = 0; n < spec.nodes; ++n) {
    const Vertex fabric = boost::add_vertex({VertexKind::Fabric, n, 0}, g);
    t.fabric_of_node.push_back(fabric);
    for (int i = 0; i < spec.gpus_per_node; ++i)
      t.add_edge(boost::add_vertex({VertexKind::Gpu, n, i}, g), fabric, spec.nvlink_gbps, LinkTier::NvLink);
    const int group = n / spec.nodes_per_leaf;
    for (int i = 0; i < spec.nics_per_node; ++i) {
      const Vertex nic = boost::add_vertex({VertexKind::Nic, n, i}, g);
      t.add_edge(fabric, nic, spec.nic_gbps, LinkTier::Host);
      t.add_edge(nic, leaf(group * rails + (rails > 1 ? i : 0)), spec.nic_gbps, LinkTier::Nic);
    }
  }
  // A leaf's downlinks: every NIC of its nodes (fat-tree), or one per node (a rail).
  const double leaf_down = spec.nodes_per_leaf * (spec.nics_per_node / rails) * spec.nic_gbps;
  const double uplink = leaf_down / spec.oversubscription / spec.spines;
  for (int l = 0; l < groups * rails; ++l) {
    const int pod = pods ? l / rails / spec.leaves_per_pod : 0;
    for (int s = 0; s < spec.spines; ++s) t.add_edge(leaf(l), spine(pod * spec.spines + s), uplink, LinkTier::LeafUplink);
  }
  if (pods) {
    const double agg_down = spec.leaves_per_pod * rails * uplink;
    const double core_link = agg_down / spec.pod_oversubscription / spec.cores;
    for (int a = 0; a < aggregation; ++a)
      for (int c = 0; c < spec.cores; ++c)
        t.add_edge(spine(a), t.switches[static_cast<std::size_t>(groups * rails + aggregation + c)], core_link,
                   LinkTier::PodUplink);
    for (int c = 0; c < spec.cores; ++c)
      t.add_edge(t.switches[static_cast<std::size_t>(groups * rails + aggregation + c)], storage, spec.storage_gbps,
                 LinkTier::Storage);
  } else {
    for (int s = 0; s < aggregation; ++s) t.add_edge(spine(s), storage, spec.storage_gbps, LinkTier::Storage);
  }
  t.index_graph(spec.nodes);
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

std::size_t Topology::vertex_count() const { return boost::num_vertices(impl_->g); }
std::size_t Topology::edge_count() const { return boost::num_edges(impl_->g); }
int Topology::node_count() const { return static_cast<int>(impl_->fabric_of_node.size()); }
int Topology::group_count() const { return impl_->groups; }
int Topology::group_of(int node) const { return impl_->group_of_node.at(static_cast<std::size_t>(node)); }
int Topology::pod_of(int node) const { return impl_->pod_of_node.at(static_cast<std::size_t>(node)); }

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

std::vector<int> Topology::nodes_under(int group) const {
  std::vector<int> out;
  for (int n = 0; n < node_count(); ++n)
    if (impl_->group_of_node[static_cast<std::size_t>(n)] == group) out.push_back(n);
  return out;
}

int Topology::link_count() const { return static_cast<int>(impl_->links.size()); }
double Topology::link_gbps(int link) const { return impl_->links.at(static_cast<std::size_t>(link)).gbps; }
LinkTier Topology::link_tier(int link) const { return impl_->links.at(static_cast<std::size_t>(link)).tier; }
std::string Topology::link_name(int link) const {
  const auto& l = impl_->links.at(static_cast<std::size_t>(link));
  return vertex_name(impl_->g, l.a) + "-" + vertex_name(impl_->g, l.b);
}
int Topology::switch_count() const { return static_cast<int>(impl_->switches.size()); }
std::string Topology::switch_name(int sw) const {
  return vertex_name(impl_->g, impl_->switches.at(static_cast<std::size_t>(sw)));
}

std::optional<int> Topology::find_link(const std::string& name) const {
  for (int l = 0; l < link_count(); ++l)
    if (link_name(l) == name) return l;
  return std::nullopt;
}

std::optional<int> Topology::find_switch(const std::string& name) const {
  for (int s = 0; s < switch_count(); ++s)
    if (switch_name(s) == name) return s;
  return std::nullopt;
}

std::vector<int> Topology::links_of_switch(int sw) const {
  std::vector<int> out;
  const Graph& g = impl_->g;
  for (auto [e, end] = boost::out_edges(impl_->switches.at(static_cast<std::size_t>(sw)), g); e != end; ++e)
    out.push_back(g[*e].id);
  std::sort(out.begin(), out.end());
  return out;
}

int Topology::leaf_switch_of(int node, int nic) const {
  const auto& n = impl_->nics.at(static_cast<std::size_t>(node));
  return n.at(static_cast<std::size_t>(nic) % n.size()).leaf;
}

int Topology::nic_of_gpu(int gpu) const {
  return impl_->gpus_per_node > 0 ? gpu * impl_->nics_per_node / impl_->gpus_per_node : 0;
}

NetworkHealth Topology::healthy() const {
  NetworkHealth h{std::vector<std::uint8_t>(impl_->links.size(), 0), {}};
  set_down(h, {}, false);
  return h;
}

void Topology::set_down(NetworkHealth& h, std::span<const int> links, bool down) const {
  for (int l : links) h.down.at(static_cast<std::size_t>(l)) = down;
  // From the top level down: a top switch reaches while any of its links is up; a lower one
  // while an up link leads to a switch that reaches.
  const Impl& t = *impl_;
  h.reaches.assign(t.switches.size(), 0);
  for (std::size_t s = t.switches.size(); s-- > 0;) {
    if (!t.up_links[s].empty()) {
      for (const Impl::Up& up : t.up_links[s])
        h.reaches[s] = h.reaches[s] || (!h.down[static_cast<std::size_t>(up.link)] && h.reaches[static_cast<std::size_t>(up.to)]);
      continue;
    }
    for (int l : links_of_switch(static_cast<int>(s))) h.reaches[s] = h.reaches[s] || !h.down[static_cast<std::size_t>(l)];
  }
}

void Topology::route(std::span<const int> nodes, const NetworkHealth& h, std::vector<LinkShare>& out) const {
  const Impl& t = *impl_;
  out.clear();
  bool groups = false, pods = false;
  for (int n : nodes) {
    groups = groups || t.group_of_node[static_cast<std::size_t>(n)] != t.group_of_node[static_cast<std::size_t>(nodes[0])];
    pods = pods || t.pod_of_node[static_cast<std::size_t>(n)] != t.pod_of_node[static_cast<std::size_t>(nodes[0])];
  }
  auto usable = [&](const Impl::NicLink& nic) {
    return !h.down[static_cast<std::size_t>(nic.link)] && h.reaches[static_cast<std::size_t>(nic.leaf)];
  };
  t.touched.clear();
  for (int n : nodes) {
    const auto& node_nics = t.nics[static_cast<std::size_t>(n)];
    const auto count = std::count_if(node_nics.begin(), node_nics.end(), usable);
    for (const Impl::NicLink& nic : node_nics) {
      if (!usable(nic)) continue;
      const double share = 1.0 / static_cast<double>(count);
      out.push_back({nic.link, share});
      if (t.traffic[static_cast<std::size_t>(nic.leaf)] == 0.0) t.touched.push_back(nic.leaf);
      t.traffic[static_cast<std::size_t>(nic.leaf)] += share;
    }
  }
  // Up the levels the nodes span: leaves to spines (or aggregation switches), then to cores.
  for (int level = 0; level < 2; ++level) {
    t.next_touched.clear();
    const bool climb = level == 0 ? groups : pods;
    for (int sw : t.touched) {
      double& amount = t.traffic[static_cast<std::size_t>(sw)];
      if (climb) t.spread_up(sw, amount, h, out, level == 0 && pods);
      amount = 0.0;
    }
    t.touched.swap(t.next_touched);
  }
  for (int sw : t.touched) t.traffic[static_cast<std::size_t>(sw)] = 0.0;
}

std::vector<int> Topology::cut_off_nodes(const NetworkHealth& h) const {
  std::vector<int> out;
  for (int n = 0; n < node_count(); ++n) {
    bool any = false;
    for (const Impl::NicLink& nic : impl_->nics[static_cast<std::size_t>(n)])
      any = any || (!h.down[static_cast<std::size_t>(nic.link)] && h.reaches[static_cast<std::size_t>(nic.leaf)]);
    if (!any) out.push_back(n);
  }
  return out;
}

std::vector<Topology::Link> Topology::links_of(const std::vector<int>& nodes) const {
  const Graph& g = impl_->g;
  std::vector<Link> out;
  std::vector<int> leaves;
  auto add = [&](int id) {
    const auto& l = impl_->links[static_cast<std::size_t>(id)];
    out.push_back({vertex_name(g, l.a), vertex_name(g, l.b), l.gbps});
  };
  for (int n : nodes) {
    const Vertex fabric = impl_->fabric_of_node.at(static_cast<std::size_t>(n));
    for (auto [e, end] = boost::out_edges(fabric, g); e != end; ++e) add(g[*e].id);
    for (const Impl::NicLink& nic : impl_->nics[static_cast<std::size_t>(n)]) {
      add(nic.link);
      if (std::find(leaves.begin(), leaves.end(), nic.leaf) == leaves.end()) leaves.push_back(nic.leaf);
    }
  }
  bool groups = false;
  for (int n : nodes) groups = groups || group_of(n) != group_of(nodes.front());
  if (groups)
    for (int leaf : leaves)
      for (const Impl::Up& up : impl_->up_links[static_cast<std::size_t>(leaf)]) add(up.link);
  return out;
}

std::vector<int> Topology::nodes_in_domain(Domain domain, int index) const {
  switch (domain) {
    case Domain::Gpu: return {index / std::max(impl_->gpus_per_node, 1)};
    case Domain::Nic: return {index / std::max(impl_->nics_per_node, 1)};
    case Domain::Node: return {index};
    case Domain::Leaf: {
      NetworkHealth h = healthy();
      set_down(h, links_of_switch(index), true);
      return cut_off_nodes(h);
    }
  }
  return {};
}

}  // namespace acme
