// The Simulation (sim/simulation.h): runs whose rate changes (the network's contention, the power
// cap's clock, the features' pace): the end moves, the work done is kept.
#include "sim/simulation.h"

#include <algorithm>
#include <cmath>

namespace acme {

void Simulation::set_network_factor(JobId job, double factor, bool retime) {
  CurrentRun& c = current(job);
  c.net = factor;
  if (job == starting_) {  // being placed: its rate from the start
    c.slowdown = factor / clock_;
    outcomes_[job].slowdown = static_cast<float>(c.slowdown);
  } else if (retime && status_[job] == Status::Running) {
    this->retime(job, slowdown_now(job));
  }
}

void Simulation::set_clock(double clock) {
  if (clock == clock_) return;
  clock_ = clock;
  for (std::size_t slot = 0; slot < held_.size(); ++slot) {
    const JobId job = held_by_[slot];
    if (slot_[job] == slot && status_[job] == Status::Running) retime(job, slowdown_now(job));
  }
}

void Simulation::retime(JobId job, double slowdown) {
  if (slowdown != current(job).slowdown) move_end(job, slowdown);
}

void Simulation::move_end(JobId job, double slowdown) {
  const Run r = run_of(job);
  CurrentRun& c = current(job);
  const bool fresh = !c.retimed;
  if (fresh) c.progress = {}, c.retimed = true;
  RunProgress& p = c.progress;
  const Time was = p.end_at;
  const Time compute = split(job, now_ - c.started).compute;
  p.work += static_cast<double>((compute - p.compute_mark).sec()) / c.slowdown;
  p.compute_mark = compute;
  c.slowdown = slowdown;
  const double left = std::max(0.0, static_cast<double>(r.remaining.sec()) - p.work);
  // Less a microsecond: the work summed over rate changes may miss the whole by a rounding error.
  const auto more = static_cast<std::int64_t>(std::ceil(left * slowdown - 1e-6));
  p.end_at = std::max(now_, c.started + held_for(job, compute + Time::seconds(std::max<std::int64_t>(more, 0))));
  if (c.pace_next != Time::max()) queue_pace(job, p.end_at);  // a pace change it now reaches
  if (c.fails_after_s >= 0 && c.started + Time::seconds(c.fails_after_s) <= p.end_at) return;  // it fails first
  if (fresh || p.end_at != was) events_.push(p.end_at, EventKind::JobEnd, job, r.starts);
}

double Simulation::work_done(JobId job, Time compute) const {
  const CurrentRun& r = current(job);
  if (!r.retimed) return static_cast<double>(compute.sec()) / r.slowdown;
  const RunProgress& p = r.progress;
  if (compute >= p.compute_mark) return p.work + static_cast<double>((compute - p.compute_mark).sec()) / r.slowdown;
  // Within the earlier rates, whose history is not kept: in proportion.
  return p.compute_mark > Time{} ? p.work * static_cast<double>(compute.sec()) / static_cast<double>(p.compute_mark.sec())
                                 : 0.0;
}

}  // namespace acme
