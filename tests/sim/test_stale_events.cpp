// An instant where only stale events fall (the end a preempted run would have had, the deadline
// of a job that started before it) gets no scheduling pass: how many such events the order of
// same-instant updates leaves behind must never move a schedule (sim/simulation.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "harness.h"

namespace acme::test {
namespace {

// Starts pending jobs in arrival order; the job named to preempt suspends every running job
// first (they queue again for the next pass). Records the time of every pass.
class PassLog final : public Policy {
 public:
  PassLog(std::vector<Time>& passes, JobId preempting) : passes_(passes), preempting_(preempting) {}
  void on_queued(JobId job, const JobRequest&) override { queue_.push_back(job); }
  void on_stopped(JobId job) override { running_.erase(std::remove(running_.begin(), running_.end(), job), running_.end()); }
  void schedule(SchedulingPass& pass) override {
    passes_.push_back(pass.now() - kGoldenBase);
    std::vector<JobId> looked_at, waiting;
    looked_at.swap(queue_);  // jobs preempted now queue again, for the next pass
    for (JobId j : looked_at) {
      if (!pass.is_pending(j)) continue;
      if (j == preempting_)
        while (!running_.empty()) pass.preempt(running_.front(), SchedulingPass::Preempt::Suspend);
      if (pass.try_start(j)) running_.push_back(j);
      else waiting.push_back(j);
    }
    queue_.insert(queue_.begin(), waiting.begin(), waiting.end());
  }

 private:
  std::vector<Time>& passes_;
  JobId preempting_;
  std::vector<JobId> queue_, running_;
};


}  // namespace

TEST_CASE("No pass at an instant of stale events only", "[core][stale]") {
  // One node of 8 GPUs. long (8 GPUs, 100 s) starts at 0. short (8 GPUs, 10 s) arrives at 10 and
  // suspends long, ends at 20; long resumes with 90 s left and ends at 110. Its first run's end,
  // 100, is stale. cpu (no GPU, 5 s) starts at 0, ends at 5; its deadline to give up waiting,
  // 50, is stale too. Passes: 0, 5, 10, 20 (short's end; long resumes), 110; none at 50 or 100.
  const Time t0 = kGoldenBase;
  Workload w;
  const JobId long_job = w.add("long", JobRequest{t0, 8, 1, 4, JobType::Pretrain, 0}, runs_for(100));
  JobProfile gives_up = runs_for(5);
  gives_up.set_cancel_pending_at(t0 + Time::seconds(50));
  w.add("cpu", JobRequest{t0, 0, 1, 4, JobType::CPU, 0}, gives_up);
  const JobId short_job = w.add("short", JobRequest{t0 + Time::seconds(10), 8, 1, 4, JobType::Eval, 0}, runs_for(10));
  std::vector<Time> passes;
  Simulation sim(w, small_cluster(1), std::make_unique<PassLog>(passes, short_job), ReplayMode::Policy);
  sim.run();
  sim.check_conservation();
  const std::vector<Time> expected = {Time::seconds(0), Time::seconds(5), Time::seconds(10), Time::seconds(20),
                                      Time::seconds(110)};
  CHECK(passes == expected);
  CHECK(sim.outcomes()[long_job].end == t0 + Time::seconds(110));
  CHECK(sim.outcomes()[short_job].end == t0 + Time::seconds(20));
}

}  // namespace acme::test
