// The Simulation (sim/simulation.h): nodes held out of service by model features (drains, nodes
// not yet added, leaf switches down: features/capacity.cpp), and the nodes that come back.
#include "sim/simulation.h"

namespace acme {

void Simulation::hold_nodes(const std::vector<int>& nodes, FeatureControl::Vacate how) {
  if (held_down_.empty()) held_down_.assign(static_cast<std::size_t>(cluster_.node_count()), 0);
  for (int n : nodes) ++held_down_[static_cast<std::size_t>(n)];
  if (how == FeatureControl::Vacate::Fail) {  // as a failure of the nodes, until the holds end
    take_nodes_down(nodes, std::nullopt);
    return;
  }
  if (how == FeatureControl::Vacate::Kill) {
    for (JobId job : jobs_on(nodes)) {
      if (status_[job] == Status::Running) preempt(job, SchedulingPass::Preempt::Kill);
      else requeue(job);
    }
  }
  for (int n : nodes) {
    if (cluster_.is_down(n)) continue;
    if (cluster_.is_empty(n)) {
      cluster_.take_down(n);
    } else {
      cluster_.cordon(n);
      cordons_ = true;
    }
  }
}

void Simulation::release_nodes(const std::vector<int>& nodes) {
  for (int n : nodes) {
    if (--held_down_[static_cast<std::size_t>(n)] == 0) cluster_.uncordon(n);
    maybe_bring_up(n);
  }
}

void Simulation::maybe_bring_up(int node) {
  const auto n = static_cast<std::size_t>(node);
  if (!cluster_.is_down(node)) return;
  if (!node_up_at_.empty() && now_ < node_up_at_[n]) return;  // its repair is not over
  if (!held_down_.empty() && held_down_[n] > 0) return;
  cluster_.bring_up(node);
}

void Simulation::retire_drained(const Placement& released) {
  for (const NodeShare& s : released)
    if (cluster_.is_cordoned(s.node) && cluster_.is_empty(s.node)) cluster_.take_down(s.node);
}

}  // namespace acme
