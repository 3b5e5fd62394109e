// Greedy: every pass walks the queue oldest first and starts each job that fits now. A blocked
// job keeps its place but does not hold back the jobs behind it (no reservation, so a large job
// may wait long). This is how `replay: recorded` places jobs that the modeled cluster could not
// start at their recorded time.
//
// A pass costs O(q) in the queue length q; a job larger than all free GPUs or cores is passed
// over without a placement search.
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"

namespace acme {
namespace {

class GreedyPolicy final : public Policy {
 public:
  void on_queued(JobId job, const JobRequest&) override { queue_.push_back(job); }

  void schedule(SchedulingPass& pass) override {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < queue_.size(); ++i) {
      const JobId job = queue_[i];
      if (!pass.is_pending(job)) continue;  // withdrawn while waiting
      if (!may_fit(pass, job) || !pass.try_start(job)) queue_[kept++] = job;
    }
    queue_.resize(kept);
  }

 private:
  std::vector<JobId> queue_;
};

const PolicyRegistrar kGreedy({"greedy",
    "start every pending job that fits, oldest first; later jobs may overtake a blocked one "
    "(the scheduler of replay: recorded)",
    [](Params&) -> std::unique_ptr<Policy> { return std::make_unique<GreedyPolicy>(); }, 20});

}  // namespace

}  // namespace acme
