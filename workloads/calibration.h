// Calibration: how close a trace in the AcmeTrace schema (real or synthetic) is to the published
// statistics of its cluster (configs/workloads/<cluster>.published.yaml), statistic by statistic,
// each with its tolerance.
//
// What is measured on the trace (GPU jobs: gpu_num > 0):
//  - type mix: share of all jobs by type, CPU included;
//  - GPU-time share by type: gpu_num x duration (below), as the trace's gpu_time column and the
//    published shares count it, over the types the published shares cover; so with
//    `duration: end_minus_submit` (Kalos) GPU-time includes queueing, by state and size too;
//  - share of GPU jobs with at most 1, 8, 64, 256, 1024 GPUs, and the mean GPUs per GPU job;
//  - duration CDF at 2^k s, all GPU jobs and per type (types with at least
//    duration_min_type_share_pct of the GPU jobs), and of the CPU jobs where the published file
//    has one (`duration_cdf.CPU`); duration is end - start, or end - submit when
//    the published file says `duration: end_minus_submit` (Kalos: its published CDFs include
//    queueing); a job that never started has duration 0 (end - submit for Kalos);
//  - final state of GPU jobs by count and by GPU-time (FAILED includes TIMEOUT and NODE_FAIL);
//  - GPU jobs per month: GPU jobs / (last submit - first submit) x 30.4375 days.
// The report also holds the CDF series the plots are drawn from.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "io/columns.h"
#include "sim/job.h"

namespace acme {

// Tolerances of the statistics; "points" are percentage points.
struct CalibrationTolerance {
  double type_mix_points = 1;
  double size_share_points = 1;
  double gpu_time_share_relative_pct = 10;
  double duration_cdf_points = 2;
  // A duration CDF point, a GPU-time share and the mean GPUs per GPU job also pass within this
  // many standard errors of the difference between two samples of the trace's size (the published
  // figure is of one sample too), whichever is wider: a type of 250 jobs has a standard error of
  // about 3 points at its CDF's middle, more than duration_cdf_points, and a GPU-time share that a
  // few heavy jobs carry (Kalos's Other: about 250 jobs, its five heaviest half of it) one of a
  // third of itself, more than gpu_time_share_relative_pct. 0: off.
  double sampling_sigmas = 0;
  double duration_min_type_share_pct = 1;
  double state_count_points = 2;
  double state_gpu_time_points = 5;
  double mean_gpus_relative_pct = 5;
  double gpu_jobs_per_month_relative_pct = 5;
};

using Points = std::vector<std::pair<double, double>>;

struct PublishedStats {
  std::string cluster;
  bool duration_end_minus_submit = false;
  std::vector<std::pair<JobType, double>> type_mix_pct;        // of all jobs
  std::vector<std::pair<JobType, double>> gpu_time_share_pct;  // of the listed types' GPU-time
  std::vector<std::pair<int, double>> size_share_le_pct;       // (N, % of GPU jobs with <= N GPUs)
  double mean_gpus = 0;
  double mean_gpus_full_trace = 0;  // reported only; 0: none
  double gpu_jobs_per_month = 0;
  std::vector<std::pair<JobState, double>> state_count_pct, state_gpu_time_pct;
  std::vector<std::pair<std::string, Points>> duration_cdf;   // "all", then types: (seconds, %)
  Points size_cdf_jobs, size_cdf_gpu_time;                     // (gpus, cumulative %), plots only
  CalibrationTolerance tolerance;
};

// Reads a published-statistics file; InputError names file, line and key.
PublishedStats load_published_stats(const std::string& path);

struct CalibrationRow {
  std::string statistic;
  double published = 0;
  double trace = 0;
  double difference = 0;  // trace - published; relative (%) where the tolerance is relative
  double tolerance = 0;   // |difference| must not exceed it
  bool gated = true;      // false: reported only
  bool pass = true;
};

struct CdfSeries {
  std::string figure;  // "duration" or "gpu_demand"
  std::string group;   // duration: all or a type; gpu_demand: jobs or gpu_time
  std::string source;  // published or trace
  Points points;       // (x, cumulative %)
};

struct CalibrationReport {
  std::vector<CalibrationRow> rows;
  std::vector<CdfSeries> series;
  std::size_t jobs = 0, gpu_jobs = 0;
  bool passed() const;
  std::size_t failures() const;
};

CalibrationReport calibrate(const Workload& trace, const PublishedStats& published);

// The table, one row per statistic, aligned for a terminal.
std::string format_calibration_table(const CalibrationReport& report);

// Writes <dir>/calibration.csv (one row per statistic) and the plot data
// <dir>/data/duration_cdf.csv and <dir>/data/gpu_demand.csv (one row per point of a CDF); their
// columns are tables in workloads/calibration_files.cpp, printed in configs/README.md.
void write_calibration(const CalibrationReport& report, const std::filesystem::path& dir);
// The columns of those files (io/columns.h), for `acmesim list columns` and configs/README.md.
std::vector<FileColumns> calibration_columns();

}  // namespace acme
