// Capacity that changes over time, a model feature (sim/feature.h) in one module: nodes drained
// for maintenance, nodes added mid-run, leaf switches taken down (capacity.events); and the nodes
// reserved for some job types for the whole run (capacity.reserved_*: where a job may be placed is
// the cluster's, sim/cluster.h; the feature only sizes it). Hooks: timed (its events), stepped (GPUs
// in service, timeseries.csv's gpus_in_service); shape (the added and reserved nodes). On with
// events or reserved nodes; with reserved nodes only, it has no hook and no column.
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
// Times count from workload.from, or the first event of the run without one; an event over
// before the run's first event never happens. Each is held through FeatureControl (a node held
// twice, or also down for a repair, is up once nothing keeps it down).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "io/params.h"
#include "sim/cluster_spec.h"
#include "sim/feature.h"
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

// GPUs in service (Cluster::gpus_in_service) over a run: a value before the run's first step,
// then one from each time it changed on.
struct CapacityLog {
  int initial = 0;
  std::vector<std::int64_t> time_s;
  std::vector<int> gpus;
  void note(Time t, int in_service) {
    if ((gpus.empty() ? initial : gpus.back()) == in_service) return;
    if (!time_s.empty() && time_s.back() == t.sec()) gpus.back() = in_service;
    else time_s.push_back(t.sec()), gpus.push_back(in_service);
  }
  // The value at `t`.
  int at(std::int64_t t) const {
    const auto it = std::upper_bound(time_s.begin(), time_s.end(), t);
    return it == time_s.begin() ? initial : gpus[static_cast<std::size_t>(it - time_s.begin() - 1)];
  }
};

// Reads capacity.events ("drain 0-31 from 10d for 6h; add 32 from 20d; leaf 3 down from 5d for
// 2d"), capacity.drained_jobs (finish or kill) and capacity.reserved_*. Throws InputError naming
// where the key was set for a malformed item, a node past the cluster's (with the added ones) or
// a leaf it lacks.
CapacitySettings read_capacity(Params& params, const ClusterSpec& cluster);

// The feature of `settings`: none without events or reserved nodes.
std::unique_ptr<Feature> capacity_feature(const CapacitySettings& settings);

}  // namespace acme
