// Where the time of a training job goes, part by part: what the core tells the features of the runs
// and restarts of the jobs of the types that checkpoint (failures.checkpoint.<Type>), with failures
// on (Feature::kTrained); the failures feature keeps each job's sums (features/training_ledger.h),
// which training.csv reads.
//
// From a job's first start (after its first launch) to its end, every second is one of: training
// that is kept (the job's work, at full speed), a checkpoint stall, compute lost to a failure or to
// an eviction (since the last safe save), a failure's detection and diagnosis, waiting to be placed again, launching
// again, a restart phase (communicator initialisation, checkpoint load, warm-up), or what is left:
// running slower than full speed (the network's slowdown, a power cap) and work lost to
// preemption. The effective training time is the kept training over that span (MegaScale's
// "effective training time ratio", Llama 3's "effective training time").
#pragma once

#include <cstdint>

namespace acme {

struct TrainingTimes {  // seconds of one job, or of one of its runs
  std::int64_t launch = 0;    // launching again after a failure or a preemption
  std::int64_t stall = 0;     // checkpoint saves
  std::int64_t lost = 0;      // compute since the last safe save, lost to failures
  std::int64_t evicted = 0;   // the same, lost to evictions of slow nodes (stragglers.mitigation: evict)
  std::int64_t detect = 0, diagnose = 0;   // a failure's recovery delay, in order
  std::int64_t wait = 0;      // queued again after a failure or a preemption, until placed
  std::int64_t comm_init = 0, load = 0, warmup = 0;  // the restart phases of runs after failures

  TrainingTimes& operator+=(const TrainingTimes& o) {
    launch += o.launch;
    stall += o.stall;
    lost += o.lost;
    evicted += o.evicted;
    detect += o.detect;
    diagnose += o.diagnose;
    wait += o.wait;
    comm_init += o.comm_init;
    load += o.load;
    warmup += o.warmup;
    return *this;
  }
};

// Where a training job is between its runs, as the core tells the features (Feature::training_step).
enum class TrainingStep : std::uint8_t {
  Failed,     // a failure stopped its run now: its recovery (detection, then diagnosis) begins
  Recovered,  // its recovery is over (or was cut short): it is queued again from now
  Requeued,   // preempted, or evicted from its slow nodes, now: queued again from now
  Placed,     // placed again now, after one of the above: its wait is over
};

}  // namespace acme
