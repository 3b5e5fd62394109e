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
//
// And one thing the outputs read (not a hook): first_launches(), each job's first launch
// latency, which splits queue_s into wait_s and launch_s (sim/outcome.h); none from most features.
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
  enum Hook : unsigned { kPlaced = 1u << 0, kJobsAdded = 1u << 1 };

  virtual ~Feature() = default;
  // Which of the hooks above the Simulation calls (begin is called for every feature).
  virtual unsigned hooks() const = 0;

  virtual void begin(const FeatureRun&) {}
  virtual Time placed(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, const JobRequest&) { return {}; }
  virtual void jobs_added() {}

  // Each job's first launch latency for the outputs, valid while the feature lives; null: none.
  virtual const FirstLaunchSource* first_launches() const { return nullptr; }
};

}  // namespace acme
