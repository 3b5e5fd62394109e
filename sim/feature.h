// The model-feature contract: a part of the model a run may have or not (a launch latency; later
// power, failures, the network, capacity changes), in one module of its own under features/.
//
// A feature owns its state and reads its own keys (io/feature_registry.h registers it; its factory
// returns none when the feature is off). The Simulation owns the features of its run
// (Simulation::add_feature) and calls, of each, only the hooks its hooks() names, in the order the
// features were added; a feature that is off is not in the list and costs nothing, and a hook no
// feature has costs one empty loop where it would be called. The hooks, the only ones the loop
// calls (each added when a migrated feature first needs it):
//
//  - begin(run): once, at the first step, before its events. `run` names the workload, the lock
//    it grows under and the jobs expected, for a feature that works ahead on a thread of its own.
//  - placed(job, key, start, request) [kPlaced]: the job was placed for run number `start` (0: its
//    first) and holds its resources from now: returns how long after now it starts running (the
//    run's time before it computes). The sum over the features is the run's delay.
//  - jobs_added() [kJobsAdded]: a feed (Simulation::set_feed) appended jobs to the workload (also
//    before begin: set_feed takes in the first jobs).
//  - run_started(job, key, start, request, now) [kPaced]: run number `start` of the job was placed
//    now: returns its Pace from now (the factor its rate is divided by, >= 1, and when that
//    changes next; Time::max(): never). The core multiplies the features' factors with the network's
//    slowdown and the power cap's clock (the rates multiply), and at `next` (if the run is still
//    on then and could still be computing) calls
//  - paced(job, key, start, started, now, may_stop) [kPaced]: the Pace from now of run number
//    `start`, placed at `started`, with its next change; called at a change the feature asked for. The core
//    retimes the job (Simulation::retime: its end moves, the work done is kept) and charges the
//    slowness: a factor f over c compute seconds costs c x (1 - 1/f) of the job's GPU-seconds,
//    wasted with the causes of waste_causes() (the first of them).
//    A Pace may also ask the core to stop the run now (`stop`, from paced() only, and only when
//    `may_stop`: false for a job that saves no checkpoints, which would start over, and once
//    stops and failures have kept no progress kMaxFailures times in a row, sim/failures.h, so
//    that a job that can keep nothing still ends): Evict, the
//    run stops as a failure that takes none of the cluster's nodes down (it keeps the compute
//    its last safe checkpoint covers, the rest is wasted with the pace's cause; no recovery
//    delay: the feature's own delay came first) and the job gives back its nodes and is queued;
//    Replace, the same stop but the job keeps its placement (spares took the place of the nodes
//    out) and its next run starts at once. Either way that run pays the restart phases
//    (sim/checkpoints.h) as after a failure (features/stragglers.h: eviction of slow nodes).
//  - run_stopped(job, lost_s) [kPaced]: the run stopped (ended, preempted, failed); `lost_s`: the
//    compute seconds its slowness cost that the job kept (after a failure, the part before its
//    last checkpoint, in proportion), for the feature's per-job outputs.
//
// And what the outputs read (not hooks): first_launches(), each job's first launch latency, which
// splits queue_s into wait_s and launch_s (sim/outcome.h), none from most features; slowness(),
// each job's compute seconds lost to slowness (jobs.csv's straggler_s, only when one gives it); and
// waste_causes(), the causes of wasted GPU-time a feature adds (bits of WasteCause): the outputs
// list those only in runs with a feature that names them, so a run without it writes what it
// wrote before the cause existed (Conservation::causes_listed).
//
// A hook runs on the simulation's thread, inside a step; it must not throw except for a bug
// (std::logic_error) and must draw nothing from a shared generator: every draw is keyed by the
// job (job_key), so that the outputs stay the same under any policy, row order and thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <shared_mutex>

#include "sim/job.h"
#include "sim/outcome.h"
#include "sim/time.h"

namespace acme {

// What a feature sees of its run when it begins.
struct FeatureRun {
  const Workload& workload;  // grows while a feed appends to it: read from another thread holding `growth` shared
  std::shared_mutex& growth;
  std::size_t expected_jobs;  // the workload's jobs, or the room made for a feed's
};

class Feature {
 public:
  // The hooks a feature has, as bits of hooks().
  enum Hook : unsigned { kPlaced = 1u << 0, kJobsAdded = 1u << 1, kPaced = 1u << 2 };
  // A run's pace: its rate is divided by `factor` from now until `next`; or the run stops now.
  enum class Stop : std::uint8_t { None, Evict, Replace };
  struct Pace {
    double factor = 1.0;
    Time next = Time::max();
    Stop stop = Stop::None;
  };

  virtual ~Feature() = default;
  // Which of the hooks above the Simulation calls (begin is called for every feature).
  virtual unsigned hooks() const = 0;

  virtual void begin(const FeatureRun&) {}
  virtual Time placed(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, const JobRequest&) { return {}; }
  virtual void jobs_added() {}
  virtual Pace run_started(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, const JobRequest&, Time /*now*/) {
    return {};
  }
  virtual Pace paced(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, Time /*started*/, Time /*now*/,
                     bool /*may_stop*/) {
    return {};
  }
  virtual void run_stopped(JobId, double /*lost_s*/) {}

  // Each job's first launch latency for the outputs, valid while the feature lives; null: none.
  virtual const FirstLaunchSource* first_launches() const { return nullptr; }
  // Each job's compute seconds lost to slowness for the outputs (jobs.csv's straggler_s), valid
  // while the feature lives; null: none.
  virtual const JobSlownessSource* slowness() const { return nullptr; }
  // The causes of waste the feature adds to the outputs, as bits 1 << WasteCause; none from most.
  virtual std::uint32_t waste_causes() const { return 0; }
};

}  // namespace acme
