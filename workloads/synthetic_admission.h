// Internal to the synthetic stream (workloads/synthetic_week.cpp): closed-loop submission of large
// jobs (the model's large_jobs, workloads/synthetic.h). Not part of the workloads API.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "workloads/synthetic.h"
#include "workloads/synthetic_drafts.h"

namespace acme {

// Decides, job by job in submit order, when each large job (at least min_gpus GPUs) is submitted:
// when the drawn demand (the GPUs of every job admitted so far whose drawn run, from its submit,
// has not ended) plus its own is within max_concurrent_gpus; until then it waits, behind the large
// jobs that wait before it (FIFO). Jobs end before a release at the same instant. Smaller jobs are
// never delayed. With the rule off (LargeJobsModel::on() false), every job is admitted as it comes.
// Cost: O(log n) a GPU job (its drawn end into a min-heap), O(1) a CPU job; O(log n) a release.
// Memory: 16 bytes a GPU job in flight (ended ones stay until the next large job pops them).
class Admission {
 public:
  // No job is released at or after `end` (the window's end): drop_waiting() drops them.
  Admission(const LargeJobsModel& rule, std::int64_t end) : rule_(rule), end_(end) {}

  // Releases, in order, the waiting jobs whose time comes at or before t (and before the end; their
  // submit becomes that time) and appends them to `released`. REQUIRES: t at or after every
  // admitted job's submit.
  void release_until(std::int64_t t, std::vector<Draft>& released);
  // Whether the job is submitted now (at d.submit); if not, it waits (release_until gives it
  // back). REQUIRES: release_until(d.submit) called first.
  bool admit(const Draft& d);
  // Drops the jobs still waiting (after release_until(end - 1), those whose release would be at or
  // after the window's end); returns how many.
  std::size_t drop_waiting();

  std::size_t waiting() const { return waiting_.size(); }
  std::size_t delayed() const { return delayed_; }        // large jobs released later than drawn
  double delayed_seconds() const { return delayed_s_; }  // their delays, summed
  std::int64_t demand() const { return demand_; }  // drawn GPUs in flight at the last instant seen

 private:
  bool fits(std::int32_t gpus) const { return demand_ + gpus <= rule_.max_concurrent_gpus; }
  void start(std::int64_t at, const Draft& d);
  void pop_ended(std::int64_t t);  // every drawn end at or before t

  LargeJobsModel rule_;
  std::int64_t end_;
  std::int64_t now_ = 0;     // the instant the waiting jobs are released at
  std::int64_t demand_ = 0;  // GPUs of the jobs in ends_
  using End = std::pair<std::int64_t, std::int32_t>;  // (drawn end, GPUs)
  std::priority_queue<End, std::vector<End>, std::greater<>> ends_;
  std::deque<Draft> waiting_;
  std::size_t delayed_ = 0;
  double delayed_s_ = 0;
};

}  // namespace acme
