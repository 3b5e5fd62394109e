// The Simulation (sim/simulation.h): power and energy.
#include "sim/simulation.h"

#include <algorithm>
#include <limits>


namespace acme {

void Simulation::set_power(const PowerModel* model, Time interval) {
  if (!model || !model->settings().enabled) return;
  power_ = model;
  meter_ = std::make_unique<PowerMeter>(*model, interval, workload_.size(), workload_.window_from, workload_.window_to);
  // Its first level is taken at the first step, once the features have held down what they hold
  // from the start (Simulation::begin_features).
}

PowerMeter::Level Simulation::power_level() const {
  const PowerSettings& s = power_->settings();
  PowerMeter::Level l;
  l.up_nodes = cluster_.node_count() - cluster_.down_nodes();
  l.allocated_gpus = cluster_.allocated_gpus();
  l.idle_gpus = l.up_nodes * cluster_.gpus_per_node() - l.allocated_gpus;
  // What a cap can throttle: the jobs' power above held_w (jobs drawing less are not throttled).
  const double dynamic = dynamic_w_;
  const double base = s.idle_w * static_cast<double>(l.idle_gpus) + s.node_w * static_cast<double>(l.up_nodes) +
                      allocated_w_ - dynamic;
  l.uncapped_w = base + dynamic;
  l.clock = power_->clock_for(base, dynamic, clock_);
  l.it_w = l.clock < 1.0 ? base + dynamic * l.clock * l.clock * l.clock : l.uncapped_w;
  return l;
}

void Simulation::note_power_level() {
  // The level is a function of these (and of the clock, which a cap leaves where it is for the
  // same ones): most steps that start or stop nothing change none.
  const PowerInputs inputs{allocated_w_, dynamic_w_, cluster_.allocated_gpus(), cluster_.down_nodes()};
  if (inputs == power_inputs_) return;
  power_inputs_ = inputs;
  const PowerMeter::Level l = power_level();
  if (l == level_) return;
  meter_->advance(now_, level_);  // the old level ends now
  level_ = l;
  if (l.clock == clock_) return;
  // Every running job's rate follows the clock.
  clock_ = l.clock;
  for (std::size_t slot = 0; slot < held_.size(); ++slot) {
    const JobId job = held_by_[slot];
    if (slot_[job] == slot && status_[job] == Status::Running) retime(job, slowdown_now(job));
  }
}

void Simulation::start_power(JobId job, Time compute, Time wall) {
  const JobRequest& request = workload_.requests[job];
  if (request.gpu_num == 0) return;  // CPU jobs: their nodes' overhead only
  // The part of the run its GPUs sit idle, as planned: launch, reload, checkpoint saves, and the
  // job's idle share of its compute.
  const double idle = static_cast<double>((wall - compute).sec()) + idle_share(job) * static_cast<double>(compute.sec());
  RunPower& p = current(job).power;
  p.run_share = wall > Time{} ? static_cast<float>(1.0 - idle / static_cast<double>(wall.sec())) : 0.0f;
  p.planned_s = static_cast<std::int32_t>(
      std::min<std::int64_t>(meter_->window_seconds(now_, now_ + wall), std::numeric_limits<std::int32_t>::max()));
  // Each GPU's draw, and its running GPU-time as planned (stop_power corrects it if the run changes).
  const double per_gpu = static_cast<double>(p.planned_s) * p.run_share;
  double sum = 0;
  power_->each_gpu_level(workload_.keys[job], request, [&](std::size_t level) {
    sum += power_->level_w(level);
    meter_->note_running_gpu_time(level, per_gpu);
  });
  p.job_w = static_cast<float>(sum / request.gpu_num);
  const double held_w = power_->settings().held_w, w = p.w(held_w);
  allocated_w_ += static_cast<double>(request.gpu_num) * w;
  dynamic_w_ += static_cast<double>(request.gpu_num) * std::max(0.0, w - held_w);
}

void Simulation::stop_power(JobId job, Time held) {
  const JobRequest& request = workload_.requests[job];
  const std::int64_t gpus = request.gpu_num;
  if (gpus == 0) return;
  const RunPower& p = current(job).power;
  const double held_w = power_->settings().held_w, w = p.w(held_w);
  meter_->charge(job, gpus, held, w);
  allocated_w_ -= static_cast<double>(gpus) * w;
  dynamic_w_ -= static_cast<double>(gpus) * std::max(0.0, w - held_w);
  // Its GPU-time at held power; at running power, what the run changed from its plan.
  const std::int64_t seconds = meter_->window_seconds(now_ - held, now_);
  meter_->note_held_gpu_time(static_cast<double>(gpus * seconds) * (1.0 - p.run_share));
  if (seconds == p.planned_s) return;
  const double per_gpu = static_cast<double>(seconds - p.planned_s) * p.run_share;
  power_->each_gpu_level(workload_.keys[job], request, [&](std::size_t level) { meter_->note_running_gpu_time(level, per_gpu); });
}

}  // namespace acme
