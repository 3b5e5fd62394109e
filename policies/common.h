// Pieces shared by policies: priority ranking, an ordered queue entry, preemption to make room.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/params.h"
#include "sim/policy.h"

namespace acme {

// A pending job in a policy's order: smaller key first, then earlier submit, then JobId.
struct QueueEntry {
  double key = 0;
  Time submit;
  JobId job = 0;
  auto operator<=>(const QueueEntry&) const = default;
};
using JobQueue = std::set<QueueEntry>;

// Priorities per job type and per user, with optional aging. A job's effective priority at time
// t is type + user priority + aging_per_hour x hours waited; ranking by it is the same at every
// t, so key() is a constant: -(priority - aging x submit hours).
// Reads policy.type_priority.<Type>, policy.user_priority.<user>, policy.aging_per_hour.
class PriorityRanking {
 public:
  explicit PriorityRanking(Params& params);
  double priority_of(const SchedulingPass& pass, JobId job) const;  // type + user, no aging
  double type_priority(JobType t) const { return by_type_[static_cast<std::size_t>(t)]; }
  double key(const SchedulingPass& pass, JobId job) const;

 private:
  std::vector<double> by_type_;
  std::unordered_map<std::string, double> by_user_;
  double aging_per_hour_;
};

// Preempts `victims`, in order, until `job` starts; returns whether it started. Does nothing when
// the free GPUs and cores plus the victims' cannot cover the job. REQUIRES: pass.is_pending(job).
bool start_by_preempting(SchedulingPass& pass, JobId job, const std::vector<JobId>& victims,
                         SchedulingPass::Preempt how);

// Removes from the front of `queue` the jobs that are no longer pending (withdrawn).
void drop_withdrawn(const SchedulingPass& pass, JobQueue& queue);

}  // namespace acme
