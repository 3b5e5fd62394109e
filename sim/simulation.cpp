#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/prefault.h"

namespace acme {
namespace {

// In a Failure event's tag: the run's start count, and above it the FailureDomain.
constexpr int kDomainShift = 29;
constexpr std::uint32_t kStartsMask = (1u << kDomainShift) - 1;

}  // namespace

class Simulation::Pass final : public SchedulingPass {
 public:
  explicit Pass(Simulation& sim) : sim_(sim), reads_estimates_(sim.policy_->reads_estimates()) {}
  Time now() const override { return sim_.now_; }
  const JobRequest& request(JobId job) const override { return sim_.workload_.requests.at(job); }
  std::string_view user_name(JobId job) const override { return sim_.user_name(sim_.workload_.requests.at(job)); }
  bool is_pending(JobId job) const override {
    return job < sim_.status_.size() && sim_.status_[job] == Status::Pending;
  }
  const Cluster& cluster() const override { return sim_.cluster_; }
  Time estimate(JobId job) const override {
    // A policy that does not say it reads estimates runs without them: it would silently see 0.
    if (!reads_estimates_)
      throw std::logic_error("policy bug: estimate() or expected_end() called by a policy whose reads_estimates() "
                             "is false; override reads_estimates() to return true, so that the run makes estimates");
    return job < sim_.estimates_.size() ? sim_.estimates_[job] : Time{};
  }
  bool is_running(JobId job) const override {
    return job < sim_.status_.size() && sim_.status_[job] == Status::Running;
  }
  const Placement& placement_of(JobId job) const override {
    if (!is_running(job)) throw std::logic_error("policy bug: placement_of a job that is not running");
    return sim_.placement_of(job);
  }
  Time expected_end(JobId job) const override {
    const Time estimate = this->estimate(job);
    // Its current run lives in its slot, which only a running job has.
    if (!is_running(job)) throw std::logic_error("policy bug: expected_end of a job that is not running");
    const Time progress = sim_.workload_.profiles[job].run - sim_.run_of(job).remaining;
    const CurrentRun& r = sim_.current(job);
    const Time end = r.started + Time::seconds(r.launch_s) + estimate - progress;
    return std::max(end, sim_.now_ + Time::seconds(1));
  }
  bool try_start(JobId job) override { return sim_.try_start(job); }
  void wake_at(Time t) override { sim_.wake_at(t); }
  void preempt(JobId job, Preempt how) override { sim_.preempt(job, how); }
  Time oracle_remaining(JobId job) const override {
    if (job >= sim_.status_.size()) throw std::out_of_range("oracle_remaining: no such job");
    const Run r = sim_.run_of(job);
    if (!is_running(job)) return r.remaining;
    if (const RunProgress* p = sim_.progress_of(job)) return std::max(p->end_at - sim_.now_, Time{});
    const CurrentRun& c = sim_.current(job);
    const double left = static_cast<double>(r.remaining.sec()) * c.slowdown + c.launch_s -
                        static_cast<double>((sim_.now_ - c.started).sec());
    return Time::seconds(std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(left))));
  }

 private:
  Simulation& sim_;
  const bool reads_estimates_;
};

