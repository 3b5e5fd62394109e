// Where the time of a training job goes: the ledger the Simulation keeps, with failures on, for
// the jobs of the types that checkpoint (failures.checkpoint.<Type>), read by training.csv.
//
// From a job's first start (after its first launch) to its end, every second is one of: training
// that is kept (the job's work, at full speed), a checkpoint stall, compute lost to a failure or to
// an eviction (since the last safe save), a failure's detection and diagnosis, waiting to be placed again, launching
// again, a restart phase (communicator initialisation, checkpoint load, warm-up), or what is left:
// running slower than full speed (the network's slowdown, a power cap) and work lost to
// preemption. The effective training time is the kept training over that span (MegaScale's
// "effective training time ratio", Llama 3's "effective training time").
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/job.h"
#include "sim/time.h"

namespace acme {

struct TrainingTimes {  // seconds of one job
  std::int64_t launch = 0;    // launching again after a failure or a preemption
  std::int64_t stall = 0;     // checkpoint saves
  std::int64_t lost = 0;      // compute since the last safe save, lost to failures
  std::int64_t evicted = 0;   // the same, lost to evictions of slow nodes (stragglers.mitigation: evict)
  std::int64_t detect = 0, diagnose = 0;   // a failure's recovery delay, in order
  std::int64_t wait = 0;      // queued again after a failure or a preemption, until placed
  std::int64_t comm_init = 0, load = 0, warmup = 0;  // the restart phases of runs after failures
};

class TrainingLedger {
 public:
  // The job's times, made (zero) on first use.
  TrainingTimes& of(JobId job) { return times_[job]; }
  const TrainingTimes* find(JobId job) const {
    const auto it = times_.find(job);
    return it == times_.end() ? nullptr : &it->second;
  }
  // The jobs it holds, in JobId order.
  std::vector<JobId> jobs() const {
    std::vector<JobId> out;
    out.reserve(times_.size());
    for (const auto& entry : times_) out.push_back(entry.first);
    std::sort(out.begin(), out.end());
    return out;
  }

  // Since when the job is recovering (from its failure) or queued again (Simulation's bookkeeping).
  Time& since(JobId job) { return since_[job]; }
  void forget_since(JobId job) { since_.erase(job); }

 private:
  std::unordered_map<JobId, TrainingTimes> times_;
  std::unordered_map<JobId, Time> since_;
};

}  // namespace acme
