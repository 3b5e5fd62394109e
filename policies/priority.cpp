// Priority: pending jobs in order of effective priority (see PriorityRanking), then submit time.
// The first job that does not fit blocks those behind it, as in FIFO. With policy.preemptive,
// a blocked job may preempt (kill) running jobs of lower effective priority, lowest priority and
// latest start first, when that frees enough GPUs and cores.
// A pass costs O(log q) per job started, plus the victims considered when preemptive.
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"

namespace acme {
namespace {

class PriorityPolicy final : public Policy {
 public:
  explicit PriorityPolicy(Params& params)
      : ranking_(params), preemptive_(params.flag("preemptive", false, "preempt lower-priority running jobs")) {}

  void on_queued(JobId job, const JobRequest&) override { arrivals_.push_back(job); }
  void on_stopped(JobId job) override {
    if (auto it = running_.find(job); it != running_.end()) {
      by_rank_.erase({it->second.first, it->second.second, job});
      running_.erase(it);
    }
  }

  void schedule(SchedulingPass& pass) override {
    for (admit(pass); !queue_.empty(); admit(pass)) {
      const QueueEntry head = *queue_.begin();
      if (!pass.try_start(head.job) && !(preemptive_ && start_over_lower(pass, head))) return;
      queue_.erase(queue_.begin());
      const Time start = pass.now();
      running_[head.job] = {head.key, start};
      by_rank_.insert({head.key, start, head.job});
    }
  }

  // Ranks the jobs queued since (preempted ones too) and drops withdrawn ones from the front.
  void admit(const SchedulingPass& pass) {
    for (JobId j : arrivals_) queue_.insert({ranking_.key(pass, j), pass.request(j).submit, j});
    arrivals_.clear();
    drop_withdrawn(pass, queue_);
  }

 private:
  // Running jobs ranked after `head`, lowest priority first, then latest start first.
  bool start_over_lower(SchedulingPass& pass, const QueueEntry& head) {
    std::vector<JobId> victims;
    const std::size_t budget = victim_budget(pass.request(head.job));
    for (auto it = by_rank_.rbegin(); it != by_rank_.rend() && it->key > head.key && victims.size() < budget; ++it)
      victims.push_back(it->job);
    return start_by_preempting(pass, head.job, victims, SchedulingPass::Preempt::Kill);
  }

  PriorityRanking ranking_;
  bool preemptive_;
  std::vector<JobId> arrivals_;
  JobQueue queue_;
  std::unordered_map<JobId, std::pair<double, Time>> running_;  // job -> (key, start)
  JobQueue by_rank_;  // running jobs as (key, start, job)
};

const PolicyRegistrar kPriority({"priority",
    "highest priority first (per job type and user, with optional aging), strict order; "
    "optionally preempts lower-priority jobs",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<PriorityPolicy>(params); }, 30});

}  // namespace

}  // namespace acme
