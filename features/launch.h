// The launch latency, a model feature (sim/feature.h) in one module: the time from a job's
// placement to its start (Slurm's prolog; a pod's creation and image pull), during which the job
// holds its resources. A property of the cluster's platform, the same under every policy. Its
// keys are launch.* (read_launch_model); it is on when a median is above 0, never in a recorded
// replay (its recorded starts include it). Hooks: placed (the latency of each start) and
// jobs_added; it gives the outputs each job's first latency (FirstLaunches: queue_s split into
// wait_s and launch_s). With more than one thread, the first starts' latencies are drawn ahead on
// a thread of its own: the same values.
//
// Each (re)start of a job draws its latency from its own generator keyed by (seed, the job's
// identity, start): its key (job_key, from its job_id or generated id), not its row, so every
// policy, rerun, row order and window of the trace sees the same draws for the same job. The
// latency of a job of each kind (GPU or CPU job) is a floor (the fixed steps: a prolog, a pod's
// creation) plus a spread, log-normal with sigma around (median - floor) and cut at max_s by
// drawing again: no draw exceeds max_s. Rounded to whole seconds. A GPU job's median and floor
// may be set per job type (launch.type_median_s.<Type>, launch.type_floor_s.<Type>: where the
// platform starts some kinds of job faster); the other types take gpu_median_s and gpu_floor_s.
// A job starts when the last of its nodes is ready: each node's prolog is slow with probability
// node_slow_share, so a job of n nodes has a slow one with probability 1 - (1 - share)^n and then
// waits a slow prolog more (log-normal, median slow_median_s, sigma slow_sigma; from a generator
// of its own keyed the same way, so the other draws do not move; drawn again while the sum would
// pass max_s). The defaults (medians 0) mean no latency; so does launch.enabled: false, whatever
// the medians.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "io/params.h"
#include "sim/feature.h"
#include "sim/job.h"
#include "sim/time.h"

namespace acme {

struct LaunchModel {
  bool on = true;           // false: no latency whatever the medians (launch.enabled)
  double gpu_median_s = 0;  // median latency of a GPU job, seconds; >= 0
  double cpu_median_s = 0;  // of a CPU-only job
  double gpu_floor_s = 0;   // least latency of a GPU job, <= its median
  double cpu_floor_s = 0;   // of a CPU-only job
  double sigma = 0;         // log-normal sigma of the spread above the floor; 0: always the median
  double max_s = 600;       // no latency exceeds this, >= the medians
  std::uint64_t seed = 1;
  // A GPU job type's own median and floor, in place of gpu_median_s and gpu_floor_s; none: the
  // type takes the GPU job's.
  std::array<std::optional<double>, kJobTypeCount> type_median_s, type_floor_s;
  // The chance that one node's prolog is slow, in [0, 1), and the slow prolog's log-normal median
  // (seconds; 0: none) and sigma.
  double node_slow_share = 0, slow_median_s = 0, slow_sigma = 0;

  bool enabled() const;
  // The latency of start number `start` (0 for its first) of the job whose key (job_key,
  // Workload::keys) is `job_key`. O(1).
  Time draw(std::uint64_t job_key, std::uint32_t start, const JobRequest& r) const;
  // `s` seconds of latency plus a slow prolog when one of the job's nodes has one. O(1).
  double with_slow_prolog(double s, std::uint64_t job_key, std::uint32_t start, const JobRequest& r) const;
};

// Reads launch.enabled, launch.gpu_median_s, launch.cpu_median_s, the floors, the per-type tables
// (launch.type_median_s.<Type>, launch.type_floor_s.<Type>, GPU job types only), launch.sigma,
// the slow prologs (launch.node_slow_share, slow_median_s, slow_sigma), launch.max_s and
// launch.seed, with defaults.
LaunchModel read_launch_model(Params& params);

// The feature of `model` (enabled()); `draw_ahead`: the first starts' latencies are drawn on a
// thread of its own from the run's beginning.
std::unique_ptr<Feature> launch_feature(const LaunchModel& model, bool draw_ahead);

}  // namespace acme
