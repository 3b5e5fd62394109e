// The Simulation (sim/simulation.h): failures and checkpoints.
#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace acme {

void Simulation::set_failures(const FailureModel& failures) {
  if (!failures.enabled()) return;
  failures_ = &failures;
  node_up_at_.assign(static_cast<std::size_t>(cluster_.node_count()), Time{});
  if (failures.checkpoints().shared_storage())
    storage_ = std::make_unique<StorageSharing>(failures.checkpoints().storage_gbps());
}

Time Simulation::checkpoint_interval(JobId job) const {
  return failures_ ? failures_->checkpoint_interval(workload_.requests[job].type) : Time{};
}

Time Simulation::checkpoint_stall(JobId job) const {
  return failures_ ? failures_->checkpoints().stall(workload_.requests[job]) : Time{};
}

RestartPhases Simulation::restart_of(JobId job, const Run& run) const {
  const CheckpointModel::Restore from = checkpoint_interval(job) > Time{} ? run.restore : CheckpointModel::Restore::None;
  return failures_->checkpoints().restart(workload_.requests[job], from);
}

RestartPhases Simulation::restart_phases(JobId job) const {
  if (!failures_ || !in_restarted_[job]) return {};
  const Run& r = restarted_.find(job)->second;
  if (r.overhead_s <= 0) return {};
  RestartPhases p = restart_of(job, r);
  if (const SaveClock* k = clock_of(job); k && k->load_from != Time::max())  // its read as it went
    p.load = std::min(k->load_end, now_) - k->load_from;
  return p;
}

void Simulation::note_training_run(JobId job, const RunSplit& s, Time lost, std::int64_t TrainingTimes::*lost_to) {
  if (!trains(job)) return;
  TrainingTimes t;
  if (run_of(job).starts > 1) t.launch = s.launch.sec();  // the first launch comes before the first start
  t.stall = s.stall.sec();
  t.*lost_to = lost.sec();
  // The restart overhead spent, phase by phase in order (a run may stop inside one).
  const RestartPhases p = restart_phases(job);
  Time left = s.overhead;
  for (auto [phase, into] : {std::pair{p.comm_init, &t.comm_init}, {p.load, &t.load}, {p.warmup, &t.warmup}}) {
    const Time spent = std::min(left, phase);
    *into = spent.sec();
    left = left - spent;
  }
  for (Feature* f : on_trained_) f->run_trained(job, t);
}

Simulation::Struck Simulation::struck(JobId job, FailureDomain domain) const {
  const Placement& p = placement_of(job);
  if (domain == FailureDomain::Job || p.empty()) return {};
  auto pick = static_cast<std::int64_t>(failures_->where(workload_.keys[job], run_of(job).starts - 1) * static_cast<double>(gpus_of(p)));
  int node = p.back().node;
  for (const NodeShare& share : p) {
    if (pick < share.gpus) {
      node = share.node;
      break;
    }
    pick -= share.gpus;
  }
  if (domain != FailureDomain::Leaf) return {{node}, std::nullopt};
  // The leaf switch above the struck GPU's NIC, and the nodes it cuts off.
  const int leaf = topology_.leaf_switch_of(node, topology_.nic_of_gpu(static_cast<int>(std::max<std::int64_t>(pick, 0))));
  return {topology_.nodes_in_domain(Topology::Domain::Leaf, leaf), leaf};
}

void Simulation::fail(JobId job, FailureDomain domain) {
  const Struck hit = struck(job, domain);
  stop_failed(job, hit.nodes);
  take_nodes_down(hit.nodes, now_ + failures_->repair());
  if (!hit.leaf_switch) return;
  if (const auto fault = switch_down(*hit.leaf_switch))  // with contention, the switch is down too: routes move off it
    events_.push(now_ + failures_->repair(), EventKind::NetworkChange, static_cast<JobId>(*fault), 0);
}

std::vector<JobId> Simulation::jobs_on(const std::vector<int>& nodes) const {
  std::vector<JobId> out;  // found by a scan over the slots
  for (std::size_t slot = 0; slot < held_.size(); ++slot) {
    const JobId job = held_by_[slot];
    if (slot_[job] != slot || (status_[job] != Status::Running && status_[job] != Status::Recovering))
      continue;  // a free slot
    for (const NodeShare& share : held_[slot])
      if (std::binary_search(nodes.begin(), nodes.end(), share.node)) {
        out.push_back(job);
        break;
      }
  }
  // By submit time and then the job's identity, not its row: jobs stopped together are requeued
  // in the same order whatever the file's order.
  std::sort(out.begin(), out.end(), [&](JobId a, JobId b) {
    const JobRequest &x = workload_.requests[a], &y = workload_.requests[b];
    return std::tuple(x.submit, workload_.keys[a], a) < std::tuple(y.submit, workload_.keys[b], b);
  });
  return out;
}

