// Fidelity: how close a replay's schedule is to the schedule a trace recorded, job by job
// (`acmesim validate`, app/validate.cpp). Pure functions over two index-matched arrays of
// jobs (the same workload: job i of one is job i of the other) and two lists of GPU holdings.
//
// Definitions:
//  - queueing delay: start - submit, in seconds, of a job that started; a job that never started
//    on one side (the record: empty start_time, or cancelled while pending; the replay: withdrawn
//    or rejected) is left out of the delay statistics and counted.
//  - groups: "GPU" (every job with gpu_num > 0), each GPU job type present, then "CPU".
//  - mean (s), p50/p90/p99: nearest-rank percentiles, as in summary.csv; over the jobs compared
//    (started on both sides), each side its own delays.
//  - mismatched: jobs compared whose two delays differ, plus jobs started on one side only.
//  - mean_abs_diff: mean over the jobs compared of |simulated delay - recorded delay|.
//  - cdf_gap: the largest vertical distance between the empirical CDFs of the two sides' delays
//    (the two-sample Kolmogorov-Smirnov statistic), 0 to 1.
//  - utilization: mean allocated GPUs over each interval [k x interval, (k+1) x interval) (aligned
//    to multiples of the interval since the epoch, from the first holding's start to the last's
//    end) over cluster GPUs, %.
// A group is gated when it asks for GPUs and has at least min_jobs jobs compared; it passes when
// its cdf_gap is at most max_cdf_gap. A GPU group with fewer jobs compared is reported as too few
// to judge; the CPU group is reported only. A report that compared no job at all is no
// validation (FidelityReport::compared() == 0: `acmesim validate` stops with exit 2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/job.h"
#include "io/columns.h"
#include "io/params.h"

namespace acme {

// One job as one schedule has it.
struct ScheduledJob {
  JobType type = JobType::Other;
  std::int32_t gpus = 0;
  Time submit;
  OptionalTime start;  // none: never started
};

// GPUs held over [start, end). A job holds one per run (more when it gives back part of them).
struct GpuSpan {
  Time start, end;
  std::int64_t gpus = 0;
};

// The `validate.*` keys.
struct FidelityTolerance {
  double max_cdf_gap = 0.1;
  std::size_t min_jobs = 50;
};
// Reads (and documents) the validate.* keys from `params`; the caller checks check_all_used().
FidelityTolerance read_fidelity_tolerance(Params& params);

struct DelaySummary {
  double mean_s = 0;
  std::int64_t p50_s = 0, p90_s = 0, p99_s = 0;
};

struct FidelityRow {
  std::string group;
  std::size_t jobs = 0;                   // jobs of the group in the workload
  std::size_t compared = 0;               // started on both sides
  std::size_t not_started_recorded = 0;   // never started in the record (left out)
  std::size_t not_started_simulated = 0;  // started in the record, never in the replay (left out)
  std::size_t mismatched = 0;
  DelaySummary recorded, simulated;
  double mean_abs_diff_s = 0;
  double cdf_gap = 0;
  bool gated = false;
  bool pass = true;
  bool too_few = false;  // a GPU group with fewer than min_jobs jobs compared: not judged
  // "pass", "fail" (gated), "too_few" (not judged: too few jobs compared) or "info" (CPU).
  std::string_view result() const { return gated ? (pass ? "pass" : "fail") : too_few ? "too_few" : "info"; }
};

// A CDF drawn at fixed delays: (delay s, share of jobs with at most that delay, 0..1).
struct DelayCdf {
  std::string group;
  std::string source;  // recorded or simulated
  std::vector<std::pair<std::int64_t, double>> points;
};

struct UtilizationSeries {
  Time from;                          // start of the first interval
  Time interval = Time::hours(1);
  std::vector<double> recorded_pct, simulated_pct;  // one value per interval
  double recorded_mean_pct = 0, simulated_mean_pct = 0;
  double mean_abs_diff_points = 0;    // mean over intervals of |simulated - recorded|
};

struct FidelityReport {
  std::vector<FidelityRow> rows;
  std::vector<DelayCdf> cdfs;
  UtilizationSeries utilization;
  FidelityTolerance tolerance;
  bool passed() const;
  std::size_t failures() const;
  std::size_t mismatched() const;  // over every job (the GPU and CPU rows)
  std::size_t compared() const;    // over every job (the GPU and CPU rows): 0, nothing was compared
};

// The two-sample Kolmogorov-Smirnov statistic of two sets of delays; 0 when either is empty.
// O((n + m) log(n + m)).
double cdf_gap(std::vector<std::int64_t> a, std::vector<std::int64_t> b);

// REQUIRES: recorded.size() == simulated.size(), and job i is the same job in both.
// The rows and CDFs, in group order. O(n log n).
FidelityReport compare_delays(std::span<const ScheduledJob> recorded, std::span<const ScheduledJob> simulated,
                              const FidelityTolerance& tolerance);

// The utilization of both schedules on the same intervals. REQUIRES: cluster_gpus > 0,
// interval > 0. O(spans + intervals).
UtilizationSeries compare_utilization(std::span<const GpuSpan> recorded, std::span<const GpuSpan> simulated,
                                      int cluster_gpus, Time interval);

// The table, one row per group then the utilization, aligned for a terminal.
std::string format_fidelity_table(const FidelityReport& report);

// Writes <dir>/fidelity.csv (one row per group, then "utilization"), <dir>/utilization.csv (one
// row per interval) and <dir>/queue_cdf.csv (the CDFs' points), whole or not at all each; their
// columns are tables in workloads/fidelity_files.cpp, printed in configs/README.md.
void write_fidelity(const FidelityReport& report, const std::filesystem::path& dir);
// The columns of those three files (io/columns.h), for `acmesim list columns` and configs/README.md.
std::vector<FileColumns> fidelity_columns();

}  // namespace acme