Simulation::Simulation(const Workload& workload, const ClusterSpec& cluster,
                       std::unique_ptr<Policy> policy, ReplayMode replay, std::vector<Time> estimates)
    : workload_(workload),
      estimates_(std::move(estimates)),
      cluster_(cluster),
      topology_(cluster),
      policy_(std::move(policy)),
      replay_(replay),
      status_(workload.size(), Status::Unreleased),
      outcomes_(workload.size()),
      slot_(workload.size(), 0),
      in_restarted_(workload.size(), false) {
  const std::size_t n = workload.size();
  policy_->on_run_start(workload.names, workload.users);
  if (workload.keys.size() != n) throw std::logic_error("Workload::keys: one key a job expected (Workload::add_keys_of_new_names)");
  const bool dependencies = !workload.after.empty();
  if (dependencies) {
    if (workload.after.size() != n) throw std::logic_error("Workload::after: one entry per job expected");
    if (!workload.think_s.empty() && workload.think_s.size() != n)
      throw std::logic_error("Workload::think_s: one entry per job expected");
    followers_begin_.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const JobId before = workload.after[i];
      if (before == kNoJob) continue;
      if (before >= i) throw std::logic_error("Workload::after: a job may only wait for an earlier one");
      ++followers_begin_[before + 1];
    }
    for (std::size_t i = 0; i < n; ++i) followers_begin_[i + 1] += followers_begin_[i];
    followers_.resize(followers_begin_[n]);
    std::vector<std::uint32_t> fill(followers_begin_.begin(), followers_begin_.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (workload.after[i] != kNoJob) followers_[fill[workload.after[i]]++] = static_cast<JobId>(i);
  }
  bool sorted = !dependencies;
  for (std::size_t i = 1; i < n && sorted; ++i) sorted = release_time(i - 1) <= release_time(i);
  timed_releases_ = n;
  if (!sorted) {  // else the release order is the JobId order, and no list is kept
    release_order_.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      if (!workload.waits(static_cast<JobId>(i))) release_order_.push_back(static_cast<JobId>(i));
    std::stable_sort(release_order_.begin(), release_order_.end(),
                     [this](JobId a, JobId b) { return release_time(a) < release_time(b); });
    timed_releases_ = release_order_.size();
  }
  if (timed_releases_ > 0) now_ = last_change_ = release_time(released(0));
}

Simulation::~Simulation() = default;

void Simulation::add_sink(Sink& sink) {
  if (sink.wants_facts()) fact_sinks_.push_back(&sink);
  if (sink.wants_ended()) ended_sinks_.push_back(&sink);
}

void Simulation::emit_to_sinks(FactKind kind, JobId job, const Placement* placement) {
  const Fact fact{kind, now_, job, &workload_.requests[job], placement};
  for (Sink* s : fact_sinks_) s->on_fact(fact);
}

std::optional<Time> Simulation::next_time() const {
  std::optional<Time> t;
  if (!events_.empty()) t = events_.top().time;
  if (next_release_ < timed_releases_) {
    const Time r = release_time(released(next_release_));
    if (!t || r < *t) t = r;
  }
  return t;
}

bool Simulation::step() {
  const std::optional<Time> t = next_time();
  if (!t) return false;
  now_ = *t;
  if (!began_) begin_features();
  for (Feature* f : on_stepping_) f->stepping(now_);
  allocated_integral_ += std::int64_t{cluster_.allocated_gpus()} * (now_ - last_change_).sec();
  last_change_ = now_;

  bool happened = false;  // an event that was still current, or a release
  while (!events_.empty() && events_.top().time == now_) happened |= handle(events_.pop());
  // Every job released now, those the feed has yet to append included.
  for (;;) {
    while (next_release_ < timed_releases_ && release_time(released(next_release_)) == now_) {
      release(released(next_release_++));
      happened = true;
    }
    if (!feed_ || timed_releases_ - next_release_ >= kFedAhead) break;
    keep_fed();
  }
  // No pass at an instant of stale events only: they are bookkeeping (an end moved again, a run
  // stopped before its end), and how many there are may depend on the order of same-instant
  // updates, which must not change the schedule.
  if (happened) {
    Pass pass(*this);
    policy_->schedule(pass);
  }
  for (Feature* f : on_stepped_) f->stepped(now_);
  if (done())
    for (Feature* f : on_ended_) f->ended(now_);
  if (!ended_sinks_.empty()) note_ended_prefix();
  return true;
}

