// The launch latency: time from a job's placement to its start (Slurm's prolog; a pod's creation
// and image pull), during which the job holds its resources. A property of the cluster's
// platform, the same under every policy.
//
// Each (re)start of a job draws a log-normal latency around the median of its kind (GPU or CPU
// job) from its own generator keyed by (seed, the job's identity, start): its key (job_key, from
// its job_id or generated id), not its row, so every policy, rerun, row order and window of the
// trace sees the same draws for the same job. A job of at least large_min_gpus GPUs draws with large_sigma: it starts on capacity
// kept for large jobs, whose nodes have its image and no other tenant. Rounded to whole seconds, at most a day. The defaults (all 0) mean no latency, and a
// recorded replay has none (its recorded starts include it).
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
  double sigma = 0;         // log-normal sigma; 0: always the median
  std::int32_t large_min_gpus = 0;  // jobs of at least this many GPUs draw with large_sigma; 0: none
  double large_sigma = 0;
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

}  // namespace acme
