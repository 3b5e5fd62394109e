#include "sim/power.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/random.h"

namespace acme {

PowerModel::PowerModel(PowerSettings s)
    : s_(std::move(s)), levels_(kLevels, s_.held_w), facility_per_it_(s_.pue / (1.0 - s_.psu_loss)) {
  const std::vector<double>& t = s_.job_w;
  for (std::size_t i = 0; i < levels_.size() && !t.empty(); ++i) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(levels_.size()) * static_cast<double>(t.size() - 1);
    const std::size_t j = std::min(static_cast<std::size_t>(x), t.size() > 1 ? t.size() - 2 : 0);
    levels_[i] = t.size() == 1 ? t[0] : t[j] + (t[j + 1] - t[j]) * (x - static_cast<double>(j));
  }
}

PowerMeter::PowerMeter(const PowerModel& model, Time interval)
    : model_(model), interval_(std::max<std::int64_t>(interval.sec(), 1)), running_window_s_(PowerModel::kLevels, 0.0) {}

void PowerMeter::open(std::size_t jobs, OptionalTime from, OptionalTime to) {
  from_ = from;
  to_ = to;
  job_j_.assign(jobs, 0.0);
}

double PowerModel::clock_for(double base_w, double dynamic_w, double clock) const {
  if (s_.cap_kw <= 0) return 1.0;
  const double room = it(s_.cap_kw * 1000.0) - base_w;
  const double fits = dynamic_w <= 0 ? 2.0 : std::cbrt(std::max(room, 0.0) / dynamic_w);
  const double step = s_.clock_step;
  if (fits < clock) return std::clamp(fits - step, s_.min_clock, 1.0);
  if (fits >= clock + 2 * step) return std::min(fits - step, 1.0);
  return clock;
}

void PowerMeter::advance(Time now, const Level& level) {
  const double it_w = level.it_w;
  const std::int64_t idle_gpus = level.idle_gpus, up_nodes = level.up_nodes;
  const std::int64_t t = now.sec();
  if (started_ && t == last_) return;  // no time at this level
  if (!started_) {
    started_ = true;
    first_row_ = row_start_ = (t / interval_ - (t % interval_ < 0)) * interval_;
    last_ = t;
  }
  const double w = model_.facility(it_w);
  const std::int64_t seconds = t - last_;
  const auto dt = static_cast<double>(seconds);
  total_j_ += w * dt;
  if (level.uncapped_w != it_w) saved_j_ += model_.facility(level.uncapped_w - it_w) * dt;
  if (level.clock < 1.0) {
    capped_s_ += dt;
    slow_gpu_s_ += (1.0 - level.clock) * static_cast<double>(level.allocated_gpus) * dt;
  }
  gpu_s_ += level.allocated_gpus * seconds;
  idle_gpu_s_ += idle_gpus * seconds;
  node_s_ += up_nodes * seconds;
  idle_window_s_ += idle_gpus * window_seconds(Time::seconds(last_), now);
  while (t >= row_start_ + interval_) {
    row_j_ += w * static_cast<double>(row_start_ + interval_ - last_);
    row_kw_.push_back(row_j_ / static_cast<double>(interval_) / 1000.0);
    last_ = row_start_ += interval_;
    row_j_ = 0;
  }
  row_j_ += w * static_cast<double>(t - last_);
  last_ = t;
}

void PowerMeter::close(Time now) {
  if (!started_ || static_cast<std::int64_t>(row_kw_.size()) > (now.sec() - first_row_) / interval_) return;
  row_kw_.push_back(row_j_ / static_cast<double>(interval_) / 1000.0);
  row_j_ = 0;
}

void PowerMeter::charge(JobId job, std::int64_t gpus, Time seconds, double watts) {
  job_j_[job] += model_.facility(watts * static_cast<double>(gpus)) * static_cast<double>(seconds.sec());
}

void PowerMeter::waste(WasteCause cause, double gpu_seconds, double watts) {
  wasted_j_[static_cast<std::size_t>(cause)] += model_.facility(watts) * gpu_seconds;
}

double PowerMeter::jobs_kwh() const { return std::accumulate(job_j_.begin(), job_j_.end(), 0.0) / 3.6e6; }

std::vector<double> PowerMeter::histogram(bool with_idle) const {
  std::vector<double> h(2001, 0.0);
  const auto add = [&](double watts, double gpu_seconds) {
    h[static_cast<std::size_t>(std::clamp(watts + 0.5, 0.0, static_cast<double>(h.size() - 1)))] += gpu_seconds;
  };
  if (with_idle) add(model_.settings().idle_w, static_cast<double>(idle_window_s_));
  add(model_.settings().held_w, held_window_s_);
  for (std::size_t i = 0; i < running_window_s_.size(); ++i) add(model_.level_w(i), running_window_s_[i]);
  return h;
}

double PowerMeter::quantile(const std::vector<double>& histogram, double q) {
  const double total = std::accumulate(histogram.begin(), histogram.end(), 0.0);
  double seen = 0;
  for (std::size_t w = 0; w < histogram.size(); ++w) {
    seen += histogram[w];
    if (total > 0 && seen >= q * total) return static_cast<double>(w);
  }
  return 0;
}

double PowerMeter::mean_kw(std::int64_t time_s) const {
  const std::int64_t i = (time_s - first_row_) / interval_;
  return i >= 0 && i < static_cast<std::int64_t>(row_kw_.size()) ? row_kw_[static_cast<std::size_t>(i)] : 0.0;
}

void PowerMeter::check_conservation() const {
  const double parts = std::accumulate(job_j_.begin(), job_j_.end(), 0.0) + (idle_kwh() + nodes_kwh()) * 3.6e6 - saved_j_;
  if (std::abs(parts - total_j_) > 1e-6 * std::max(1.0, total_j_))
    throw std::logic_error("conservation: energy of jobs, idle GPUs and nodes, less what capping saved (" +
                           std::to_string(parts / 3.6e6) +
                           " kWh) differs from the integral of cluster power (" + std::to_string(total_j_ / 3.6e6) +
                           " kWh)");
}

}  // namespace acme
