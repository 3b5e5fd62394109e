// The Simulation (sim/simulation.h): what each run holds, wastes and is split into, and the
// GPU-time held inside the workload's window.
#include "sim/simulation.h"

#include <algorithm>

namespace acme {

std::int64_t Simulation::window_seconds_since(Time from) const {
  from = std::max(from, workload_.window_from.value_or(from));
  const Time to = std::min(now_, workload_.window_to.value_or(now_));
  return to > from ? (to - from).sec() : 0;
}

void Simulation::change_allocated(JobType type, std::int64_t gpus) {
  const auto t = static_cast<std::size_t>(type);
  window_integral_[t] += allocated_by_type_[t] * window_seconds_since(window_mark_[t]);
  window_mark_[t] = now_;
  allocated_by_type_[t] += gpus;
}

std::array<std::int64_t, kJobTypeCount> Simulation::window_gpu_seconds() const {
  std::array<std::int64_t, kJobTypeCount> held = window_integral_;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) held[t] += allocated_by_type_[t] * window_seconds_since(window_mark_[t]);
  return held;
}

void Simulation::account_run(JobId job) {
  JobOutcome& o = outcomes_[job];
  const Time held = now_ - current(job).started;
  for (Feature* f : on_held_) f->run_released(job, held);
  const Time launch = std::min(held, Time::seconds(current(job).launch_s));
  if (o.start && *o.start > now_) o.start = now_;  // stopped while it launched
  o.add_run_time(held - launch);
  o.gpu_seconds += std::int64_t{workload_.requests[job].gpu_num} * held.sec();
}

// Part of a job's resources (a failed job's).
std::int64_t Simulation::give_back(JobId job, const Placement& resources) {
  cluster_.release(resources);
  if (cordons_) retire_drained(resources);
  const std::int64_t gpus = gpus_of(resources);
  change_allocated(workload_.requests[job].type, -gpus);
  return gpus;
}

void Simulation::charge_waste(JobId job, WasteCause cause, std::int64_t gpu_seconds) {
  for (Feature* f : on_held_) f->wasted(job, cause, gpu_seconds);
  outcomes_[job].wasted_gpu_seconds += gpu_seconds;
  wasted_[static_cast<std::size_t>(cause)] += gpu_seconds;
}

Simulation::Run Simulation::run_of(JobId job) const {
  if (in_restarted_[job]) return restarted_.find(job)->second;
  return {workload_.profiles[job].run, outcomes_[job].start ? 1u : 0u, 0};
}

Simulation::Run& Simulation::restarted(JobId job) {
  if (in_restarted_[job]) return restarted_.find(job)->second;
  const Run implied = run_of(job);
  in_restarted_[job] = true;
  return restarted_.emplace(job, implied).first->second;
}

CheckpointModel::Kept Simulation::kept_after(JobId job, int nodes_lost) const {
  if (!failures_) return {CheckpointModel::Restore::Storage, Time{}};
  return failures_->checkpoints().kept(workload_.requests[job], nodes_lost);
}

Simulation::RunSplit Simulation::split(JobId job, Time held, CheckpointModel::Kept kept) const {
  const Time persist_lag = kept.lag;
  const Time launch = std::min(held, Time::seconds(current(job).launch_s));
  held = held - launch;
  const SaveClock* k = clock_of(job);
  if (k && k->loading) return {launch, held, Time{}, Time{}, Time{}};  // still restarting: its read not done
  const Time overhead = std::min(held, Time::seconds(std::max(run_of(job).overhead_s, 0)));
  held = held - overhead;
  const Time interval = checkpoint_interval(job);
  if (interval <= Time{}) return {launch, overhead, Time{}, held, Time{}};
  if (k) {  // its saves as they went (held ends now)
    Time compute = k->compute, stall = k->stall;
    if (now_ > k->phase_start) (k->stalled ? stall : compute) += now_ - k->phase_start;
    // Safe at once, once written to storage, or once on the SSDs: the last save to leave its stall
    // when it left kept.lag ago or more, the earlier ones all (they left an interval of compute
    // before it, taken to be longer than an SSD write: seconds against minutes).
    std::uint32_t safe = persist_lag > Time{} ? k->written : k->stalled_out;
    if (kept.from == CheckpointModel::Restore::Ssd && k->stalled_out > 0)
      safe = std::max(safe, k->stalled_out - (now_ - k->out_at < persist_lag ? 1u : 0u));
    return {launch, overhead, stall, compute, Time::seconds(safe * interval.sec())};
  }
  const Time per_save = checkpoint_stall(job);
  const std::int64_t cycle = interval.sec() + per_save.sec();
  const std::int64_t saves = held.sec() / cycle;
  const std::int64_t partial = std::max<std::int64_t>(0, held.sec() - saves * cycle - interval.sec());
  const Time stall = Time::seconds(saves * per_save.sec() + partial);
  // Save k (from 1) ends its stall at k x cycle and is safe persist_lag later.
  const std::int64_t safe = std::clamp<std::int64_t>((held.sec() - persist_lag.sec()) / cycle, 0, saves);
  return {launch, overhead, stall, held - stall, Time::seconds(safe * interval.sec())};
}

Time Simulation::held_for(JobId job, Time compute) const {
  if (const SaveClock* k = clock_of(job)) {  // from now: what is left of a stall, the compute left, the saves left
    const Time from = k->loading ? compute_from(job, *k) : k->stalled ? now_ + stall_left(job, *k) : std::max(now_, k->phase_start);
    const Time done = k->compute + (k->stalled || k->loading ? Time{} : std::max(now_ - k->phase_start, Time{}));
    const std::int64_t saves = compute > Time{} ? (compute.sec() - 1) / checkpoint_interval(job).sec() : 0;
    const std::int64_t more = std::max<std::int64_t>(saves - k->begun, 0) * checkpoint_stall(job).sec();
    return from + (compute - done) + Time::seconds(more) - current(job).started;
  }
  Time wall = compute;
  if (const Time interval = checkpoint_interval(job); interval > Time{} && wall > Time{}) {
    const std::int64_t saves = (wall.sec() - 1) / interval.sec();  // none at the very end
    wall += Time::seconds(saves * checkpoint_stall(job).sec());
  }
  return wall + Time::seconds(run_of(job).overhead_s) + Time::seconds(current(job).launch_s);
}

}  // namespace acme