bool Simulation::handle(const Event& e) {
  const auto current = [&](std::uint32_t starts) { return status_[e.job] == Status::Running && starts == run_of(e.job).starts; };
  switch (e.kind) {
    case EventKind::JobEnd: {
      // A run that was preempted left its end event behind: the tag tells it apart.
      if (!current(e.tag)) return false;
      if (const RunProgress* p = progress_of(e.job); p && p->end_at != e.time) return false;  // its end moved
      finish(e.job);
      return true;
    }
    case EventKind::QueueTimeout: return withdraw(e.job);
    case EventKind::Failure:
      if (!current(e.tag & kStartsMask)) return false;
      fail(e.job, static_cast<FailureDomain>(e.tag >> kDomainShift));
      return true;
    case EventKind::NodeUp: maybe_bring_up(static_cast<int>(e.job)); return true;
    case EventKind::Recovered:  // of this recovery: an earlier one may have been cut short
      if (status_[e.job] != Status::Recovering || e.tag != run_of(e.job).starts) return false;
      requeue(e.job);
      return true;
    case EventKind::Release: release(e.job); return true;
    case EventKind::Wake: return true;  // the pass is what was asked for
    case EventKind::NetworkChange: switch_up(e.job); return true;
    case EventKind::FeatureTimed: on_timed_[e.tag]->timed(e.job); return true;
    case EventKind::PaceChange:
      if (!current(e.tag)) return false;
      change_pace(e.job);
      return true;
    case EventKind::SaveStart:
      if (!current(e.tag)) return false;
      begin_save(e.job);
      return true;
    case EventKind::CopyEnd:
      if (!current(e.tag)) return false;
      end_stall(e.job);
      return true;
    case EventKind::TransferEnd: return end_transfer(e.job, e.tag);
  }
  return false;
}

void Simulation::note_ended_prefix() {
  std::size_t p = ended_prefix_;
  while (p < status_.size() && status_[p] == Status::Ended) ++p;
  if (p == ended_prefix_) return;
  ended_prefix_ = p;
  const EndedJobs ended{workload_, outcomes_, replay_, p, growth_, std::max(workload_.size(), status_.capacity()),
                        {first_launches_}};
  for (Sink* s : ended_sinks_) s->on_ended(ended);
}

void Simulation::run() {
  while (step()) {
  }
}

void Simulation::run_until(Time t) {
  for (auto next = next_time(); next && *next <= t; next = next_time()) step();
}

std::string_view Simulation::user_name(const JobRequest& r) const {
  return r.user < workload_.users.size() ? workload_.users[r.user] : std::string_view{};
}

void Simulation::wake_at(Time t) {
  if (t <= now_) throw std::logic_error("policy bug: asked for a pass at " + std::to_string(t.sec()) + " s, not after now");
  if (wake_ && *wake_ == t) return;  // asked for again (a policy asks at every pass until then)
  if (!wake_ || t > *wake_) wake_ = t;
  events_.push(t, EventKind::Wake, 0);
}

bool Simulation::try_start(JobId job) {
  if (job >= status_.size() || status_[job] != Status::Pending)
    throw std::logic_error("policy bug: asked to start job " + std::to_string(job) +
                           ", which is not pending");
  const JobRequest& request = workload_.requests[job];
  if (!cluster_.place(request, placement_, scratch_)) return false;
  cluster_.allocate(scratch_);
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(held_.size());
    held_.emplace_back();
    held_by_.push_back(job);
    current_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    held_by_[slot] = job;
  }
  held_[slot].swap(scratch_);
  slot_[job] = slot;
  --pending_;
  if (in_restarted_[job]) note_training_step(job, TrainingStep::Placed);
  change_allocated(request.type, request.gpu_num);
  start_run(job);
  return true;
}

