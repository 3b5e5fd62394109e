// The shape of a request: what decides whether it fits the cluster now. Two requests of one shape
// fit or do not fit together (Cluster::fits_now reads only these), so a policy may test a shape
// once for all the jobs that share it; and while a pass starts jobs, room only shrinks, so a
// shape that did not fit in a pass will not fit later in it.
#pragma once

#include <compare>
#include <cstdint>

#include "sim/cluster.h"

namespace acme {

struct Shape {
  std::int32_t gpus, nodes, cpus, first_node, last_node;  // a request, and the nodes open to it
  auto operator<=>(const Shape&) const = default;

  static Shape of(const Cluster& cluster, const JobRequest& r) {
    const Cluster::NodeRange open = cluster.nodes_open_to(r);
    return {r.gpu_num, r.node_num, r.cpu_num, open.first, open.last};
  }
  // Whether its requests fit the cluster now (Cluster::fits_now of each of them).
  bool fits_now(const Cluster& cluster) const { return cluster.fits_now(gpus, cpus, nodes, {first_node, last_node}); }
};

}  // namespace acme
