// The Simulation (sim/simulation.h): power and energy.
#include "sim/simulation.h"

#include <algorithm>


namespace acme {

void Simulation::set_power(const PowerModel* model, Time interval) {
  if (!model || !model->settings().enabled) return;
  power_ = model;
  meter_ = std::make_unique<PowerMeter>(*model, interval, workload_.size(), workload_.window_from, workload_.window_to);
  run_w_.assign(workload_.size(), RunPower{});
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
  l.clock = power_->clock_for(base, dynamic, clock_);
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
  if (workload_.requests[job].gpu_num == 0) return;  // CPU jobs: their nodes' overhead only
  // The part of the run its GPUs sit idle, as planned: launch, reload, checkpoint saves, and the
  // job's idle share of its compute.
  const double idle = static_cast<double>((wall - compute).sec()) + idle_share(job) * static_cast<double>(compute.sec());
  const double share = wall > Time{} ? idle / static_cast<double>(wall.sec()) : 1.0;
  const double job_w = power_->job_w(job, workload_.requests[job]);
  const float w = static_cast<float>(power_->settings().held_w * share + job_w * (1.0 - share));
  run_w_[job] = RunPower{w, static_cast<float>(job_w)};
  allocated_w_ += static_cast<double>(workload_.requests[job].gpu_num) * w;
  dynamic_w_ += static_cast<double>(workload_.requests[job].gpu_num) * std::max(0.0, w - power_->settings().held_w);
}

void Simulation::stop_power(JobId job, Time held) {
  const std::int64_t gpus = workload_.requests[job].gpu_num;
  if (gpus == 0) return;
  const double w = run_w_[job].w;
  meter_->charge(job, gpus, held, w);
  allocated_w_ -= static_cast<double>(gpus) * w;
  dynamic_w_ -= static_cast<double>(gpus) * std::max(0.0, w - power_->settings().held_w);
  // The GPU-time at held power and at each GPU's running power, in the run's mix.
  const JobRequest& request = workload_.requests[job];
  const double held_w = power_->settings().held_w, job_w = run_w_[job].job_w;
  const double run_share = job_w != held_w ? (w - held_w) / (job_w - held_w) : 1.0;
  const double gpu_s = static_cast<double>(gpus) * meter_->in_window(now_ - held, now_);
  meter_->note_gpu_time(held_w, gpu_s * (1.0 - run_share), true);
  const double per_gpu = gpu_s * run_share / static_cast<double>(gpus);
  power_->each_gpu_draw(job, request, [&](double draw) { meter_->note_gpu_time(draw, per_gpu, true); });
}

}  // namespace acme
