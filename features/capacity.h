// Capacity that changes over time (keys capacity.*, read by io/capacity_keys.h): nodes drained
// for maintenance, nodes added mid-run, leaf switches taken down; and capacity reserved for some
// job types for the whole run (sim/cluster.h).
//
//  - Drain nodes first..last from `at` for `duration`: they take no new job. With
//    drained_jobs: finish (the default) their running jobs run to their end and each node goes
//    down once empty; with kill, the jobs are preempted at once (killed: queued again, the run
//    wasted as preemption) and the nodes go down. All come back when the drain is over.
//  - Add `count` nodes at `at`: the cluster holds them from the start, numbered after the
//    cluster file's nodes and down until then (summary.csv's cluster_gpus counts them).
//  - Take leaf switch `leaf` down from `at` for `duration`: with network contention, as a network
//    fault (routes move, cut-off nodes stop their jobs); without, the nodes it cuts off stop
//    their jobs as a failed node does and are down meanwhile.
// Times count from workload.from, or the first release without one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace acme {

struct CapacityEvent {
  enum class Kind { Drain, Add, LeafDown };
  Kind kind = Kind::Drain;
  int first = 0, last = 0;  // Drain: the nodes; Add: `first` is the count; LeafDown: `first` is the leaf
  Time at;
  Time duration;  // Drain, LeafDown
};

struct CapacitySettings {
  std::vector<CapacityEvent> events;
  bool kill_drained = false;  // capacity.drained_jobs: kill (else finish)
  // Nodes reserved for some job types (ClusterSpec::reserved_nodes, reserved_types).
  int reserved_nodes = 0;
  std::uint32_t reserved_types = 0;
  bool reserved_spill = false;
  int added_nodes() const {
    int n = 0;
    for (const CapacityEvent& e : events) n += e.kind == CapacityEvent::Kind::Add ? e.first : 0;
    return n;
  }
};

// GPUs in service (Cluster::gpus_in_service) over a run: a value from each time on.
struct CapacityLog {
  std::vector<std::int64_t> time_s;
  std::vector<int> gpus;
  void note(Time t, int in_service) {
    if (!gpus.empty() && gpus.back() == in_service) return;
    if (!time_s.empty() && time_s.back() == t.sec()) gpus.back() = in_service;
    else time_s.push_back(t.sec()), gpus.push_back(in_service);
  }
  // The value at `t` (the first one before the first change).
  int at(std::int64_t t) const {
    const auto it = std::upper_bound(time_s.begin(), time_s.end(), t);
    return gpus.empty() ? 0 : gpus[static_cast<std::size_t>(it == time_s.begin() ? 0 : it - time_s.begin() - 1)];
  }
};

}  // namespace acme
