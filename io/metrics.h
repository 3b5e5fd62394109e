// Run statistics: queuing delay, utilization and wasted GPU-time, for all jobs and per type.
//
// Definitions (also in configs/README.md, "Outputs"):
//  - queuing delay: start - submit, over GPU jobs that started; percentiles are nearest-rank.
//    Its parts: the wait to be placed and the launch latency of the first start (wait_*, launch_*).
//  - the window: [workload.from, workload.to) when given; otherwise from the first submit to
//    the last job end. Utilization is allocated GPU-time inside the window over GPUs x window.
//  - wasted GPU-time: GPU-time of jobs that ended FAILED, TIMEOUT or NODE_FAIL, plus work lost
//    to preemption (wasted_by_cause.csv splits it by cause).
//  - replay delay (recorded replay only): start - recorded start, for jobs that could not start
//    on the modeled cluster when they started in the trace.
//  - fairness (io/fairness.h): Jain's index of the users' mean slowdowns (in a type's row,
//    of their jobs of that type) over users with at least one slowdown; in the run's row only,
//    Jain's index of the types' mean slowdowns over types with one; and the share of started GPU
//    jobs whose queuing delay exceeded one hour. None (a blank cell) where there is nothing to
//    average.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "sim/outcome.h"

namespace acme {

struct Stats {
  std::uint64_t jobs = 0;
  std::uint64_t gpu_jobs = 0;
  std::uint64_t started = 0;
  double queue_mean_s = 0;
  std::int64_t queue_p50_s = 0, queue_p90_s = 0, queue_p99_s = 0, queue_max_s = 0;
  // The queuing delay's two parts (sim/outcome.h, queue_parts): waiting to be placed, launching.
  double wait_mean_s = 0, launch_mean_s = 0;
  std::int64_t wait_p50_s = 0, wait_p90_s = 0, wait_p99_s = 0, launch_p50_s = 0, launch_p99_s = 0, launch_max_s = 0;
  double gpu_hours = 0;
  double gpu_util_pct = 0;
  double wasted_gpu_hours = 0;
  std::uint64_t preemptions = 0;
  std::int64_t makespan_s = 0;
  std::uint64_t replay_delayed_jobs = 0;
  double replay_delay_mean_s = 0;
  std::array<std::uint64_t, kJobStateCount> by_state{};
  std::optional<double> jain_slowdown_users;
  std::optional<double> jain_slowdown_types;  // the run's row only
  std::optional<double> waiting_over_1h_pct;
};

struct RunSummary {
  Time window_start, window_end;
  Stats all;
  std::array<Stats, kJobTypeCount> by_type;
};

// The summary built job by job, in JobId order (add: the next job; a sink adds them as they end,
// on a thread of its own), then finished with the run's totals: what summarize gives. O(1) a job
// (queuing delays are counted, io/delays.h), O(job types x users) at the end, plus one more pass
// over the jobs when a percentile falls past 4.5 hours; about 1 MiB.
class SummaryBuilder {
 public:
  SummaryBuilder();
  ~SummaryBuilder();
  // Adds job added() of `w`. REQUIRES: it has ended.
  void add(const Workload& w, const std::vector<JobOutcome>& outcomes, ReplayMode replay, const FirstLaunches& launches);
  std::size_t added() const { return added_; }
  // Adds the jobs not added yet, then the run's totals.
  RunSummary finish(const RunRecord& run);

 private:
  struct Parts;
  std::unique_ptr<Parts> p_;
  std::size_t added_ = 0;
};

// SummaryBuilder over every job. O(jobs + job types x users).
RunSummary summarize(const RunRecord& run);

// The nearest-rank percentile `pct` (1..100) of `v`: its ceil(n x pct / 100)-th smallest value
// (the smallest when that is 0); 0 for an empty `v`. Reorders `v`. O(n).
std::int64_t nearest_rank(std::span<std::int64_t> v, int pct);

}  // namespace acme
