// Oracle policies: they read true run times (SchedulingPass::oracle_remaining), which no real
// scheduler knows, and so give lower bounds on queuing delay, not schedules to deploy.
//
// sjf: pending jobs by true run time, shortest first; each starts if it fits (later ones may
// overtake a blocked one), scanning at most policy.depth jobs past the first blocked one.
// srtf: the same order by true remaining time; in addition, when the shortest pending job does
// not fit, running jobs with more work left are suspended (their progress is kept) to make room,
// latest end first; they rejoin the queue at the next pass. Work left is compared at full speed
// on both sides: a running job slowed down by the network ends later than its work alone says,
// and comparing its end with a queued job's work would suspend it for a job no shorter, which
// then loses to it in turn, pass after pass.
// A pass costs O(log q) per job started plus O(depth), plus the victims considered (srtf); after
// a pass that started nothing, with no arrival, withdrawal, stop or freed room since, O(1).
#include <cmath>
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

  void on_queued(JobId job, const JobRequest&) override { gate_.arrived(job); }
  void on_withdrawn(JobId) override { gate_.changed(); }
  void on_stopped(JobId job) override {
    gate_.changed();
    if (auto it = running_.find(job); it != running_.end()) {
      by_remaining_.erase({it->second.end, job});
      running_.erase(it);
    }
  }

  void schedule(SchedulingPass& pass) override {
    // Nothing arrived, left, started or stopped and no room came back since a pass that started
    // nothing: the same jobs are blocked, and no more running jobs outlast them than then.
    if (!gate_.open(pass)) return;
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
       gate_.changed();
        const Time end = pass.now() + pass.oracle_remaining(j);
        running_[j] = Running{pass.now(), end, Time::seconds(static_cast<std::int64_t>(it->key))};
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
    for (JobId j : gate_.arrivals())
      queue_.insert({static_cast<double>(pass.oracle_remaining(j).sec()), pass.request(j).submit, j});
    gate_.arrivals().clear();
  }

  // Suspends running jobs with more work left than `j` (latest end first) to start it. Work runs
  // at most at full speed, so a job with more work left than `j` also ends after now + its work.
  bool start_by_suspending(SchedulingPass& pass, JobId j, double work) {
    const Time now = pass.now(), left = Time::seconds(static_cast<std::int64_t>(work));
    std::vector<JobId> victims;
    const std::size_t budget = victim_budget(pass.request(j));
    for (auto it = by_remaining_.rbegin(); it != by_remaining_.rend() && it->first > now + left && victims.size() < budget; ++it)
      if (running_.at(it->second).work_left(now) > left) victims.push_back(it->second);
    return start_by_preempting(pass, j, victims, SchedulingPass::Preempt::Suspend);
  }

  // A running job: its work left at full speed falls from `work` at `start` to none at `end`.
  struct Running {
    Time start, end, work;
    Time work_left(Time now) const {
      if (now >= end) return Time{};
      const double share = static_cast<double>((end - now).sec()) / static_cast<double>((end - start).sec());
      return Time::seconds(static_cast<std::int64_t>(std::ceil(share * static_cast<double>(work.sec()))));
    }
  };

  bool preemptive_;
  std::size_t depth_;
  PassGate gate_;
  JobQueue queue_;
  std::unordered_map<JobId, Running> running_;
  std::set<std::pair<Time, JobId>> by_remaining_;  // running jobs by true end
};

const PolicyRegistrar kSjf({"sjf",
    "ORACLE: shortest job first by true run time, non-preemptive; a lower bound, not a real scheduler",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<ShortestFirst>(params, false); }, 60});
const PolicyRegistrar kSrtf({"srtf",
    "ORACLE: shortest remaining time first by true run time, suspending longer jobs at no cost; a "
    "lower bound, not a real scheduler",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<ShortestFirst>(params, true); }, 70});

}  // namespace

}  // namespace acme
