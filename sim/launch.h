// The launch latency: time from a job's placement to its start (Slurm's prolog; a pod's creation
// and image pull), during which the job holds its resources. A property of the cluster's
// platform, the same under every policy.
//
// Each (re)start of a job draws a log-normal latency around the median of its kind (GPU or CPU
// job) from its own generator keyed by (seed, job, start), so every policy and rerun sees the
// same draws. A job of at least large_min_gpus GPUs draws with large_sigma: it starts on capacity
// kept for large jobs, whose nodes have its image and no other tenant. Rounded to whole seconds, at most a day. The defaults (all 0) mean no latency, and a
// recorded replay has none (its recorded starts include it).
#pragma once

#include <cstdint>

#include "sim/job.h"
#include "sim/time.h"

namespace acme {

struct LaunchModel {
  double gpu_median_s = 0;  // median latency of a GPU job, seconds; >= 0
  double cpu_median_s = 0;  // of a CPU-only job
  double sigma = 0;         // log-normal sigma; 0: always the median
  std::int32_t large_min_gpus = 0;  // jobs of at least this many GPUs draw with large_sigma; 0: none
  double large_sigma = 0;
  std::uint64_t seed = 1;

  bool enabled() const { return gpu_median_s > 0 || cpu_median_s > 0; }
  // The latency of the job's start number `start` (0 for its first). O(1).
  Time draw(JobId job, std::uint32_t start, const JobRequest& r) const;
};

}  // namespace acme
