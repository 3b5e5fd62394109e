// The Simulation (sim/simulation.h): power and energy.
#include "sim/simulation.h"

#include <algorithm>


namespace acme {

void Simulation::set_power(const PowerModel* model, Time interval) {
  if (!model || !model->settings().enabled) return;
  power_ = model;
  meter_ = std::make_unique<PowerMeter>(*model, interval, workload_.size(), workload_.window_from, workload_.window_to);
  run_w_.assign(workload_.size(), 0.0f);
  note_power_level();
}

void Simulation::note_power_level() {
  const PowerSettings& s = power_->settings();
  PowerMeter::Level& l = level_;
  l.up_nodes = cluster_.node_count() - cluster_.down_nodes();
  l.allocated_gpus = cluster_.allocated_gpus();
  l.idle_gpus = l.up_nodes * cluster_.gpus_per_node() - l.allocated_gpus;
  // What a cap can throttle: the jobs' power above held_w (jobs drawing less are not throttled).
  const double dynamic = dynamic_w_;
  const double base = s.idle_w * static_cast<double>(l.idle_gpus) + s.node_w * static_cast<double>(l.up_nodes) +
                      allocated_w_ - dynamic;
  l.uncapped_w = base + dynamic;
  l.clock = power_->clock_for(base, dynamic);
  l.it_w = l.clock < 1.0 ? base + dynamic * l.clock * l.clock * l.clock : l.uncapped_w;
  if (l.clock == clock_) return;
  // Every running job's rate follows the clock.
  clock_ = l.clock;
  for (std::size_t slot = 0; slot < held_.size(); ++slot) {
    const JobId job = held_by_[slot];
    if (slot_[job] == slot && status_[job] == Status::Running) retime(job, network_slowdown(job) / clock_);
  }
}

void Simulation::start_power(JobId job, Time compute, Time wall) {
  // The part of the run its GPUs sit idle, as planned: launch, reload, checkpoint saves, and the
  // job's idle share of its compute.
  const double idle = static_cast<double>((wall - compute).sec()) + idle_share(job) * static_cast<double>(compute.sec());
  const double share = wall > Time{} ? idle / static_cast<double>(wall.sec()) : 1.0;
  const float w = static_cast<float>(power_->settings().held_w * share + power_->busy_w(job) * (1.0 - share));
  run_w_[job] = w;
  allocated_w_ += static_cast<double>(workload_.requests[job].gpu_num) * w;
  dynamic_w_ += static_cast<double>(workload_.requests[job].gpu_num) * std::max(0.0, w - power_->settings().held_w);
}

void Simulation::stop_power(JobId job, Time held) {
  const std::int64_t gpus = workload_.requests[job].gpu_num;
  const double w = run_w_[job];
  meter_->charge(job, gpus, held, w);
  allocated_w_ -= static_cast<double>(gpus) * w;
  dynamic_w_ -= static_cast<double>(gpus) * std::max(0.0, w - power_->settings().held_w);
  // The GPU-time at held and at busy power, in the run's mix.
  const double held_w = power_->settings().held_w, busy_w = power_->busy_w(job);
  const double busy_share = busy_w != held_w ? (w - held_w) / (busy_w - held_w) : 1.0;
  const double gpu_s = static_cast<double>(gpus) * meter_->in_window(now_ - held, now_);
  meter_->note_gpu_time(held_w, gpu_s * (1.0 - busy_share));
  meter_->note_gpu_time(busy_w, gpu_s * busy_share);
}

}  // namespace acme
