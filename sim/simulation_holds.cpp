// The Simulation (sim/simulation.h): scheduled changes of capacity and of the network.
#include "sim/simulation.h"

#include <algorithm>
#include <numeric>

namespace acme {

void Simulation::set_capacity(const CapacitySettings* capacity) {
  if (!capacity || capacity->events.empty()) return;
  capacity_ = capacity;
  held_down_.assign(static_cast<std::size_t>(cluster_.node_count()), 0);
  // Added nodes are the last ones, down until they arrive.
  int next = cluster_.node_count() - capacity->added_nodes();
  event_fault_.assign(capacity->events.size(), 0);
  for (const CapacityEvent& e : capacity->events) {
    added_first_.push_back(next);
    if (e.kind != CapacityEvent::Kind::Add) continue;
    for (int n = next; n < next + e.first; ++n) {
      ++held_down_[static_cast<std::size_t>(n)];
      cluster_.take_down(n);
    }
    next += e.first;
  }
  capacity_log_.note(now_, cluster_.gpus_in_service());
}

void Simulation::schedule_changes() {
  changes_scheduled_ = true;
  // From the start of the workload's window, or else of its first event (a fed workload's first
  // release is not known before the run); a change over before then never happens.
  const Time origin = workload_.window_from.value_or(now_);
  auto schedule = [&](EventKind kind, std::size_t index, Time from, std::optional<Time> duration) {
    const Time start = std::max(now_, origin + from);
    if (duration && origin + from + *duration <= now_) return;
    events_.push(start, kind, static_cast<JobId>(index), 1);
    if (duration) events_.push(origin + from + *duration, kind, static_cast<JobId>(index), 0);
  };
  if (network_ && sharing_)
    for (std::size_t i = 0; i < network_->settings().faults.size(); ++i)
      schedule(EventKind::NetworkChange, i, network_->settings().faults[i].from, network_->settings().faults[i].duration);
  if (capacity_)
    for (std::size_t i = 0; i < capacity_->events.size(); ++i) {
      const CapacityEvent& e = capacity_->events[i];
      const bool ends = e.kind != CapacityEvent::Kind::Add;
      schedule(EventKind::CapacityChange, i, e.at, ends ? std::optional<Time>(e.duration) : std::nullopt);
    }
}

void Simulation::maybe_bring_up(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (!cluster_.is_down(node)) return;
  if (!node_up_at_.empty() && now_ < node_up_at_[n]) return;  // its repair is not over
  if (!cut_off_.empty() && cut_off_[n]) return;
  if (!held_down_.empty() && held_down_[n] > 0) return;
  cluster_.bring_up(node);
}

void Simulation::retire_drained(const Placement& released) {
  for (const NodeShare& s : released)
    if (cluster_.is_cordoned(s.node) && cluster_.is_empty(s.node)) cluster_.take_down(s.node);
}

void Simulation::change_capacity(std::size_t event, bool start) {
  const CapacityEvent& e = capacity_->events[event];
  std::vector<int> nodes;
  switch (e.kind) {
    case CapacityEvent::Kind::Drain:
      nodes.resize(static_cast<std::size_t>(e.last - e.first + 1));
      std::iota(nodes.begin(), nodes.end(), e.first);
      break;
    case CapacityEvent::Kind::Add:
      nodes.resize(static_cast<std::size_t>(e.first));
      std::iota(nodes.begin(), nodes.end(), added_first_[event]);
      break;
    case CapacityEvent::Kind::LeafDown:
      if (sharing_) {  // a network fault: routes move, cut-off nodes stop their jobs
        if (start) event_fault_[event] = start_network_fault(e.first);
        else change_network(event_fault_[event], false);
        return;
      }
      nodes = topology_.nodes_in_domain(Topology::Domain::Leaf, e.first);
      break;
  }
  if (e.kind == CapacityEvent::Kind::Add) {  // they arrive
    for (int n : nodes) {
      --held_down_[static_cast<std::size_t>(n)];
      maybe_bring_up(n);
    }
    return;
  }
  if (!start) {
    for (int n : nodes) {
      --held_down_[static_cast<std::size_t>(n)];
      if (held_down_[static_cast<std::size_t>(n)] == 0) cluster_.uncordon(n);
      maybe_bring_up(n);
    }
    return;
  }
  for (int n : nodes) ++held_down_[static_cast<std::size_t>(n)];
  if (e.kind == CapacityEvent::Kind::LeafDown) {  // the nodes lose their network: as a failure
    take_nodes_down(nodes, std::nullopt);
    return;
  }
  if (capacity_->kill_drained) {
    for (JobId job : jobs_on(nodes)) {
      if (status_[job] == Status::Running) preempt(job, SchedulingPass::Preempt::Kill);
      else requeue(job);
    }
  }
  for (int n : nodes) {
    if (cluster_.is_down(n)) continue;
    if (cluster_.is_empty(n)) cluster_.take_down(n);
    else cluster_.cordon(n);
  }
}

}  // namespace acme
