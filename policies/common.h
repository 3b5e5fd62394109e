// Pieces shared by policies: priority ranking, an ordered queue entry, preemption to make room.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policies/node_pool.h"
#include "io/params.h"
#include "sim/policy.h"

namespace acme {

// The bookkeeping of a policy that keeps its own queue and skips a pass that could start nothing
// (backfill, sjf, srtf): the jobs queued since its last pass, and whether a job left, started or
// stopped, or room came back, since then.
class PassGate {
 public:
  void arrived(JobId job) { arrivals_.push_back(job); }
  void changed() { changed_ = true; }  // a withdrawal, a start or a stop
  // Whether this pass may start anything: something arrived, left, started or stopped, or room
  // came back, since the last pass. Then takes note of the room and clears changed(); the caller
  // moves arrivals() into its queue and clears them.
  bool open(const SchedulingPass& pass) {
    const bool room_back = pass.cluster().room_freed() != room_seen_;
    if (arrivals_.empty() && !changed_ && !room_back) return false;
    arrivals_only_ = !changed_ && !room_back;
    changed_ = false;
    room_seen_ = pass.cluster().room_freed();
    return true;
  }
  // Whether the pass open() let through was opened by arrivals alone: nothing left, started or
  // stopped and no room came back since the last pass, which therefore started nothing (a start
  // is a change), so the jobs queued before are as blocked as they were then.
  bool arrivals_only() const { return arrivals_only_; }
  std::vector<JobId>& arrivals() { return arrivals_; }

 private:
  std::vector<JobId> arrivals_;
  bool changed_ = false;
  bool arrivals_only_ = false;
  std::uint64_t room_seen_ = 0;  // Cluster::room_freed() at the last pass
};

// A pending job in a policy's order: smaller key first, then earlier submit, then JobId.
struct QueueEntry {
  double key = 0;
  Time submit;
  JobId job = 0;
  auto operator<=>(const QueueEntry&) const = default;
};
// Pending jobs in order, from a pool of their own (policies/node_pool.h). Not copyable.
using JobQueue = PooledSet<QueueEntry>;

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

// Starts `job` by preempting some of `victims` (running jobs, most expendable first); returns
// whether it started. It plans before it stops anything: the job needs node_num nodes with
// room for its share; nodes that have room already cost nothing; any other node is opened by
// stopping its victims in order until it has room. The cheapest nodes (fewest GPUs stopped) are
// chosen, and nothing is stopped when even all victims would not open enough nodes.
// Cost: O(sum of the victims' placement sizes + n log n) over the n nodes they touch; only the
// first term when their shares on the job's nodes are too few to open enough nodes.
// REQUIRES: pass.is_pending(job); every victim is running.
bool start_by_preempting(SchedulingPass& pass, JobId job, const std::vector<JobId>& victims,
                         SchedulingPass::Preempt how);

// How many victims, at most, a policy offers start_by_preempting for a job: enough to open its
// nodes several times over, so that a pass costs O(nodes of the job), not O(running jobs).
inline std::size_t victim_budget(const JobRequest& r) { return 8 * static_cast<std::size_t>(r.node_num) + 32; }

// Whether the cluster has, in total, the GPUs and cores the job asks for: a cheap test that lets
// a pass skip the placement search for jobs that cannot start now.
inline bool may_fit(const SchedulingPass& pass, JobId job) {
  const JobRequest& r = pass.request(job);
  return r.gpu_num <= pass.cluster().free_gpus() && r.cpu_num <= pass.cluster().free_cpus();
}

// Removes from the front of `queue` the jobs that are no longer pending (withdrawn).
void drop_withdrawn(const SchedulingPass& pass, JobQueue& queue);

}  // namespace acme
