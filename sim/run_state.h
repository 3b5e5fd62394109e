// What the Simulation (sim/simulation.h) keeps of a job's runs: what they carry from one to the
// next, the current run's times, its progress once its rate changed, and where it is in
// its checkpoint saves when they are events. Plain data; the Simulation's files give it meaning.
#pragma once

#include <cstdint>

#include "sim/checkpoints.h"
#include "sim/time.h"

namespace acme {

// What a job's runs carry from one to the next. Kept only for a job stopped at least once
// (preempted, or struck by a failure): for the others, most jobs, it is implied by the workload
// and the outcome (Simulation::run_of), so that a million jobs that run once cost nothing here.
struct RunCarry {
  Time remaining;  // work still needed when the current (or next) run started, seconds at full speed
  std::uint32_t starts = 0;  // runs started so far: tags this run's events, keys failure draws
  // Restart overhead at the start of the current run, seconds; -1 from a failure to the next
  // start (which then reloads).
  std::int32_t overhead_s = 0;
  CheckpointModel::Restore restore = CheckpointModel::Restore::Storage;  // where that reload reads
  // Failures and evictions in a row that kept no progress (sim/failures.h, kMaxFailures).
  std::uint16_t barren = 0;
};

// A run whose rate changed: the work done up to its last change and when it now ends.
struct RunProgress {
  double work = 0;     // full-speed seconds computed up to compute_mark
  Time compute_mark;   // compute seconds of the run at the last change
  Time end_at;         // when it now ends: its JobEnd event, unless its failure strikes first
};

// The current run: kept per slot of held_, valid while the job holds its slot (running, or
// recovering while holding part of what it held), so that jobs not running cost nothing here.
struct CurrentRun {
  Time started;    // start of the current run (of the recovery, once it failed)
  double slowdown = 1.0;
  double net = 1.0;  // the network's factor of the run (FeatureControl::set_network_factor)
  std::int32_t launch_s = 0;  // from placement until it runs (SchedulingPass::try_start)
  std::int32_t fails_after_s = -1;  // when its drawn failure strikes, after `started`; -1: none
  // With features that pace runs (Feature::kPaced): the product of their factors now, the
  // compute seconds of the run at its last change, the compute seconds its slowness cost so far,
  // and the next change not yet in the event queue (Time::max(): none, or queued).
  double pace = 1.0;
  Time pace_mark;
  double pace_lost = 0;
  Time pace_next = Time::max();
  // Once its rate changed (Simulation::move_end), `progress` holds its work and end.
  bool retimed = false;
  RunProgress progress;
};

// Where a run is in its saves when they are events (CheckpointSettings::shared_storage): after a
// failure it may first read its checkpoint from storage (loading), then it computes for an
// interval, stalls for a save (its write, or its copy to host memory), computes again. Times of
// the run before phase_start are summed in compute and stall.
struct SaveClock {
  Time phase_start;        // when the current phase began (the first: after launch and restart; max while loading)
  bool stalled = false;    // in a save's stall, else computing
  bool loading = false;    // its restore read is to come or in flight
  Time compute, stall;     // before phase_start
  Time out_at;             // when the last save left its stall
  std::uint32_t begun = 0, stalled_out = 0, written = 0;  // saves started, past their stall, written
  std::int64_t write = -1;  // its transfer the run waits for (a sync save's write, or its restore read), or -1
  Time load_from = Time::max(), load_end = Time::max();  // its restore read: began, ended (max: not yet)
};

}  // namespace acme
