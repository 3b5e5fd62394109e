#include "sim/network.h"

#include <algorithm>

namespace acme {

NetworkModel::NetworkModel(const ClusterSpec& cluster, const NetworkSettings& settings)
    : settings_(settings),
      comm_share_(settings.comm_share),
      need_gbps_(settings.need_gbps),
      leaf_penalty_(settings.leaf_penalty),
      node_gbps_(cluster.nics_per_node * cluster.nic_gbps),
      oversubscription_(cluster.oversubscription) {}

double NetworkModel::slowdown(const JobRequest& r, int leaves_spanned) const {
  if (r.node_num <= 1) return 1.0;
  const auto t = static_cast<std::size_t>(r.type);
  const double bandwidth = leaves_spanned > 1 ? node_gbps_ / oversubscription_ : node_gbps_;
  return slowdown_starved(r, std::max(1.0, need_gbps_[t] / bandwidth), leaves_spanned);
}

double NetworkModel::slowdown_starved(const JobRequest& r, double starvation, int leaves_spanned) const {
  if (r.node_num <= 1) return 1.0;
  const auto t = static_cast<std::size_t>(r.type);
  return 1.0 + comm_share_[t] * (starvation - 1.0) + comm_share_[t] * leaf_penalty_ * (leaves_spanned - 1);
}

}  // namespace acme
