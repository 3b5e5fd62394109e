// The Simulation (sim/simulation.h): the network with contention, and network faults.
#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/error.h"

namespace acme {

void Simulation::set_network(const NetworkModel* network, Time link_interval) {
  network_ = network;
  if (!network || !network->settings().contention) return;
  sharing_ = std::make_unique<LinkSharing>(topology_, link_interval);
  health_ = topology_.healthy();
  link_faults_.assign(static_cast<std::size_t>(topology_.link_count()), 0);
  cut_off_.assign(static_cast<std::size_t>(cluster_.node_count()), 0);
  const auto& faults = network->settings().faults;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const NetworkSettings::Fault& f = faults[i];
    std::vector<int> links;
    if (const auto sw = topology_.find_switch(f.target)) links = topology_.links_of_switch(*sw);
    else if (const auto link = topology_.find_link(f.target)) links = {*link};
    else
      throw InputError("network.faults: the topology has no switch or link named '" + f.target +
                       "' (switches are named like 'leaf 0', 'spine 1', 'core 0'; links like 'leaf 0-spine 1')");
    fault_links_.push_back(std::move(links));
  }
}

void Simulation::route_of(JobId job) {
  route_nodes_.clear();
  for (const NodeShare& s : placement_of(job)) route_nodes_.push_back(s.node);
  topology_.route(route_nodes_, health_, route_);
}

double Simulation::network_slowdown(JobId job) const {
  const JobRequest& r = workload_.requests[job];
  if (!network_) return 1.0;
  if (!sharing_) return network_->slowdown(r, outcomes_[job].leaves_spanned);
  return network_->slowdown_starved(r, sharing_->starvation(job), outcomes_[job].leaves_spanned);
}

void Simulation::join_network(JobId job) {
  route_of(job);
  sharing_->add(job, route_, network_->need_gbps(workload_.requests[job].type), changed_);
  current(job).slowdown = network_slowdown(job) / clock_;
  outcomes_[job].slowdown = static_cast<float>(current(job).slowdown);
  retime_changed();
}

void Simulation::schedule_changes() {
  changes_scheduled_ = true;
  // From the start of the workload's window, or else of its first event (a fed workload's first
  // release is not known before the run); a fault over before then never happens.
  const Time origin = workload_.window_from.value_or(now_);
  const auto& faults = network_->settings().faults;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    if (origin + faults[i].from + faults[i].duration <= now_) continue;
    events_.push(std::max(now_, origin + faults[i].from), EventKind::NetworkChange, static_cast<JobId>(i), 1);
    events_.push(origin + faults[i].from + faults[i].duration, EventKind::NetworkChange, static_cast<JobId>(i), 0);
  }
}

std::size_t Simulation::start_network_fault(int sw) {
  fault_links_.push_back(topology_.links_of_switch(sw));
  change_network(fault_links_.size() - 1, true);
  return fault_links_.size() - 1;
}

void Simulation::leave_network(JobId job) {
  if (!sharing_->has(job)) return;
  sharing_->remove(job, changed_);
  retime_changed();
}

void Simulation::retime_changed() {
  std::vector<JobId> jobs;
  jobs.swap(changed_);
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  for (JobId job : jobs)
    if (status_[job] == Status::Running) retime(job, slowdown_now(job));
  jobs.clear();
  changed_.swap(jobs);  // keeps the capacity
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

void Simulation::change_network(std::size_t fault, bool down) {
  std::vector<int> flipped;
  for (int link : fault_links_[fault]) {
    int& holding = link_faults_[static_cast<std::size_t>(link)];
    holding += down ? 1 : -1;
    if (holding == (down ? 1 : 0)) flipped.push_back(link);
  }
  topology_.set_down(health_, flipped, down);
  // Nodes left without a path stop their jobs and go down; those with a path again come back.
  std::vector<std::uint8_t> cut(cut_off_.size(), 0);
  for (int node : topology_.cut_off_nodes(health_)) cut[static_cast<std::size_t>(node)] = 1;
  std::vector<int> newly_cut, reconnected;
  for (std::size_t n = 0; n < cut.size(); ++n) {
    if (cut[n] && !cut_off_[n]) newly_cut.push_back(static_cast<int>(n));
    if (!cut[n] && cut_off_[n]) reconnected.push_back(static_cast<int>(n));
  }
  cut_off_ = std::move(cut);
  for (int node : reconnected) maybe_bring_up(node);
  take_nodes_down(newly_cut, std::nullopt);
  // The routes of the jobs still running move to what is left; those whose starvation changed
  // are retimed (rounding in the rebuilt sums does not count).
  const std::vector<JobId> moved = sharing_->jobs();
  std::vector<double> before;
  for (JobId job : moved) before.push_back(sharing_->starvation(job));
  for (JobId job : moved) sharing_->remove(job, changed_);
  for (JobId job : moved) {
    route_of(job);
    sharing_->add(job, route_, network_->need_gbps(workload_.requests[job].type), changed_);
  }
  changed_.clear();
  for (std::size_t i = 0; i < moved.size(); ++i)
    if (!LinkSharing::same(before[i], sharing_->starvation(moved[i]))) changed_.push_back(moved[i]);
  retime_changed();
}

}  // namespace acme
