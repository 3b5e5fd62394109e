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
// A pass costs O(log q) per job started, plus O(g) over the g shapes queued (only the jobs
// of shapes that fit are looked at: policies/shaped_queue.h), plus the victims considered (srtf);
// after a pass that started nothing, with no arrival, withdrawal, stop or freed room since, O(1).
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"
#include "policies/shaped_queue.h"

namespace acme {
namespace {

class ShortestFirst final : public Policy {
 public:
  ShortestFirst(Params& params, bool preemptive)
      : preemptive_(preemptive),
        depth_(static_cast<std::size_t>(params.number("depth", 256, 1, 1e9, "jobs past the first blocked one "
                                                                                "considered per pass"))) {}

  void on_queued(JobId job, const JobRequest&) override { gate_.arrived(job); }
  void on_withdrawn(JobId job) override {  // withdrawn jobs do not count in the window
    gate_.changed();
    queue_.erase(job);
  }
  void on_stopped(JobId job) override {
    gate_.changed();
    if (auto it = running_.find(job); it != running_.end()) {
      by_remaining_.erase({it->second.end, it->second.submit, job});
      running_.erase(it);
    }
  }

  void schedule(SchedulingPass& pass) override {
    // Nothing arrived, left, started or stopped and no room came back since a pass that started
    // nothing: the same jobs are blocked, and no more running jobs outlast them than then.
    if (!gate_.open(pass)) return;
    admit(pass);
    // The jobs in order while they start (the first that does not may suspend others, srtf).
    while (!queue_.empty()) {
      const QueueEntry first = queue_.front();
      const bool started = (may_fit(pass, first.job) && pass.try_start(first.job)) ||
                           (preemptive_ && start_by_suspending(pass, first.job, first.key));
      if (!started) break;
      record_start(pass, first);
      queue_.erase(first.job);
    }
    if (queue_.empty()) return;
    // Then the depth_ - 1 jobs behind the blocked one: each starts if it fits (shapes that do not
    // fit are not looked at).
    const QueueEntry blocked = queue_.front();
    queue_.visit_fitting(pass, blocked, queue_.nth(depth_), [&](JobId j) {
      if (!pass.try_start(j)) return ShapedQueue::Step::Keep;
      record_start(pass, queue_.entry_of(j));
      return ShapedQueue::Step::Take;
    });
  }

 private:
  void admit(const SchedulingPass& pass) {
    for (JobId j : gate_.arrivals())  // a job withdrawn before it was admitted never counted in a window
      if (pass.is_pending(j))
        queue_.insert(pass, {static_cast<double>(pass.oracle_remaining(j).sec()), pass.request(j).submit, j});
    gate_.arrivals().clear();
  }

  // The job of `e` started now: its true end is followed (the caller takes it out of the queue).
  void record_start(const SchedulingPass& pass, QueueEntry e) {
    gate_.changed();
    const Time end = pass.now() + pass.oracle_remaining(e.job);
    running_[e.job] = Running{pass.now(), end, Time::seconds(static_cast<std::int64_t>(e.key)), e.submit};
    by_remaining_.insert({end, e.submit, e.job});
  }

  // Suspends running jobs with more work left than `j` (latest end first) to start it. Work runs
  // at most at full speed, so a job with more work left than `j` also ends after now + its work.
  // A plan that failed fails again for the same job and victims while no room came back (room
  // only shrank, and the victims hold what they held): it is not made again.
  bool start_by_suspending(SchedulingPass& pass, JobId j, double work) {
    const Time now = pass.now(), left = Time::seconds(static_cast<std::int64_t>(work));
    victims_.clear();
    const std::size_t budget = victim_budget(pass.request(j));
    for (auto it = by_remaining_.rbegin(); it != by_remaining_.rend() && std::get<0>(*it) > now + left && victims_.size() < budget; ++it)
      if (running_.at(std::get<2>(*it)).work_left(now) > left) victims_.push_back(std::get<2>(*it));
    const std::uint64_t room = pass.cluster().room_freed();
    if (failed_.job == j && failed_.room == room && failed_.victims == victims_) return false;
    if (start_by_preempting(pass, j, victims_, SchedulingPass::Preempt::Suspend)) return true;
    failed_ = {j, room, victims_};
    return false;
  }

  // A running job: its work left at full speed falls from `work` at `start` to none at `end`.
  struct Running {
    Time start, end, work, submit;
    Time work_left(Time now) const {
      if (now >= end) return Time{};
      const double share = static_cast<double>((end - now).sec()) / static_cast<double>((end - start).sec());
      return Time::seconds(static_cast<std::int64_t>(std::ceil(share * static_cast<double>(work.sec()))));
    }
  };

  bool preemptive_;
  std::size_t depth_;
  PassGate gate_;
  ShapedQueue queue_;
  std::unordered_map<JobId, Running> running_;
  // Running jobs by true end, then submit time (ties by the row only for same-second submissions).
  std::set<std::tuple<Time, Time, JobId>> by_remaining_;
  std::vector<JobId> victims_;                     // start_by_suspending's, kept to reuse its memory
  struct FailedPlan {
    JobId job = 0;
    std::uint64_t room = ~std::uint64_t{0};  // Cluster::room_freed() then
    std::vector<JobId> victims;
  } failed_;  // the last plan that did not start its job
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
