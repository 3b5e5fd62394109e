// Synthetic workloads drawn from the published Acme statistics (configs/workloads/*.yaml).
//
// The model, every parameter of which is a key of the model file (see configs/README.md):
//  - Arrivals: users submit in sessions. Sessions start as a non-homogeneous Poisson process whose
//    rate follows a daily cosine and a weekday/weekend factor, rescaled so that the weekly mean is
//    jobs_per_day x load / session_jobs_mean; a session is one user (Zipf over `users`), a
//    geometric number of jobs (mean session_jobs_mean) with exponential gaps (session_gap_s).
//  - Each job's type is drawn from type_mix_pct (CPU jobs included). A GPU job's size comes from
//    its type's gpu_sizes and its run time from its type's duration CDF (points at 2^k seconds,
//    interpolated in log2 time, so the heavy tail stays; cut at max_run_s). With probability
//    |size_duration_coupling| the run-time quantile is the size quantile (1 - it when negative):
//    large jobs of a type run longer. It spans ceil(gpus / gpus_per_node) nodes with cpus_per_gpu
//    cores per GPU.
//  - Final state from the job's GPU-seconds g: P(CANCELLED) = logistic(a + b (log2 g - 20)), then
//    P(FAILED | not cancelled) likewise (gpu_state_logit); CPU jobs from cpu_state_mix_pct.
//    The few longest, largest jobs carry most of the GPU-time (on Kalos, 60 jobs half of it), so
//    which state each of them draws would move the states' GPU-time shares by many points
//    between seeds. The jobs that together hold state_balance_gpu_time_pct of the GPU-time
//    are therefore given their states jointly: largest first, each draws a state with odds
//    proportional to that state's GPU-time still due (its expectation over these jobs, from the
//    same probabilities, minus what it got so far) less half the job's own (a state due less
//    than that would overshoot by more than it falls short). The states' shares of that
//    GPU-time then end within about half the largest job of their expectation; every other job
//    draws on its own.
//  - A type's GPU-time in a sample hangs on its few heaviest jobs (Kalos' 540 Debug jobs in 92
//    days: one 512-GPU job of 6 hours is 14% of it), so it moves by tens of percent between
//    seeds. With gpu_time_balance_pct, in every GPU type with at least kGpuTimeBalanceMinJobs
//    jobs (drawn, or expected in the window), the heaviest jobs that hold that share of the type's
//    GPU-time have their run times scaled by one factor (within kGpuTimeBalanceFactor, [1/4, 4])
//    so that the type's GPU-time is its expectation given the sample's number of jobs (jobs x the
//    type's share of type_mix_pct x gpu_seconds_per_job, from the model's sizes, run times and
//    coupling). This conditions the sample on its expected totals; the run-time CDF moves by
//    those few jobs only. Both balances run as the window is drawn (synthetic_stream.h): over
//    the jobs not handed out yet, counting what those handed out left over.
//  - Evaluation bursts: a share of the Eval jobs (eval_batch.share_of_eval_pct) wait for the next
//    checkpoint of a Pretrain or SFT job drawn in the same week (checkpoint_after_s into its run,
//    if it runs that long, counted from its submit) and are submitted then, one batch of up to
//    eval_batch.jobs jobs, stagger_s apart, by the user of the checkpointed job (one evaluation
//    pipeline per model). Batched jobs are part of the Eval share, not extra; a
//    job no checkpoint picks up keeps its own arrival time.
//  - Large jobs are submitted in a closed loop (large_jobs; off when max_concurrent_gpus is 0): a
//    job of at least min_gpus GPUs is submitted only when the GPUs of every job submitted before it
//    and still running as drawn (from its submit, for its drawn run time, queueing ignored) plus
//    its own stay within max_concurrent_gpus (set for a cluster of cluster_gpus GPUs; on another
//    cluster scaled with its GPUs, on_cluster); until then it waits for drawn jobs to end, behind
//    the large jobs waiting before it (FIFO), and keeps everything else. Smaller jobs are never
//    delayed; a job the window's end would find waiting is dropped (logged). Users of Acme did not
//    submit pretraining runs the cluster could not hold (Kalos' peak of requested GPUs: 1,536).
//  - Per GPU type, the size, coupling and state quantiles, and per type and size the run-time
//    quantile, come from Kronecker (quasi-random) sequences with random starts rather than
//    independent uniforms: the sample then follows each published distribution closely even for
//    rare types and over a few weeks, and each size class covers the heavy tail of run times in
//    proportion, so a type's GPU-time stays near its expectation.
// Same model, window, load and seed: the same jobs, in submit order (workloads/synthetic_stream.h
// draws them, week by week, on a second thread).
// Cost: O(n) for n jobs: the draws that need a transcendental function mostly go without it
// (synthetic_draws.h), uniforms are drawn in blocks, the balances' heavy jobs are pooled while
// drafting, and the order is one bucketed insertion sort (synthetic_drafts.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/job.h"
#include "sim/random.h"

namespace acme {

// A discrete distribution over values with weights.
class Discrete {
 public:
  Discrete() = default;
  explicit Discrete(const std::vector<std::pair<double, double>>& value_weight);
  bool empty() const { return values_.empty(); }
  const std::vector<double>& values() const { return values_; }
  const std::vector<double>& cumulative() const { return cumulative_; }  // of the weights, ending at 1
  double mean() const;
  double probability(double value) const;  // 0 for a value it does not hold
  // The value at quantile u in [0, 1), and its index in values(): the first whose cumulative
  // weight is above u (the last for none). O(1) on average: a guide table gives the first
  // candidate, a short scan the rest. Memory: up to 8 bytes more per value, 64 at least.
  double at(double u) const { return values_[index_at(u)]; }
  std::size_t index_at(double u) const;

