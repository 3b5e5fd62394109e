// How placement slows a multi-node job: the network model (keys network.*).
//
// A job's recorded run time is taken to hold when each of its nodes gets `need_gbps` of network
// bandwidth. Of its time, a share `comm_share` (by job type: pretraining high, evaluation none)
// is communication, which stretches when the job gets less bandwidth and with every extra leaf
// switch it spans:
//
//   bandwidth  = NICs per node x NIC speed, divided by the oversubscription when the job spans
//                more than one leaf (its traffic then crosses the leaf uplinks)
//   slowdown   = 1 + comm_share x (max(1, need_gbps / bandwidth) - 1)
//                  + comm_share x leaf_penalty x (leaves spanned - 1)
//
// Single-node jobs talk over NVLink only: slowdown 1. The defaults and their reasoning are in
// sim/README.md ("The network model and placement").
//
// With contention (network.contention), the bandwidth comes from the topology graph instead:
// the job's route over the links, shared with the other running jobs (sim/link_sharing.h), and
// need_gbps / bandwidth becomes the job's starvation there. One job alone on whole leaves of a
// uniform fat-tree gets the same slowdown both ways.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/job.h"

namespace acme {

// The keys network.* (read by features/network.h), by job type where they are tables.
struct NetworkSettings {
  bool slowdown = true;  // whether multi-node jobs slow down by placement at all
  std::array<double, kJobTypeCount> comm_share{};  // share of the job's time spent communicating
  std::array<double, kJobTypeCount> need_gbps{};   // per-node bandwidth at which its run time holds
  double leaf_penalty = 0.05;                      // extra communication time per extra leaf
  bool contention = false;  // bandwidth from routes over the topology graph, links shared
  // Switches or links taken down for a while (network.faults), by name as the topology names them.
  struct Fault {
    std::string target;  // "spine 2", "leaf 0-spine 1"
    Time from;           // after workload.from (or the first release)
    Time duration;
  };
  std::vector<Fault> faults;
};

class NetworkModel {
 public:
  NetworkModel(const ClusterSpec& cluster, const NetworkSettings& settings);

  const NetworkSettings& settings() const { return settings_; }
  // The slowdown from the per-node arithmetic above.
  double slowdown(const JobRequest& r, int leaves_spanned) const;
  // The slowdown of a job whose bandwidth is need_gbps / starvation (starvation >= 1).
  double slowdown_starved(const JobRequest& r, double starvation, int leaves_spanned) const;
  double need_gbps(JobType t) const { return need_gbps_[static_cast<std::size_t>(t)]; }

 private:
  NetworkSettings settings_;
  std::array<double, kJobTypeCount> comm_share_{};
  std::array<double, kJobTypeCount> need_gbps_{};
  double leaf_penalty_;
  double node_gbps_;
  double oversubscription_;
};

}  // namespace acme
