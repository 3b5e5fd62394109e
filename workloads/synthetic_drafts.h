// The generator's jobs as drawn, before they become a Workload (workloads/synthetic.h): their
// order by submit time, and the two balances that condition a sample on its expected totals.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "sim/job.h"
#include "sim/random.h"
#include "workloads/synthetic.h"

namespace acme {

// A job before sorting.
struct Draft {
  std::int64_t submit;
  std::int64_t run;
  std::int32_t gpus;
  std::int32_t cpus;
  std::uint32_t user;
  JobType type;
  JobState state;
};

inline double gpu_seconds(const Draft& d) { return static_cast<double>(d.gpus) * static_cast<double>(d.run); }

// The draft indices `which` sorted by submit time (all in [begin, end)), ties by index, through
// keys (submit offset << 32 | index), distinct and in the order wanted: one counting pass into
// about as many buckets of time as keys, then an insertion sort, which only moves keys within
// their bucket (a few, nearly in order already). About 56 instructions a key with the buffers,
// where two radix passes took 68. Past 16 moves a key (crowded buckets) std::sort finishes them.
std::vector<std::uint32_t> by_submit(const std::vector<Draft>& drafts, std::vector<std::uint32_t> which,
                                     std::int64_t begin, std::int64_t end);

// The GPU-time of the drafts, tallied as they are drawn so that the balances need not pass over
// every draft: each type's GPU-seconds and GPU jobs, and the pool of the jobs of at least a
// quarter of their type's expected GPU-seconds (or of a GPU job's, when that is less), which
// holds most of the GPU-time. The sums are of whole numbers, exact in any order below 2^53.
class GpuTimeTally {
 public:
  static constexpr double kPoolShare = 0.25;
  // pool_share: the pool's cut over the expected GPU-seconds (a test may pool all or none:
  // the balances answer the same).
  explicit GpuTimeTally(const SyntheticModel& m, double pool_share = kPoolShare);
  void add(std::uint32_t draft, JobType type, double g) {
    const auto t = static_cast<std::size_t>(type);
    total_[t] += g;
    ++jobs_[t];
    if (g >= cut_[t]) pool_.push_back(draft);
  }
  // The pool holds every job of type t of at least cut(t) GPU-seconds, and every GPU job of at
  // least state_cut() GPU-seconds as drawn.
  double total(JobType t) const { return total_[static_cast<std::size_t>(t)]; }
  std::size_t jobs(JobType t) const { return jobs_[static_cast<std::size_t>(t)]; }
  double cut(JobType t) const { return cut_[static_cast<std::size_t>(t)]; }
  double state_cut() const { return state_cut_; }
  const std::vector<std::uint32_t>& pool() const { return pool_; }
  // A job the GPU-time balance rescaled (of g_before GPU-seconds as drawn) joins the pool if it
  // is not in it: the state balance looks at it whatever its size.
  void rescaled(std::uint32_t draft, JobType type, double g_before) {
    if (!(g_before >= cut_[static_cast<std::size_t>(type)])) pool_.push_back(draft);
  }
  // Adds another tally of the same model (of other drafts) to this one.
  void absorb(const GpuTimeTally& other);

 private:
  std::array<double, kJobTypeCount> total_{}, cut_{};
  std::array<std::size_t, kJobTypeCount> jobs_{};
  double state_cut_ = 0;
  std::vector<std::uint32_t> pool_;
};

// What the balances carry from the drafts already handed out to the group balanced next
// (workloads/synthetic_stream.h), so that the totals of all drafts so far, not only of each
// group, meet their expectations. Zero before the first group: one group is balanced on its own.
struct BalanceCarry {
  double window_drafts = 0;                           // expected in the whole window (0: unknown)
  std::size_t drafts = 0;                             // handed out
  std::array<std::size_t, kJobTypeCount> gpu_jobs{};  // GPU jobs handed out, by type
  std::array<double, kJobTypeCount> gpu_seconds{};    // theirs, balanced
  std::array<double, 3> state_due{};  // GPU-time still due to CANCELLED, FAILED, COMPLETED from them
  // Counts a draft handed out, as balanced (state_balanced: balance_states gave its state).
  void add(const Draft& d, const SyntheticModel& m, bool state_balanced);
};

// The balances work on the group of drafts from `first` on, and list in `changed` (if given)
// each draft whose run time or state they set.
//
// Scales the run times of each GPU type's heaviest jobs so that the type's GPU-time over the
// drafts handed out and the group is its expectation given the number of jobs drawn
// (workloads/synthetic.h), for a type with kGpuTimeBalanceMinJobs jobs among them, or expected
// in the window. Returns the group's GPU-seconds after it; a job it rescales joins the tally's
// pool.
double balance_gpu_time(std::vector<Draft>& drafts, std::size_t first, const SyntheticModel& m, GpuTimeTally& tally,
                        const BalanceCarry& carry, std::vector<std::uint32_t>* changed = nullptr);

// Gives the GPU jobs that hold the top `pct` of the group's GPU-time their states jointly (see
// workloads/synthetic.h): largest first, each draws a state with odds proportional to the
// GPU-time each state is still due, counting what the drafts handed out left due.
// `total`: the group's GPU-seconds.
void balance_states(std::vector<Draft>& drafts, std::size_t first, const SyntheticModel& m, const GpuTimeTally& tally,
                    double total, UniformStream& rng, const BalanceCarry& carry,
                    std::vector<std::uint32_t>* changed = nullptr);

}  // namespace acme
