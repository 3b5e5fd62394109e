// Oracle policies: they read true run times (SchedulingPass::oracle_remaining), which no real
// scheduler knows, and so give lower bounds on queuing delay, not schedules to deploy.
//
// sjf: pending jobs by true run time, shortest first; each starts if it fits (later ones may
// overtake a blocked one), scanning at most policy.depth jobs past the first blocked one.
// srtf: the same order by true remaining time; in addition, when the shortest pending job does
// not fit, running jobs with longer remaining time are suspended (their progress is kept) to
// make room, longest remaining first; they rejoin the queue at the next pass.
// A pass costs O(log q) per job started plus O(depth), plus the victims considered (srtf); after
// a pass that started nothing, with no arrival, withdrawal, stop or freed room since, O(1).
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"

namespace acme {
namespace {

class ShortestFirst final : public Policy {
 public:
  ShortestFirst(Params& params, bool preemptive)
      : preemptive_(preemptive),
        depth_(static_cast<std::size_t>(params.number("depth", 256, 1, 1e9, "jobs past the first blocked one "
                                                                                "considered per pass"))) {}

  void on_queued(JobId job, const JobRequest&) override { arrivals_.push_back(job); }
  void on_withdrawn(JobId) override { changed_ = true; }
  void on_stopped(JobId job) override {
    changed_ = true;
    if (auto it = running_.find(job); it != running_.end()) {
      by_remaining_.erase({it->second, job});
      running_.erase(it);
    }
  }

  void schedule(SchedulingPass& pass) override {
    // Nothing arrived, left, started or stopped and no room came back since a pass that started
    // nothing: the same jobs are blocked, and no more running jobs outlast them than then.
    if (arrivals_.empty() && !changed_ && pass.cluster().room_freed() == room_seen_) return;
    changed_ = false;
    room_seen_ = pass.cluster().room_freed();
    admit(pass);
    std::size_t scanned = 0;
    bool blocked = false;
    for (auto it = queue_.begin(); it != queue_.end() && scanned < depth_;) {
      const JobId j = it->job;
      if (!pass.is_pending(j)) {
        it = queue_.erase(it);
        continue;
      }
      const bool first = !blocked;
      bool started = may_fit(pass, j) && pass.try_start(j);
      if (!started && first && preemptive_) started = start_by_suspending(pass, j, it->key);
      if (started) {
        changed_ = true;
        const Time end = pass.now() + pass.oracle_remaining(j);
        running_[j] = end;
        by_remaining_.insert({end, j});
        it = queue_.erase(it);
      } else {
        blocked = true;
        ++it;
      }
      if (blocked) ++scanned;
    }
  }

 private:
  void admit(const SchedulingPass& pass) {
    for (JobId j : arrivals_)
      queue_.insert({static_cast<double>(pass.oracle_remaining(j).sec()), pass.request(j).submit, j});
    arrivals_.clear();
  }

  // Suspends running jobs that will end after `j` would (longest remaining first) to start it.
  bool start_by_suspending(SchedulingPass& pass, JobId j, double remaining) {
    const Time end = pass.now() + Time::seconds(static_cast<std::int64_t>(remaining));
    std::vector<JobId> victims;
    const std::size_t budget = victim_budget(pass.request(j));
    for (auto it = by_remaining_.rbegin(); it != by_remaining_.rend() && it->first > end && victims.size() < budget; ++it)
      victims.push_back(it->second);
    return start_by_preempting(pass, j, victims, SchedulingPass::Preempt::Suspend);
  }

  bool preemptive_;
  std::size_t depth_;
  std::vector<JobId> arrivals_;
  bool changed_ = false;         // since the last pass: a withdrawal, a start or a stop
  std::uint64_t room_seen_ = 0;  // Cluster::room_freed() at the last pass
  JobQueue queue_;
  std::unordered_map<JobId, Time> running_;
  std::set<std::pair<Time, JobId>> by_remaining_;  // running jobs by true end
};

}  // namespace

std::unique_ptr<Policy> make_sjf_policy(Params& params) { return std::make_unique<ShortestFirst>(params, false); }
std::unique_ptr<Policy> make_srtf_policy(Params& params) { return std::make_unique<ShortestFirst>(params, true); }

}  // namespace acme
