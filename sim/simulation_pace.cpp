// The Simulation (sim/simulation.h): runs paced by model features (Feature::kPaced, sim/feature.h),
// such as slow nodes (features/stragglers.h). A run's rate is its network slowdown, the power
// cap's clock and the features' pace multiplied; when the pace changes the run is retimed as the
// network's contention retimes it (its end moves, the work done is kept), and the compute its
// slowness cost is charged when the run stops. A feature may stop a run (Feature::Stop: a slow
// node evicted, evict(); a time limit passed, finish() as TIMEOUT).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/simulation.h"

namespace acme {

void Simulation::start_pace(JobId job, std::uint32_t start) {
  CurrentRun& c = current(job);
  c.pace = 1.0;
  c.pace_mark = Time{};
  c.pace_lost = 0;
  c.pace_next = Time::max();
  for (Feature* f : on_paced_) {
    const Feature::Pace p = f->run_started(job, workload_.keys[job], start, workload_.requests[job], now_);
    c.pace *= p.factor;
    c.pace_next = std::min(c.pace_next, p.next);
  }
  if (c.pace_next <= now_) throw std::logic_error("a feature's pace changes again at the instant it started");
  c.slowdown *= c.pace;
}

void Simulation::queue_pace(JobId job, Time end) {
  CurrentRun& c = current(job);
  if (c.pace_next > end) return;  // the run ends first (a later retime may queue it)
  events_.push(c.pace_next, EventKind::PaceChange, job, run_of(job).starts);
  c.pace_next = Time::max();
}

void Simulation::change_pace(JobId job) {
  CurrentRun& c = current(job);
  const std::uint32_t start = run_of(job).starts - 1;
  const Time compute = split(job, now_ - c.started).compute;
  if (c.pace > 1.0) c.pace_lost += static_cast<double>((compute - c.pace_mark).sec()) * (1.0 - 1.0 / c.pace);
  c.pace_mark = compute;
  double pace = 1.0;
  Time next = Time::max();
  Feature::Stop stop = Feature::Stop::None;
  // A job that saves no checkpoints is not stopped (it would start over: it tolerates), nor one
  // whose stops kept nothing kMaxFailures times in a row.
  const bool may_stop = run_of(job).barren < kMaxFailures && checkpoint_interval(job) > Time{};
  for (Feature* f : on_paced_) {
    const Feature::Pace p = f->paced(job, workload_.keys[job], start, c.started, now_, may_stop);
    pace *= p.factor;
    next = std::min(next, p.next);
    stop = std::max(stop, p.stop);
  }
  if (stop == Feature::Stop::Timeout) return finish(job, JobState::Timeout);
  if (stop != Feature::Stop::None) return evict(job, stop == Feature::Stop::Replace);
  if (next <= now_) throw std::logic_error("a feature's pace changes again at the instant it changed");
  c.pace = pace;
  c.pace_next = next;
  retime(job, slowdown_now(job));  // queues the next change if the run's new end comes after it
  if (c.pace_next == Time::max()) return;
  // Its rate did not change (retime did nothing): its end is where it was.
  const Time end = c.retimed ? c.progress.end_at
                              : c.started + held_for(job, Time::seconds(static_cast<std::int64_t>(std::ceil(
                                                          static_cast<double>(run_of(job).remaining.sec()) * c.slowdown))));
  queue_pace(job, end);
}

void Simulation::evict(JobId job, bool replace) {
  CurrentRun& c = current(job);
  const JobRequest& request = workload_.requests[job];
  // Its saves are safe once written: the job leaves every node it ran on, and their host memory's
  // and SSDs' copies with them.
  const CheckpointModel::Kept kept_at = kept_after(job, request.node_num);
  const RunSplit s = split(job, now_ - c.started, kept_at);
  stop_pace(job, s.compute, s.saved);
  note_training_run(job, s, s.compute - s.saved, &TrainingTimes::evicted);
  const auto kept = static_cast<std::int64_t>(work_done(job, s.saved));
  c.retimed = false;
  if (replace) {  // it keeps its resources: only its run stops
    for (Feature* f : on_routed_) f->run_left(job);
    if (storage_) leave_storage(job);
    account_run(job);
  } else {
    stop_run(job);
  }
  charge_short_run(job, s, kept, pace_cause(), kept_at.from);
  emit(FactKind::Preempted, job);  // its resources given back (and, replaced, taken again at once)
  if (replace) return start_run(job);
  note_training_step(job, TrainingStep::Requeued);
  status_[job] = Status::Pending;
  ++pending_;
  free_slot(job);
  policy_->on_stopped(job);
  policy_->on_queued(job, request);
}

WasteCause Simulation::pace_cause() const {
  if (!(causes_listed_ & cause_bit(pace_cause_)))
    throw std::logic_error("a feature slowed or evicted a run but names no cause of waste (Feature::waste_causes)");
  return pace_cause_;
}

void Simulation::stop_pace(JobId job, Time compute, Time kept) {
  CurrentRun& c = current(job);
  if (c.pace > 1.0) c.pace_lost += static_cast<double>((compute - c.pace_mark).sec()) * (1.0 - 1.0 / c.pace);
  double lost = c.pace_lost;
  if (kept < compute) lost = compute > Time{} ? lost * static_cast<double>(kept.sec()) / static_cast<double>(compute.sec()) : 0.0;
  if (lost > 0) waste(job, pace_cause(), std::llround(static_cast<double>(workload_.requests[job].gpu_num) * lost));
  for (Feature* f : on_paced_) f->run_stopped(job, lost);
  c.pace = 1.0;
  c.pace_lost = 0;
  c.pace_next = Time::max();
}

}  // namespace acme
