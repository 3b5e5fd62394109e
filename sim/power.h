// Power and energy: the model and the meter the outputs read (keys power.* and the feature that
// draws them: features/power.h).
//
// A GPU draws idle_w on an up node with no job, held_w while a job holds it without computing
// (its launch, a restart's reload, checkpoint saves, an evaluation's idle share, a failed job's
// recovery hold) and, computing, its running power: one draw per GPU of the job from the table
// job_w (quantiles at evenly spaced probabilities, fitted to the measured GPU power of jobs). A run
// draws the mix of the two for its whole length (the idle part as planned at its start). Every up node adds node_w (CPUs, memory, NICs, fans). Facility power is
// that IT power / (1 - psu_loss) x pue. Down nodes draw nothing. Defaults and their sources:
// sim/README.md ("Power and energy").
//
// Capping (cap_kw > 0), in the style of POLCA: when the cluster would draw more than the cap,
// every running job's GPUs run at one clock fraction c in [min_clock, 1], the largest that keeps
// it under the cap (or min_clock). A GPU's power above held_w scales as c^3 (dynamic power of
// frequency and voltage scaling) and its progress as c, so jobs run 1/c slower. A job's energy is
// counted at its uncapped power; what capping saved is counted apart (saved_kwh).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/job.h"
#include "sim/outcome.h"
#include "sim/random.h"
#include "sim/time.h"

namespace acme {

struct PowerSettings {
  bool enabled = false;
  double idle_w = 60;
  double held_w = 66;
  std::vector<double> job_w;  // ascending; job_w[i] is the quantile at i / (size - 1)
  double node_w = 940;
  double psu_loss = 0.096;
  double pue = 1.0;
  double cap_kw = 0;       // 0: no cap
  double min_clock = 0.5;  // the lowest clock fraction a cap may impose
  double clock_step = 0.02;  // headroom a cap keeps, so the clock moves once per many events
  std::uint64_t seed = 1;
};

class PowerModel {
 public:
  explicit PowerModel(PowerSettings s);
  const PowerSettings& settings() const { return s_; }
  // Calls f(i) for each GPU of the job of key `job_key` (job_key, Workload::keys; none for a CPU
  // job): its running power is level_w(i), the table at a uniform draw on a grid of kLevels
  // probabilities, keyed by seed, the job's identity (not its row) and GPU.
  template <class F>
  void each_gpu_level(std::uint64_t job_key, const JobRequest& request, F f) const;
  static constexpr std::size_t kLevels = std::size_t{1} << 12;
  double level_w(std::size_t level) const { return levels_[level]; }
  // Facility power for IT power `it_w`, and the reverse.
  double facility(double it_w) const { return it_w * facility_per_it_; }
  double it(double facility_w) const { return facility_w * (1.0 - s_.psu_loss) / s_.pue; }
  // The clock fraction c for IT power `base_w + dynamic_w x c^3` under the cap, from the current
  // `clock` (1 without a cap): over the cap, clock_step below the largest c that fits (at least
  // min_clock); raised, to clock_step below it again, only once it has room for two steps.
  double clock_for(double base_w, double dynamic_w, double clock) const;

 private:
  PowerSettings s_;
  std::vector<double> levels_;  // the table at probabilities (i + 0.5) / kLevels
  double facility_per_it_;      // pue / (1 - psu_loss)
};

template <class F>
void PowerModel::each_gpu_level(std::uint64_t job_key, const JobRequest& request, F f) const {
  static_assert(kLevels == 4096);  // five 12-bit levels from each 64-bit hash
  const std::uint64_t key = mix64(mix64(s_.seed ^ 0x504f574552ULL) ^ job_key);
  for (std::int32_t k = 0; k < request.gpu_num; k += 5) {
    std::uint64_t bits = mix64(key ^ static_cast<std::uint64_t>(k));
    for (std::int32_t i = k; i < std::min(k + 5, request.gpu_num); ++i, bits >>= 12) f(static_cast<std::size_t>(bits & 4095));
  }
}

// The energy of a run, kept by the power feature (features/power.h): facility joules per job, per
// waste cause, idle and node overhead, the time-weighted distribution of per-GPU power (1 W bins)
// inside the workload's window [from, to) (unset bounds: none), over all up GPUs and over the GPUs
// jobs hold, and the mean facility power per interval.
class PowerMeter {
 public:
  // Opened for a run by open(); `model` must outlive it.
  PowerMeter(const PowerModel& model, Time interval);
  // The run's jobs and the workload's window [from, to) (unset bounds: none), before anything is charged.
  void open(std::size_t jobs, OptionalTime from, OptionalTime to);
  // Seconds of [a, b) inside the window.
  std::int64_t window_seconds(Time a, Time b) const {
    if (from_) a = std::max(a, *from_);
    if (to_) b = std::min(b, *to_);
    return b > a ? (b - a).sec() : 0;
  }

