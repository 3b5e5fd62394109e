// TEST ONLY: a policy in a file of its own, as a newcomer would add one (policies/README.md), built
// into the test binary and into acmesim_newcomer (tests/CMakeLists.txt) and nothing else.
#include <memory>
#include <vector>

#include "policies/registry.h"

namespace acme {
namespace {

// Starts pending jobs in queue order, skipping any that does not fit.
class NewcomerPolicy final : public Policy {
 public:
  void on_queued(JobId job, const JobRequest&) override { queue_.push_back(job); }
  void schedule(SchedulingPass& pass) override {
    std::erase_if(queue_, [&](JobId j) { return !pass.is_pending(j) || pass.try_start(j); });
  }

 private:
  std::vector<JobId> queue_;
};

const PolicyRegistrar kNewcomer({"newcomer", "TEST ONLY: every pending job that fits, in queue order",
                                 [](Params&) -> std::unique_ptr<Policy> { return std::make_unique<NewcomerPolicy>(); }});

}  // namespace
}  // namespace acme
