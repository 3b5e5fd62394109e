// The launch latency: time from a job's placement to its start (Slurm's prolog; a pod's creation
// and image pull), during which the job holds its resources. A property of the cluster's
// platform, the same under every policy.
//
// Each (re)start of a job draws its latency from its own generator keyed by (seed, the job's
// identity, start): its key (job_key, from its job_id or generated id), not its row, so every
// policy, rerun, row order and window of the trace sees the same draws for the same job. The
// latency of a job of each kind (GPU or CPU job) is a floor (the fixed steps: a prolog, a pod's
// creation) plus a spread, log-normal with sigma around (median - floor) and cut at max_s by
// drawing again: no draw exceeds max_s. Rounded to whole seconds. The defaults (medians 0) mean
// no latency, and a recorded replay has none (its recorded starts include it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "sim/job.h"
#include "sim/time.h"

namespace acme {

struct LaunchModel {
  double gpu_median_s = 0;  // median latency of a GPU job, seconds; >= 0
  double cpu_median_s = 0;  // of a CPU-only job
  double gpu_floor_s = 0;   // least latency of a GPU job, <= its median
  double cpu_floor_s = 0;   // of a CPU-only job
  double sigma = 0;         // log-normal sigma of the spread above the floor; 0: always the median
  double max_s = 600;       // no latency exceeds this, >= the medians
  std::uint64_t seed = 1;

  bool enabled() const { return gpu_median_s > 0 || cpu_median_s > 0; }
  // The latency of start number `start` (0 for its first) of the job whose key (job_key,
  // Workload::keys) is `job_key`. O(1).
  Time draw(std::uint64_t job_key, std::uint32_t start, const JobRequest& r) const;
};

// The latencies of the jobs' first starts (LaunchModel::draw with start 0, by Workload::keys),
// drawn ahead in JobId order on a thread of its own, so that the simulation's thread only looks them up: the same
// values. The workload may grow meanwhile (a JobFeed): the thread reads it holding `growth`
// shared, and waits for more() after the jobs there. Holds up to `capacity` jobs, 2 bytes each;
// a later job, or a latency past 65,534 s, is drawn by the caller.
class LaunchAhead {
 public:
  LaunchAhead(const LaunchModel& model, const Workload& workload, std::shared_mutex& growth, std::size_t capacity);
  ~LaunchAhead();
  // The latency of the job's first start.
  Time first(JobId job, const JobRequest& r) const {
    if (job < ready_.load(std::memory_order_acquire) && drawn_[job] != kNotHeld) return Time::seconds(drawn_[job]);
    return model_.draw(workload_.keys[job], 0, r);
  }
  // The workload has more jobs (called after they are in, `growth` released).
  void more();

 private:
  static constexpr std::uint16_t kNotHeld = 0xffff;
  void run();
  const LaunchModel& model_;
  const Workload& workload_;
  std::shared_mutex& growth_;
  const std::size_t capacity_;
  std::unique_ptr<std::uint16_t[]> drawn_;
  std::atomic<std::size_t> ready_{0};  // jobs [0, ready_) are drawn
  std::mutex mu_;
  std::condition_variable cv_;
  bool more_ = false, stop_ = false;  // under mu_
  std::thread thread_;
};

// Each job's first launch latency, as the run drew it: from LaunchAhead where the run drew
// ahead, else from the model; none without a launch model. O(1) a job (a draw without ahead).
struct FirstLaunches {
  const LaunchModel* model = nullptr;
  const LaunchAhead* ahead = nullptr;
  Time of(JobId job, std::uint64_t job_key, const JobRequest& r) const {
    return ahead ? ahead->first(job, r) : model ? model->draw(job_key, 0, r) : Time{};
  }
};

}  // namespace acme
