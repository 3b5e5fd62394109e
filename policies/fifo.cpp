// FIFO: jobs start in the order they were queued. When the oldest pending job does not fit, no
// other job starts (no backfill), so a large job blocks the queue until enough GPUs are free.
// A pass costs O(1) plus O(1) per job started or skipped as withdrawn.
#include <deque>

#include "policies/registry.h"

namespace acme {
namespace {

class FifoPolicy final : public Policy {
 public:
  void on_queued(JobId job, const JobRequest&) override { queue_.push_back(job); }

  void schedule(SchedulingPass& pass) override {
    while (!queue_.empty()) {
      const JobId head = queue_.front();
      if (!pass.is_pending(head)) {  // withdrawn while waiting
        queue_.pop_front();
        continue;
      }
      if (!pass.try_start(head)) return;
      queue_.pop_front();
    }
  }

 private:
  std::deque<JobId> queue_;
};

const PolicyRegistrar kFifo({"fifo",
    "strict first-in first-out: the oldest pending job starts first; nothing overtakes it",
    [](Params&) -> std::unique_ptr<Policy> { return std::make_unique<FifoPolicy>(); }, 10});

}  // namespace

}  // namespace acme