void Simulation::take_nodes_down(const std::vector<int>& down, std::optional<Time> repaired_at) {
  if (down.empty()) return;
  // The nodes fail under every job on them, in jobs_on's order: a running job fails too; a
  // recovering one that still holds part of them ends its hold at once.
  for (JobId other : jobs_on(down)) {
    if (status_[other] == Status::Running) stop_failed(other, down);
    else requeue(other);
  }
  for (int node : down) {
    if (!repaired_at) {  // cut off from the network: up again when a path is back
      cluster_.take_down(node);
      continue;
    }
    nodes_failed_ += !cluster_.is_down(node);  // one already down stays down until the later repair
    cluster_.take_down(node);
    node_up_at_[static_cast<std::size_t>(node)] = *repaired_at;
    events_.push(*repaired_at, EventKind::NodeUp, static_cast<JobId>(node));
  }
}

void Simulation::stop_failed(JobId job, const std::vector<int>& down) {
  Run& r = restarted(job);
  CurrentRun& c = current(job);
  // Its saves are safe at the nearest level that survived (CheckpointModel::kept).
  const auto nodes_lost = std::count_if(placement_of(job).begin(), placement_of(job).end(), [&](const NodeShare& n) {
    return std::binary_search(down.begin(), down.end(), n.node);
  });
  // (Without a failure model, a network fault stops it: it saves nothing.)
  const CheckpointModel::Kept kept_at = kept_after(job, static_cast<int>(nodes_lost));
  const RunSplit s = split(job, now_ - c.started, kept_at);
  if (!on_paced_.empty()) stop_pace(job, s.compute, s.saved);
  note_training_run(job, s, s.compute - s.saved);
  const auto kept = static_cast<std::int64_t>(work_done(job, s.saved));
  for (Feature* f : on_routed_) f->run_left(job);
  if (storage_) leave_storage(job);
  c.retimed = false;
  account_run(job);
  charge_short_run(job, s, kept, WasteCause::FailureLost, kept_at.from);
  c.started = now_;   // the recovery starts (read only while it holds its slot)
  note_training_step(job, TrainingStep::Failed);
  JobOutcome::count(outcomes_[job].failures);
  ++failures_injected_;
  status_[job] = Status::Recovering;
  // It gives back everything now, or, holding, only its share of the nodes that go down.
  Placement& held = held_[slot_[job]];
  Placement released;
  if (failures_ && failures_->holds_gpus()) {
    auto going_down = [&](const NodeShare& share) { return std::binary_search(down.begin(), down.end(), share.node); };
    for (const NodeShare& share : held)
      if (going_down(share)) released.push_back(share);
    std::erase_if(held, going_down);
  } else {
    released.swap(held);
  }
  give_back(job, released);
  if (!on_held_.empty()) {
    const std::int64_t gpus = gpus_of(held);  // its hold
    for (Feature* f : on_held_) f->hold_began(job, gpus);
  }
  emit(FactKind::Failed, job, &released);
  if (held.empty()) free_slot(job);
  policy_->on_stopped(job);
  events_.push(now_ + (failures_ ? failures_->recovery_delay() : Time{}), EventKind::Recovered, job, r.starts);
}

void Simulation::charge_short_run(JobId job, const RunSplit& s, std::int64_t kept, WasteCause lost,
                                  CheckpointModel::Restore from) {
  const std::int64_t gpus = workload_.requests[job].gpu_num;
  waste(job, WasteCause::Launch, gpus * s.launch.sec());
  waste(job, WasteCause::Restart, gpus * s.overhead.sec());
  waste(job, WasteCause::CheckpointStall, gpus * s.stall.sec());
  waste(job, lost, gpus * (s.compute - s.saved).sec());
  Run& r = restarted(job);
  r.remaining = std::max(r.remaining - Time::seconds(kept), Time{});
  r.barren = kept > 0 ? 0 : static_cast<std::uint16_t>(std::min<int>(r.barren + 1, kMaxFailures));
  r.overhead_s = -1;  // its next start reloads
  r.restore = from;
}

void Simulation::requeue(JobId job) {
  note_training_step(job, TrainingStep::Recovered);  // its recovery is over (or cut short)
  Placement released;
  if (holds(job)) {
    released.swap(held_[slot_[job]]);
    const std::int64_t gpus = give_back(job, released);
    const Time hold = now_ - current(job).started;
    for (Feature* f : on_held_) f->hold_ended(job, gpus, hold);
    outcomes_[job].add_run_time(hold);
    outcomes_[job].gpu_seconds += gpus * hold.sec();
    waste(job, WasteCause::RecoveryHold, gpus * hold.sec());
    free_slot(job);
  }
  status_[job] = Status::Pending;
  ++pending_;
  emit(FactKind::Requeued, job, &released);
  policy_->on_queued(job, workload_.requests[job]);
}

}  // namespace acme