  // The state since the last advance: IT power drawn and uncapped, idle GPUs, up nodes, the clock
  // fraction and the GPUs jobs held.
  struct Level {
    double it_w = 0, uncapped_w = 0;
    std::int64_t idle_gpus = 0, up_nodes = 0;
    double clock = 1;
    std::int64_t allocated_gpus = 0;
    bool operator==(const Level&) const = default;
  };
  // Time moves to `now` at `level` since the last call. Called at least when the level changes and
  // before an interval's row is read (at the first instant at or past next_row_s()).
  void advance(Time now, const Level& level);
  std::int64_t next_row_s() const {
    return started_ ? row_start_ + interval_ : std::numeric_limits<std::int64_t>::min();
  }
  // Closes the interval holding `now` (the run's end).
  void close(Time now);
  // `gpus` GPUs of `job` held `seconds` at `watts` each.
  void charge(JobId job, std::int64_t gpus, Time seconds, double watts);
  // GPU-time jobs held inside the window: at held_w, and running at the model's level_w(level).
  void note_held_gpu_time(double gpu_seconds) { held_window_s_ += gpu_seconds; }
  void note_running_gpu_time(std::size_t level, double gpu_seconds) { running_window_s_[level] += gpu_seconds; }
  void waste(WasteCause cause, double gpu_seconds, double watts);
  void grow(std::size_t jobs) { job_j_.resize(jobs, 0.0); }

  // Results, facility energy in kWh.
  double job_kwh(JobId job) const { return job_j_[job] / 3.6e6; }
  double jobs_kwh() const;
  double idle_kwh() const {  // idle GPUs
    return model_.facility(model_.settings().idle_w) * static_cast<double>(idle_gpu_s_) / 3.6e6;
  }
  double nodes_kwh() const {  // node overhead
    return model_.facility(model_.settings().node_w) * static_cast<double>(node_s_) / 3.6e6;
  }
  double total_kwh() const { return total_j_ / 3.6e6; }     // integral of cluster power
  double saved_kwh() const { return saved_j_ / 3.6e6; }     // what capping saved
  double capped_hours() const { return capped_s_ / 3600.0; }
  // Mean clock fraction over the GPU-time jobs held (1 without capping).
  double clock_mean() const { return gpu_s_ > 0 ? 1.0 - slow_gpu_s_ / static_cast<double>(gpu_s_) : 1.0; }
  double wasted_kwh(WasteCause c) const { return wasted_j_[static_cast<std::size_t>(c)] / 3.6e6; }
  // The q-quantile (0..1) of per-GPU power over the GPU-time of up nodes, W.
  double gpu_power_quantile(double q) const { return quantile(histogram(true), q); }
  // The same over the GPU-time jobs held (idle GPUs left out), W.
  double job_gpu_power_quantile(double q) const { return quantile(histogram(false), q); }
  // Mean facility power over the interval starting at `time_s`, kW (0 when it has no row).
  double mean_kw(std::int64_t time_s) const;
  // REQUIRES: the run is over. Throws std::logic_error unless jobs, idle and overhead add up to
  // the integral of cluster power.
  void check_conservation() const;

 private:
  const PowerModel& model_;
  std::int64_t interval_;
  OptionalTime from_, to_;
  std::vector<double> job_j_;
  std::array<double, kWasteCauseCount> wasted_j_{};
  double total_j_ = 0, saved_j_ = 0;
  std::int64_t idle_gpu_s_ = 0, node_s_ = 0, gpu_s_ = 0;  // idle GPUs, up nodes, GPUs jobs held: x seconds
  double capped_s_ = 0, slow_gpu_s_ = 0;  // time capped; GPU-time jobs held x (1 - clock)
  // GPU-seconds inside the window: idle, held by jobs at held_w, and running by the model's level.
  std::int64_t idle_window_s_ = 0;
  double held_window_s_ = 0;
  std::vector<double> running_window_s_;
  std::vector<double> histogram(bool with_idle) const;  // [W]: GPU-seconds at that power (1 W bins)
  static double quantile(const std::vector<double>& histogram, double q);
  bool started_ = false;
  std::int64_t first_row_ = 0, row_start_ = 0, last_ = 0;
  double row_j_ = 0;
  std::vector<double> row_kw_;  // mean facility kW of each interval from first_row_
};

}  // namespace acme
