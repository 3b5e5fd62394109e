// The Simulation (sim/simulation.h): checkpoint saves through shared storage
// (failures.shared_storage). A checkpointing run's saves are then events: a save starts once the
// run has computed an interval since the last (EventKind::SaveStart) and stalls it, for its write
// (sync) or for its copy to host memory (async, multilevel: EventKind::CopyEnd, then the write
// goes on behind while the run computes). A run after a failure that reads its checkpoint from
// storage first waits for that read (loading). Each write and read is a transfer of
// sim/storage_sharing.h that ends when the shares of the transfers in flight say
// (EventKind::TransferEnd); a sync write or a read whose end moves moves the run's end. Without
// shared storage, split() and held_for() place the saves by arithmetic instead
// (sim/simulation_accounting.cpp), each write seeing the whole bandwidth.
#include "sim/simulation.h"

#include <algorithm>

namespace acme {

void Simulation::start_saves(JobId job) {
  const Run run = run_of(job);
  const Time launched = now_ + Time::seconds(current(job).launch_s);
  SaveClock& k = clocks_[job];
  k = SaveClock{};
  if (run.overhead_s > 0 && run.restore == CheckpointModel::Restore::Storage && failures_->checkpoints().load_from_size()) {
    k.loading = true;  // its read starts once its communicators are set up (begin_save)
    k.phase_start = Time::max();
    return events_.push(launched + restart_of(job, run).comm_init, EventKind::SaveStart, job, run.starts);
  }
  k.phase_start = launched + Time::seconds(std::max(run.overhead_s, 0));
  events_.push(k.phase_start + checkpoint_interval(job), EventKind::SaveStart, job, run.starts);
}

void Simulation::begin_save(JobId job) {
  SaveClock& k = clocks_.find(job)->second;
  const CheckpointModel& model = failures_->checkpoints();
  const JobRequest& r = workload_.requests[job];
  if (k.loading) {  // the restore read
    k.load_from = now_;
    k.write = storage_->add(now_, job, 0, model.size_gb(r), model.path_gbps(r), moved_);
    return apply_moved();
  }
  k.compute += now_ - k.phase_start;
  k.phase_start = now_;
  k.stalled = true;
  ++k.begun;
  if (model.mode() == CheckpointMode::Sync) {
    k.write = storage_->add(now_, job, k.begun, model.write_gb(r), model.path_gbps(r), moved_);
    return apply_moved();
  }
  const Time copy = checkpoint_stall(job);
  if (copy > Time{}) return events_.push(now_ + copy, EventKind::CopyEnd, job, run_of(job).starts);
  end_stall(job);
}

void Simulation::end_stall(JobId job) {
  SaveClock& k = clocks_.find(job)->second;
  k.stall += now_ - k.phase_start;
  k.phase_start = now_;
  k.stalled = false;
  ++k.stalled_out;
  k.out_at = now_;
  events_.push(now_ + checkpoint_interval(job), EventKind::SaveStart, job, run_of(job).starts);
  const CheckpointModel& model = failures_->checkpoints();
  if (model.mode() == CheckpointMode::Sync) return;
  // The write from host memory goes on behind the run.
  const JobRequest& r = workload_.requests[job];
  storage_->add(now_, job, k.begun, model.write_gb(r), model.path_gbps(r), moved_);
  apply_moved();
}

bool Simulation::end_transfer(std::uint32_t id, std::uint32_t version) {
  if (!storage_->current(id, version)) return false;  // its end moved, or its run stopped
  const JobId job = storage_->job_of(id);
  SaveClock& k = clocks_.find(job)->second;
  k.written = std::max(k.written, storage_->what_of(id));
  storage_->remove(now_, id, moved_);
  if (k.write == static_cast<std::int64_t>(id)) {  // the run computes again
    k.write = -1;
    if (k.loading) end_load(job);
    else end_stall(job);
    move_end(job, current(job).slowdown);
  }
  apply_moved();
  return true;
}

void Simulation::end_load(JobId job) {
  SaveClock& k = clocks_.find(job)->second;
  Run& run = restarted(job);
  const RestartPhases planned = restart_of(job, run);
  k.loading = false;
  k.load_end = now_;
  run.overhead_s = static_cast<std::int32_t>((planned.comm_init + (now_ - k.load_from) + planned.warmup).sec());
  k.phase_start = now_ + planned.warmup;
  events_.push(k.phase_start + checkpoint_interval(job), EventKind::SaveStart, job, run.starts);
}

void Simulation::apply_moved() {
  for (std::size_t i = 0; i < moved_.size(); ++i) {  // move_end below may not add to it
    const StorageSharing::Moved m = moved_[i];
    events_.push(m.end, EventKind::TransferEnd, m.id, m.version);
    const JobId job = storage_->job_of(m.id);
    if (clocks_.find(job)->second.write == static_cast<std::int64_t>(m.id)) move_end(job, current(job).slowdown);
  }
  moved_.clear();
}

void Simulation::leave_storage(JobId job) {
  storage_->remove_job(now_, job, moved_);
  if (const auto it = clocks_.find(job); it != clocks_.end()) it->second.write = -1;  // given up
  apply_moved();
}

Time Simulation::stall_left(JobId job, const SaveClock& k) const {
  if (k.write >= 0) return storage_->end_of(static_cast<std::uint32_t>(k.write)) - now_;
  return std::max(k.phase_start + checkpoint_stall(job) - now_, Time{});  // the copy to host memory
}

Time Simulation::compute_from(JobId job, const SaveClock& k) const {
  const RestartPhases planned = restart_of(job, run_of(job));
  const Time read_end = k.write >= 0 ? storage_->end_of(static_cast<std::uint32_t>(k.write))
                                     : current(job).started + Time::seconds(current(job).launch_s) + planned.comm_init + planned.load;
  return std::max(read_end, now_) + planned.warmup;
}

}  // namespace acme
