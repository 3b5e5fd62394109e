// Fragmentation of free GPUs, counted from the facts (cores are not considered): how the timeseries
// sink (io/timeseries_sink.cpp) fills gpus_free_unusable and gpus_blocked_by_fragmentation.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/cluster.h"
#include "sim/job.h"

namespace acme {

class Fragmentation {
 public:
  // Every node starts with all its GPUs free.
  Fragmentation(int nodes, int gpus_per_node);

  // A pending job joins (sign +1) or leaves (-1) the queue; jobs without GPUs are not counted.
  void wait(const JobRequest& r, int sign);
  // The GPUs of `p` are taken (sign -1) or given back (+1).
  void hold(const Placement& p, int sign);

  struct Counts {
    // Free GPUs on nodes with fewer free GPUs than the smallest per-node share of any pending GPU
    // job (0 when none waits).
    std::int64_t unusable = 0;
    // The GPU demand of pending jobs for which enough GPUs are free in total (`free`) but not
    // enough nodes have room for their share.
    std::int64_t blocked = 0;
  };
  // REQUIRES: `free` is the cluster's free GPUs. O(GPUs a node + pending shapes).
  Counts count(std::int64_t free) const;

 private:
  std::vector<std::int32_t> node_free_;      // free GPUs per node, as the facts tell
  std::vector<std::int64_t> nodes_by_free_;  // [k]: nodes with exactly k free GPUs
  // Pending GPU jobs by shape: [GPUs] of those on one node (most), and (GPUs, nodes) -> the others.
  std::vector<std::int64_t> one_node_waiting_;
  std::map<std::pair<std::int64_t, std::int32_t>, std::int64_t> waiting_;
};

}  // namespace acme