void Simulation::start_run(JobId job) {
  const JobRequest& request = workload_.requests[job];
  status_[job] = Status::Running;
  JobOutcome& o = outcomes_[job];
  // Its entry, if it was stopped before (a pointer stays valid as the map grows).
  Run* kept = in_restarted_[job] ? &restarted_.find(job)->second : nullptr;
  Run run = kept ? *kept : run_of(job);  // changes are written back to `kept`; else run_of implies them
  CurrentRun& cur = current(job);
  Time launch;  // from placement to start: what the features add
  for (Feature* f : on_placed_) launch += f->placed(job, workload_.keys[job], run.starts, request);
  cur.retimed = false;
  if (!o.start) o.start = now_ + launch;
  cur.started = now_;
  cur.launch_s = static_cast<std::int32_t>(launch.sec());
  ++run.starts;  // the tag of this run's end or failure event: an event of an earlier run is stale
  if (kept) kept->starts = run.starts;
  // Held in 16 bits; no real job spans more than 32,767 leaf switches, and the slowdown model
  // saturates long before.
  o.leaves_spanned = static_cast<std::int16_t>(std::min(cluster_.leaves_spanned(placement_of(job)), 32767));
  cur.net = 1.0;
  cur.slowdown = cur.net / clock_;
  o.slowdown = static_cast<float>(cur.slowdown);
  starting_ = job;  // the network's factor, then (sharing links) those of the runs it slows
  for (Feature* f : on_routed_) f->run_joined(job, request, o.leaves_spanned);
  starting_ = ~JobId{0};
  if (!on_paced_.empty()) {
    start_pace(job, run.starts - 1);
    o.slowdown = static_cast<float>(cur.slowdown);
  }
  emit(FactKind::Started, job);
  // A job of zero run time ends at this instant too, in a step of its own right after this one:
  // ending it inside the pass would tell the policy it stopped before it heard that it started.
  // After a failure, the restart phases first.
  run.overhead_s = run.overhead_s < 0 && failures_ ? static_cast<std::int32_t>(restart_of(job, run).total().sec()) : 0;
  if (kept) kept->overhead_s = run.overhead_s;
  cur.fails_after_s = -1;
  const Time compute = Time::seconds(static_cast<std::int64_t>(std::ceil(static_cast<double>(run.remaining.sec()) * cur.slowdown)));
  if (storage_ && checkpoint_interval(job) > Time{}) start_saves(job);
  const Time wall = held_for(job, compute);
  for (Feature* f : on_held_) f->run_held(job, workload_.keys[job], request, compute, wall, idle_share(job));
  if (!on_paced_.empty()) queue_pace(job, now_ + wall);
  if (failures_ && run.barren < kMaxFailures && o.failures < kMaxFailuresInAll) {
    const std::optional<FailureDraw> f = failures_->draw(workload_.keys[job], run.starts - 1, request.gpu_num, wall);
    if (f) {
      if (run.starts > kStartsMask) throw std::logic_error("a job started more than 2^29 times");
      events_.push(now_ + f->after, EventKind::Failure, job,
                   run.starts | static_cast<std::uint32_t>(f->domain) << kDomainShift);
      cur.fails_after_s = static_cast<std::int32_t>(std::min<std::int64_t>(f->after.sec(), INT32_MAX));
      return;
    }
  }
  events_.push(now_ + wall, EventKind::JobEnd, job, run.starts);
}

void Simulation::free_slot(JobId job) {
  free_slots_.push_back(slot_[job]);
}

void Simulation::stop_run(JobId job) {
  for (Feature* f : on_routed_) f->run_left(job);
  if (storage_) leave_storage(job);
  cluster_.release(placement_of(job));
  if (cordons_) retire_drained(placement_of(job));  // all of it: the request's GPUs
  change_allocated(workload_.requests[job].type, -workload_.requests[job].gpu_num);
  account_run(job);
}

