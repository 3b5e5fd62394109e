// Fairness: each user's queuing and slowdown (users.csv), and Jain's index over users and over
// job types (summary.csv, summary_by_type.csv).
//
// Definitions (also in configs/README.md, "Outputs"):
//  - a job's queuing delay is start - submit (as summary.csv's), over GPU jobs that started;
//  - its slowdown is (queue + run) / run with run = end - start (its whole stay after its first
//    start: a preempted job's requeued wait counts as run). A job with run 0 has no slowdown and
//    is skipped in every slowdown figure (its queuing delay still counts);
//  - a long wait is a queuing delay of more than kLongWait (3600 s), strictly;
//  - Jain's index of x_1..x_n is (sum x)^2 / (n * sum x^2): 1 when all are equal, 1/n when one
//    holds everything.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sim/outcome.h"

namespace acme {

inline constexpr Time kLongWait = Time::hours(1);

// The slowdown of job `job` of `run`, or none: a CPU job, a job that never started or has no
// end, or one whose run is 0. O(1).
std::optional<double> slowdown_of(const Workload& w, const std::vector<JobOutcome>& outcomes, JobId job);
inline std::optional<double> slowdown_of(const RunRecord& run, JobId job) { return slowdown_of(run.workload, run.outcomes, job); }

// Jain's index of `x`; none when `x` is empty or sums to 0. REQUIRES: every x >= 0. O(n).
std::optional<double> jain_index(std::span<const double> x);

// Means of values grouped by a dense key in [0, keys) (grown to hold a larger key): add() each
// value, then means() gives the mean of every key that got at least one, in key order. O(keys)
// memory.
class GroupMeans {
 public:
  explicit GroupMeans(std::size_t keys) : sum_(keys, 0.0), n_(keys, 0) {}
  void add(std::size_t key, double x) {
    if (key >= sum_.size()) {
      sum_.resize(key + 1, 0.0);
      n_.resize(key + 1, 0);
    }
    sum_[key] += x;
    ++n_[key];
  }
  std::vector<double> means() const;

 private:
  std::vector<double> sum_;
  std::vector<std::uint64_t> n_;
};

// One user's row of users.csv.
struct UserStats {
  std::string_view user;  // the name as in the trace; points into the run's workload
  std::uint64_t jobs = 0;
  std::uint64_t gpu_jobs = 0;
  std::int64_t gpu_seconds = 0;             // held, as summary.csv's gpu_hours x 3600
  std::optional<double> queue_mean_s;       // none: none of the user's GPU jobs started
  std::optional<std::int64_t> queue_p95_s;  // nearest rank, as summary.csv's percentiles
  std::optional<double> slowdown_mean;      // none: no started GPU job with run > 0
  std::uint64_t jobs_waiting_over_1h = 0;   // started GPU jobs with a long wait
};

// Users a workload's jobs name: its user table, or more when jobs name users past it (a workload
// built in code may have none). O(jobs).
std::size_t user_slots(const Workload& w);

// One entry per user with at least one job in `run`, ordered by name (byte order), so that the
// same run gives the same rows whatever order the trace met its users in.
// O(jobs + users log users) time, O(jobs + users) memory.
std::vector<UserStats> user_stats(const RunRecord& run);

}  // namespace acme
