#include "sim/network.h"

#include <algorithm>

#include "sim/error.h"

namespace acme {
namespace {

void fill(std::array<double, kJobTypeCount>& out, const std::vector<std::pair<std::string, double>>& table,
          const char* key) {
  for (const auto& [name, value] : table) {
    const auto t = parse_job_type(name);
    if (!t) throw InputError(std::string("network.") + key + "." + name + ": unknown job type");
    out[static_cast<std::size_t>(*t)] = value;
  }
}

}  // namespace

NetworkModel::NetworkModel(const ClusterSpec& cluster, Params& params)
    : node_gbps_(cluster.nics_per_node * cluster.nic_gbps), oversubscription_(cluster.oversubscription) {
  fill(comm_share_,
       params.table("comm_share",
                    {{"Pretrain", 0.4}, {"MLLM", 0.3}, {"SFT", 0.2}, {"Debug", 0.2}, {"Other", 0.2}, {"Eval", 0}, {"CPU", 0}},
                    0, 1, "share of a multi-node job's time spent communicating, by job type"),
       "comm_share");
  fill(need_gbps_,
       params.table("need_gbps",
                    {{"Pretrain", 200}, {"MLLM", 200}, {"SFT", 200}, {"Debug", 200}, {"Other", 200}, {"Eval", 200},
                     {"CPU", 200}},
                    0, 1e6, "per-node bandwidth at which the recorded run time holds, Gb/s"),
       "need_gbps");
  leaf_penalty_ = params.number("leaf_penalty", 0.05, 0, 100,
                                "extra communication time per additional leaf switch spanned (0.05: 5%)");
}

double NetworkModel::slowdown(const JobRequest& r, int leaves_spanned) const {
  if (r.node_num <= 1) return 1.0;
  const auto t = static_cast<std::size_t>(r.type);
  const double bandwidth = leaves_spanned > 1 ? node_gbps_ / oversubscription_ : node_gbps_;
  const double starved = std::max(1.0, need_gbps_[t] / bandwidth);
  return 1.0 + comm_share_[t] * (starved - 1.0) + comm_share_[t] * leaf_penalty_ * (leaves_spanned - 1);
}

}  // namespace acme
