// Each training job's time by part (sim/training.h), summed over its runs and restarts: the
// failures feature's ledger (features/failures.h), which training.csv reads.
#pragma once

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "sim/job.h"
#include "sim/time.h"
#include "sim/training.h"

namespace acme {

class TrainingLedger {
 public:
  // A run of the job stopped, its time split as `parts` (made zero on the job's first).
  void add(JobId job, const TrainingTimes& parts) { times_[job] += parts; }
  // The job moved between its runs at `now`; a failure's recovery is split into `detection` (at
  // most) then diagnosis.
  void step(JobId job, TrainingStep step, Time now, Time detection) {
    TrainingTimes& t = times_[job];
    switch (step) {
      case TrainingStep::Failed:
      case TrainingStep::Requeued:
        since_[job] = now;  // recovering, or queued again
        return;
      case TrainingStep::Recovered: {
        Time& since = since_[job];
        const Time detect = std::min(now - since, detection);
        t.detect += detect.sec();
        t.diagnose += (now - since - detect).sec();
        since = now;  // queued again from now
        return;
      }
      case TrainingStep::Placed:
        t.wait += (now - since_[job]).sec();
        since_.erase(job);
        return;
    }
  }

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

 private:
  std::unordered_map<JobId, TrainingTimes> times_;
  std::unordered_map<JobId, Time> since_;  // since when a job is recovering, or queued again
};

}  // namespace acme