void Simulation::preempt(JobId job, SchedulingPass::Preempt how) {
  if (job >= status_.size() || status_[job] != Status::Running)
    throw std::logic_error("policy bug: asked to preempt job " + std::to_string(job) + ", which is not running");
  stop_run(job);
  JobOutcome& o = outcomes_[job];
  Run& r = restarted(job);
  const Time held = now_ - current(job).started;
  const RunSplit s = split(job, held);
  if (!on_paced_.empty()) stop_pace(job, s.compute, how == SchedulingPass::Preempt::Kill ? Time{} : s.compute);
  note_training_run(job, s, Time{});
  note_training_step(job, TrainingStep::Requeued);
  waste(job, WasteCause::Launch, std::int64_t{workload_.requests[job].gpu_num} * s.launch.sec());
  if (how == SchedulingPass::Preempt::Kill) {
    waste(job, WasteCause::Preemption, std::int64_t{workload_.requests[job].gpu_num} * (held - s.launch).sec());
  } else {  // the work done, at the run's speed, is kept
    waste(job, WasteCause::Restart, std::int64_t{workload_.requests[job].gpu_num} * s.overhead.sec());
    waste(job, WasteCause::CheckpointStall, std::int64_t{workload_.requests[job].gpu_num} * s.stall.sec());
    const auto done = static_cast<std::int64_t>(work_done(job, s.compute));
    r.remaining = std::max(r.remaining - Time::seconds(done), Time{});
  }
  current(job).retimed = false;
  JobOutcome::count(o.preemptions);
  status_[job] = Status::Pending;
  ++pending_;
  emit(FactKind::Preempted, job);
  free_slot(job);
  policy_->on_stopped(job);
  policy_->on_queued(job, workload_.requests[job]);
}

void Simulation::end_job(JobId job, JobState state) {
  outcomes_[job].state = state;
  outcomes_[job].end = now_;
  status_[job] = Status::Ended;
  ++ended_;
  if (followers_begin_.empty()) return;
  for (std::uint32_t i = followers_begin_[job]; i < followers_begin_[job + 1]; ++i)
    events_.push(now_ + workload_.think_time(followers_[i]), EventKind::Release, followers_[i]);  // its think time after
}

void Simulation::finish(JobId job, std::optional<JobState> forced) {
  if (status_[job] != Status::Running)
    throw std::logic_error("job " + std::to_string(job) + " ended while not running");
  stop_run(job);
  JobOutcome& o = outcomes_[job];
  const RunSplit s = split(job, now_ - current(job).started);
  if (!on_paced_.empty()) stop_pace(job, s.compute, s.compute);
  note_training_run(job, s, Time{});
  if (storage_) clocks_.erase(job);
  if (CurrentRun& c = current(job); c.retimed) {  // its mean rate over the run
    const double work = work_done(job, s.compute);
    if (work > 0) o.slowdown = static_cast<float>(static_cast<double>(s.compute.sec()) / work);
    c.retimed = false;
  }
  waste(job, WasteCause::Launch, std::int64_t{workload_.requests[job].gpu_num} * s.launch.sec());
  if (failures_) {
    waste(job, WasteCause::Restart, std::int64_t{workload_.requests[job].gpu_num} * s.overhead.sec());
    waste(job, WasteCause::CheckpointStall, std::int64_t{workload_.requests[job].gpu_num} * s.stall.sec());
  }
  JobState state = forced.value_or(workload_.profiles[job].final_state);
  if (!forced && failures_ && failures_->recorded_failed_complete() && is_failure(state))
    state = JobState::Completed;
  if (is_failure(state)) {
    waste(job, WasteCause::FailedJob, o.gpu_seconds - o.wasted_gpu_seconds);
  } else if (const double idle = idle_share(job); idle > 0) {
    waste(job, WasteCause::EvalIdle,
          static_cast<std::int64_t>(static_cast<double>(o.gpu_seconds - o.wasted_gpu_seconds) * idle));
  }
  end_job(job, state);
  emit(FactKind::Ended, job);
  free_slot(job);
  policy_->on_stopped(job);
}

}  // namespace acme