 private:
  std::vector<double> values_, cumulative_;
  std::vector<std::uint32_t> guide_;  // guide_[b]: index_at(b / guide_.size())
  double guide_scale_ = 0;            // guide_.size(), a power of two
  std::size_t last_ = 0;              // values_.size() - 1
};

// A CDF given at points (seconds, percent), sampled by inverse transform in log2 time.
class LogCdf {
 public:
  LogCdf() = default;
  explicit LogCdf(std::vector<std::pair<double, double>> points);
  bool empty() const { return points_.empty(); }
  // The run time at quantile u in [0, 1), whole seconds rounded up: computed(u), without its
  // search and exp2 where the memo answers (most short runs).
  std::int64_t at(double u) const {
    const auto cell = static_cast<std::size_t>(u * kCells);  // exact: kCells is a power of two
    if (cell < kCells && memo_[cell] >= 0) return memo_[cell];
    return computed(u);
  }
  std::int64_t sample_seconds(Rng& rng) const { return at(rng.uniform()); }
  // at((i + 0.5) / n) for i in [0, n).
  std::vector<std::int64_t> at_grid(std::size_t n) const;
  // at(u) from the points: a search and an exp2.
  std::int64_t computed(double u) const;

 private:
  // The memo of cell k, [k, k + 1) / kCells: computed() there when it is the same at both ends
  // and no point of the CDF falls in or next to the cell, else -1. Between two points computed()
  // is non-decreasing, so equal ends pin the cell; across a point it need not be (below the first
  // point it rounds up without the 1e-9 slack of the other segments).
  static constexpr std::size_t kCells = 1 << 12;
  // The run time at percent v, in the segment that ends at points_[hi] (0: below the first point).
  std::int64_t in_segment(std::size_t hi, double v) const;
  std::vector<std::pair<double, double>> points_;  // (log2 seconds, percent)
  std::vector<std::int64_t> memo_;
};

struct ArrivalModel {
  double utc_offset_hours = 0;   // local time of the cluster, for the daily and weekly cycle
  double daily_amplitude = 0;    // rate x (1 + a cos(2 pi (hour - peak_hour) / 24)), 0 <= a < 1
  double peak_hour = 14;
  double weekend_factor = 1;     // Saturday and Sunday rate over the weekday rate
  double session_jobs_mean = 1;  // >= 1
  double session_gap_s = 60;     // mean gap between jobs of a session
};

struct EvalBatchModel {
  double share_of_eval_pct = 0;        // of Eval jobs that wait for a checkpoint
  Discrete jobs;                       // jobs per batch (benchmark datasets)
  std::int64_t checkpoint_after_s = 1800;
  std::int64_t stagger_s = 1;
};

// Closed-loop submission of large jobs (large_jobs.*): see the model above.
struct LargeJobsModel {
  std::int32_t min_gpus = 256;              // a job with at least this many GPUs is large
  std::int64_t max_concurrent_gpus = 0;     // the cap on drawn demand; 0: off
  std::int64_t cluster_gpus = 0;            // the GPUs of the cluster the cap is for; 0: any
  bool on() const { return max_concurrent_gpus > 0; }
  // The same on a cluster of `gpus` GPUs: the cap scaled by gpus / cluster_gpus, and never below
  // `largest`, the largest job the model draws (that job would wait for ever).
  LargeJobsModel on_cluster(std::int64_t gpus, std::int64_t largest) const;
};

struct SyntheticModel {
  std::string cluster;
  double jobs_per_day = 0;
  Discrete type;                                  // values: JobType, CPU included
  int cpus_per_gpu = 16;
  std::int64_t max_run_s = 0;                     // 0: no cut
  ArrivalModel arrivals;
  EvalBatchModel eval_batch;
  LargeJobsModel large_jobs;
  std::array<Discrete, kJobTypeCount> gpu_sizes;  // GPUs per job, by type
  std::array<double, kJobTypeCount> coupling{};   // size_duration_coupling, in [-1, 1]
  std::array<LogCdf, kJobTypeCount> durations;    // by type (CPU for CPU jobs)
  std::array<double, 2> cancel_logit{-100, 0};    // (a, b)
  std::array<double, 2> fail_logit{-100, 0};
  double state_balance_gpu_time_pct = 0;          // 0: every job draws its state on its own
  double gpu_time_balance_pct = 0;                // 0: run times as drawn
  std::array<double, kJobTypeCount> gpu_seconds_per_job{};  // expected, by type (load_synthetic_model)
  Discrete cpu_states;                            // values: JobState
  Discrete cpu_job_cpus;
  int users = 1;
  double user_zipf_s = 1.0;
};

inline constexpr std::size_t kGpuTimeBalanceMinJobs = 100;
inline constexpr std::pair<double, double> kGpuTimeBalanceFactor{0.25, 4.0};  // the factor's bounds

// The model on a cluster of `cluster_gpus` GPUs: its cap on large jobs (large_jobs) scaled from
// the cluster the model describes. `acmesim run` and `gen` use the model so.
SyntheticModel on_cluster(SyntheticModel m, std::int64_t cluster_gpus);

// Reads and checks a model file; InputError names file, line and key. The expected GPU-seconds
// of the balances are computed on two threads.
SyntheticModel load_synthetic_model(const std::string& path);

// The expected GPU-seconds of a job of GPU type `t`: size and run time (cut at max_run_s) at one
// quantile with probability |coupling| (1 - it for the run when negative), else independent;
// on a grid of 2^16 quantiles.
double expected_gpu_seconds(const SyntheticModel& m, JobType t);

// The arrival-rate factor at instant t (mean 1 over a week).
double arrival_shape(const ArrivalModel& a, Time t);

}  // namespace acme
