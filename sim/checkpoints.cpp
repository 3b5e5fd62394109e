#include "sim/checkpoints.h"

#include <algorithm>
#include <cmath>

namespace acme {
namespace {

Time whole_seconds(double s) { return Time::seconds(s > 0 ? std::max<std::int64_t>(1, std::llround(s)) : 0); }

}  // namespace

CheckpointModel::CheckpointModel(const CheckpointSettings& s)
    : s_(s), interval_(Time::seconds(std::llround(s.interval_s))) {}

void CheckpointModel::use_cluster(const ClusterSpec& cluster) {
  node_gbps_ = cluster.nics_per_node * cluster.nic_gbps;
  storage_gbps_ = cluster.top_switches() * cluster.storage_gbps;
}

double CheckpointModel::size_gb(const JobRequest& r) const {
  return s_.model_params > 0 ? s_.model_params * s_.bytes_per_param / 1e9 : s_.gb_per_gpu * r.gpu_num;
}

Time CheckpointModel::transfer(double gb, double gbps) const { return whole_seconds(gb * 8.0 / gbps); }

Time CheckpointModel::write(const JobRequest& r) const {
  if (s_.save_s > 0) return whole_seconds(s_.save_s);
  return transfer(size_gb(r), path_gbps(r));
}

double CheckpointModel::copy_to_host_s(const JobRequest& r) const {
  if (s_.save_s > 0) return s_.save_s / s_.async_speedup;
  return size_gb(r) * 8.0 / (std::max(1, r.gpu_num) * s_.host_gbps);
}

Time CheckpointModel::stall(const JobRequest& r) const {
  if (s_.mode == CheckpointMode::Sync) return write(r);
  const double hidden = s_.mode == CheckpointMode::MultiLevel ? s_.lazy_overlap_s : 0;
  return whole_seconds(copy_to_host_s(r) - hidden);
}

CheckpointModel::Kept CheckpointModel::kept(const JobRequest& r, int nodes_lost) const {
  if (s_.mode == CheckpointMode::Sync) return {Restore::Storage, Time{}};
  const Time written = write(r);
  if (s_.mode == CheckpointMode::MultiLevel) {
    if (nodes_lost == 0) return {Restore::Host, Time{}};
    if (nodes_lost == 1 && r.node_num >= 2 && s_.ssd_gbps > 0)
      if (const Time on_ssd = ssd_transfer(r); on_ssd <= written) return {Restore::Ssd, on_ssd};
  }
  return {Restore::Storage, written};
}

Time CheckpointModel::ssd_transfer(const JobRequest& r) const {
  const double shard_gb = size_gb(r) / std::max(1, r.node_num);
  return whole_seconds(std::max(2 * shard_gb * 8.0 / s_.ssd_gbps, shard_gb * 8.0 / node_gbps_));
}

RestartPhases CheckpointModel::restart(const JobRequest& r, Restore from) const {
  Time load = whole_seconds(s_.load_s);
  if (!(s_.load_s > 0)) {
    const double gbps = from == Restore::Host ? std::max(1, r.gpu_num) * s_.host_gbps : path_gbps(r);
    load = from == Restore::None ? Time{} : from == Restore::Ssd ? ssd_transfer(r) : transfer(size_gb(r), gbps);
  }
  return {whole_seconds(s_.comm_init_s), load, whole_seconds(s_.warmup_s)};
}

}  // namespace acme
