// Synthetic workloads drawn from the published Acme statistics (configs/workloads/*.yaml).
//
// The model: jobs arrive as a Poisson process at jobs_per_day x load; each is a CPU job with
// probability cpu_job_share_pct, else a GPU job of a type drawn from gpu_type_mix_pct; its GPU
// count from that type's gpu_sizes, spread over ceil(gpus / gpus_per_node) nodes with
// cpus_per_gpu cores per GPU; its run time from the type's duration CDF (points at 2^k seconds,
// interpolated in log2 time, so the heavy tail stays); its final state from the state mix; its
// user from a Zipf law over `users` users. Same model, window, load and seed: the same jobs.
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
  double sample(Rng& rng) const;

 private:
  std::vector<double> values_, cumulative_;
};

// A CDF given at points (seconds, percent), sampled by inverse transform in log2 time.
class LogCdf {
 public:
  LogCdf() = default;
  explicit LogCdf(std::vector<std::pair<double, double>> points);
  bool empty() const { return points_.empty(); }
  std::int64_t sample_seconds(Rng& rng) const;

 private:
  std::vector<std::pair<double, double>> points_;  // (log2 seconds, percent)
};

struct SyntheticModel {
  std::string cluster;
  double jobs_per_day = 0;
  double cpu_job_share_pct = 0;
  int cpus_per_gpu = 16;
  Discrete gpu_type;                                   // values: JobType
  std::array<Discrete, kJobTypeCount> gpu_sizes;       // GPUs per job, by type
  std::array<LogCdf, kJobTypeCount> durations;         // by type (CPU for CPU jobs)
  Discrete gpu_states, cpu_states;                     // values: JobState
  Discrete cpu_job_cpus;
  int users = 1;
  double user_zipf_s = 1.0;
};

// Reads and checks a model file; InputError names file, line and key.
SyntheticModel load_synthetic_model(const std::string& path);

// Jobs submitted in [from, to). REQUIRES: from < to, load > 0, gpus_per_node > 0.
Workload generate_workload(const SyntheticModel& model, Time from, Time to, double load,
                           std::uint64_t seed, int gpus_per_node);

}  // namespace acme
