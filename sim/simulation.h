// The simulation loop.
//
// A Simulation replays one Workload on one cluster under one Policy. Time advances from one
// distinct timestamp to the next; at each, `step()` handles every event of that instant in
// (kind, insertion) order (job ends, then withdrawals, then releases of new jobs) and then runs
// exactly one scheduling pass, if anything happened: an instant of stale events only (the end of
// a run that was stopped, an end that moved again, the deadline of a job that started) gets none,
// so how many such events an order of same-instant updates leaves behind never moves a schedule.
// (A job that runs for zero seconds ends in one more step at the same instant, so that instant
// gets a second pass.) Tests drive it one step at a time; `run()` steps to the end.
//
// Rules of the core:
//  - A job is released at its submit time (ReplayMode::Policy) or at its recorded start time
//    (ReplayMode::Recorded; a job recorded as never started is released at submit time and held
//    until it is withdrawn at its recorded end).
//  - A job that waits for another (Workload::after) is released when that one ends, in either
//    mode, after the events of that instant; its outcome's `release` is then its submit time.
//  - A released job that can never fit, or that the policy can never start, is rejected at once,
//    with a reason.
//  - A job with cancel_pending_at is withdrawn then if it is still pending; it ends in its
//    profile's final state (CANCELLED for jobs cancelled while waiting) without having started.
//  - A started job runs for its profile's run time and ends in its profile's final state (a
//    failed state becomes COMPLETED when injected failures stand for all failures,
//    failures.recorded_failed: complete).
//  - A preempted job goes back to the queue; killed, it needs its whole run time again (the
//    lost run is wasted GPU-time, cause preemption); suspended, only what is left.
//  - With a failure model (the failures feature, features/failures.h), each (re)start of a GPU
//    job draws its failure; one that strikes before the run ends stops it (EventKind::Failure):
//    the compute since its last checkpoint is wasted (failure_lost), a failure of hardware
//    (FailureDomain: a GPU, NIC or node of the job, or the leaf switch above one) also stops
//    every other job on the nodes it takes down, for the repair time (EventKind::NodeUp; a node
//    down twice comes up at the later end), and the job is queued again after the recovery delay
//    (EventKind::Recovered), to resume from its last checkpoint. Checkpoint saves stall the run
//    (checkpoint_stall). With FailureModel::holds_gpus, a failed job keeps its resources but
//    those on the failed node through the recovery delay (recovery_hold; a node failure under
//    them ends the hold at once); a run after a failure first spends FailureModel::restart()
//    reloading (restart).
//  - With model features (add_feature, sim/feature.h) that delay a start (the launch latency,
//    features/launch.h), a started job holds its resources from then on but starts
//    (JobOutcome::start, and queue_s, as traces record it) when the delay is over; that GPU-time
//    is wasted (launch).
//  - With features that pace runs (Feature::kPaced: slow nodes, features/stragglers.h), a run's rate
//    is also divided by their factor, changed at the times they give (EventKind::PaceChange): the
//    job is retimed as under contention, its slowness wasted (straggler) when the run stops; one may
//    stop the run (evict: from its last checkpoint, queued again or at once on its placement).
//  - A policy may ask for a pass at a later time (EventKind::Wake): its backfill cycle.
//  - With the network feature (features/network.h), a multi-node job runs slower by its slowdown.
//    With contention on, that comes from its route over the topology graph and the links it
//    shares (sim/link_sharing.h): whenever a job on one of its links starts or stops, its rate
//    changes from then on and its end moves; what it computed so far is kept. Scheduled network
//    faults take switches or links down for a while: routes move to what is left, and nodes left
//    with no path stop their jobs as a failed node does and stay down until the fault ends. A failure
//    drawn at a start strikes at its drawn time whatever the rate; a run stretched past its
//    drawn length draws no more.
//
// Cost: O(log r) per event with r running jobs, plus the policy's pass; with network contention,
// the jobs on the links of a starting or stopping job are retimed, and under a binding power cap
// every running job whenever the clock changes. Nothing is done per unit of simulated time. Memory: O(jobs) for outcomes and placements.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "sim/cluster.h"
#include "sim/event_queue.h"
#include "sim/failures.h"
#include "sim/feature.h"
#include "sim/outcome.h"
#include "sim/policy.h"
#include "sim/run_state.h"
#include "sim/sink.h"
#include "sim/storage_sharing.h"
#include "sim/topology.h"
#include "sim/training.h"

namespace acme {

// Each job's run-time estimate from the job alone (workloads/estimates.h), for a workload fed as
// the replay goes (Simulation::set_feed).
class EstimateSource {
 public:
  virtual ~EstimateSource() = default;
  virtual Time estimate(const Workload& w, JobId job) const = 0;
};

class Simulation {
 public:
  // `workload` must outlive the Simulation. `estimates` are the users' run-time estimates by
  // JobId, what policies see instead of run times (empty: none).
  Simulation(const Workload& workload, const ClusterSpec& cluster, std::unique_ptr<Policy> policy,
             ReplayMode replay, std::vector<Time> estimates = {});
  ~Simulation();

  // Sinks see every fact from now on. Not owned; must outlive the Simulation.
  void add_sink(Sink& sink);
  // How jobs are placed (default first fit). Set before the first step.
  void set_placement(PlacementStrategy strategy) { placement_ = strategy; }
  // The rest of the workload comes from `feed`, which appends to `workload` (the Simulation's own):
  // whenever fewer than kFedAhead jobs are known and not yet released, the Simulation asks it
  // for more, so a run sees the same facts as with every job there from the start. With
  // `estimates`, each job's run-time estimate comes from it as the job comes (those given to the
  // constructor are replaced). Not owned; must outlive the Simulation. Set before the first step.
  // REQUIRES: jobs released in JobId order, none waiting for another (Workload::after), no
  // estimates but from `estimates`. Throws std::logic_error otherwise, or when the feed appends a
  // job released before the last one.
  void set_feed(JobFeed& feed, Workload& workload, const EstimateSource* estimates = nullptr);
  // A model feature of the run (sim/feature.h), owned from now; its hooks are called in the order
  // the features were added (null: none, a feature that is off). Add before the first step.
  void add_feature(std::unique_ptr<Feature> feature);
  // The run's features, in the order added (what the outputs read of them).
  const std::vector<std::unique_ptr<Feature>>& features() const { return features_; }
  std::uint64_t failures_injected() const { return failures_injected_; }  // and the nodes they took down:
  std::uint64_t nodes_failed() const { return nodes_failed_; }

  bool step();  // handles the next distinct timestamp; false (and does nothing) when no event is left
  void run();
  void run_until(Time t);  // steps while the next timestamp is <= t

  bool done() const { return events_.empty() && next_release_ >= timed_releases_; }
  Time now() const { return now_; }
  std::uint64_t jobs_ended() const { return ended_; }
  const Cluster& cluster() const { return cluster_; }
  const Topology& topology() const { return topology_; }
  const std::vector<JobOutcome>& outcomes() const { return outcomes_; }
  // What the outputs read of the jobs beside their outcomes; stays after free_run_state.
  JobReports job_reports() const { return {{first_launches_}}; }
  const std::array<std::int64_t, kWasteCauseCount>& wasted_by_cause() const { return wasted_; }

  // GPU-seconds held inside the workload's window [window_from, window_to), by job type; an
  // unset bound does not clip.
  std::array<std::int64_t, kJobTypeCount> window_gpu_seconds() const;

  // REQUIRES: done(). Checks that every job ended exactly once, that every GPU and core was given
  // back, and that GPU-seconds summed over jobs equal the integral of allocated GPUs over time.
  // Throws std::logic_error naming the first violation.
  Conservation check_conservation() const;
  // REQUIRES: done(). Frees what only a running simulation needs (per-job run state, placements,
  // estimates), so that writing the outputs needs no more memory than the run did; outcomes(),
  // first_launches(), wasted_by_cause() and window_gpu_seconds() stay. Only they may be used afterwards.
  void free_run_state();

 private:
  class Pass;
  enum class Status : std::uint8_t { Unreleased, Pending, Held, Running, Ended, Recovering };

  std::optional<Time> next_time() const;
  // When the job reaches the scheduler (not for one that waits for another): its submit time, or
  // its recorded start in a recorded replay.
  Time release_time(std::size_t job) const { return timed_release(workload_, replay_, static_cast<JobId>(job)); }
  // Asks the feed for jobs while fewer than kFedAhead are known and not yet released, until the
  // feed has no more: a head start for what works ahead on them (a feature such as the launch latency, drawn ahead).
  static constexpr std::size_t kFedAhead = 8192;
  void keep_fed();
  // Takes in the jobs the feed appended, from `first` on.
  void admit(std::size_t first);
  void release(JobId job);
  std::string_view user_name(const JobRequest& r) const;  // empty without a user table (tests)
  bool handle(const Event& e);  // one event of step(); false if it was stale (its run stopped, its end moved)
  // The run ends now: its job ends in its recorded final state, or in `state` (a feature's
  // Feature::Stop::Timeout: TIMEOUT, its GPU-time wasted as a failed job's).
  void finish(JobId job, std::optional<JobState> state = std::nullopt);
  bool withdraw(JobId job);  // false if it is no longer waiting
  bool try_start(JobId job);
  // A run of the job starts now on its placement (just placed, or kept: Feature::Stop::Replace).
  void start_run(JobId job);
  void wake_at(Time t);
  void preempt(JobId job, SchedulingPass::Preempt how);
  // Accounts the GPU-time of the current run of a running job and frees its resources.
  void stop_run(JobId job);
  void account_run(JobId job);                             // the GPU-time part of stop_run
  std::int64_t give_back(JobId job, const Placement& resources);  // the freeing part; its GPUs
  void end_job(JobId job, JobState state);  // for good; releases the jobs that wait for it
  double idle_share(JobId job) const {
    const float own = workload_.profiles[job].idle_share;
    return own != 0.0f ? own : idle_share_[static_cast<std::size_t>(workload_.requests[job].type)];
  }
  // Injected failures and checkpoints from the model a feature gives (Feature::failure_model, in
  // add_feature; default: none).
  void set_failures(const FailureModel& failures);
  // An injected failure stops a running job and takes down the nodes of `domain` (struck).
  void fail(JobId job, FailureDomain domain);
  // What a failure of `domain` of the running `job` takes down: the nodes, sorted (none for Job,
  // else the job's node that FailureModel::where picks, weighted by the job's GPUs on it), and for
  // Leaf the leaf switch above that GPU's NIC, whose nodes are those the graph says it cuts off.
  // With contention, a struck leaf switch is also down for the repair time.
  struct Struck {
    std::vector<int> nodes;
    std::optional<int> leaf_switch;
  };
  Struck struck(JobId job, FailureDomain domain) const;
  // Stops a job hit by a failure (its own, or of the nodes `down` that go down, sorted) and
  // starts its recovery.
  void stop_failed(JobId job, const std::vector<int>& down);
  // A failed job's recovery is over (or its hold broke): it gives back what it held and is queued.
  void requeue(JobId job);
  // Whether a recovering job still holds resources.
  bool holds(JobId job) const { return held_by_[slot_[job]] == job && !held_[slot_[job]].empty(); }
  // How `held` seconds of the current run split: the restart overhead at its start, checkpoint
  // stalls, compute, and the compute covered by completed saves.
  struct RunSplit {
    Time launch, overhead, stall, compute, saved;
  };
  // A save is counted in `saved` once it is safe at the level `kept` says (CheckpointModel::kept):
  // kept.lag after its stall ends (by default at once).
  RunSplit split(JobId job, Time held, CheckpointModel::Kept kept = {CheckpointModel::Restore::Storage, Time{}}) const;
  // What a stop of `job` that takes `nodes_lost` of its nodes down leaves of its saves (without a
  // failure model: nothing to keep, safe at once).
  CheckpointModel::Kept kept_after(JobId job, int nodes_lost) const;
  // A run stopped short (a failure, an eviction), split as `s`, that kept `kept` s of work: its
  // parts wasted (compute no safe save covers as `lost`); its next run reloads from `from`.
  void charge_short_run(JobId job, const RunSplit& s, std::int64_t kept, WasteCause lost,
                        CheckpointModel::Restore from);
  // Whether the job is of a type that checkpoints, with failures on: the features that follow
  // training jobs' time hear of it (Feature::kTrained).
  bool trains(JobId job) const { return failures_ && failures_->trains(workload_.requests[job].type); }
  // A run of the job stopped (ended, preempted, failed or evicted) split as `s`, `lost` of its
  // compute lost, counted in `lost_to` (failures' `lost`, or `evicted`): told the features (kTrained).
  void note_training_run(JobId job, const RunSplit& s, Time lost, std::int64_t TrainingTimes::*lost_to = &TrainingTimes::lost);
  // The job moved between its runs: told the features (kTrained).
  void note_training_step(JobId job, TrainingStep step) {
    if (trains(job))
      for (Feature* f : on_trained_) f->training_step(job, step, now_);
  }
  // Charges `gpu_seconds` of the job's GPU-time to `cause` as wasted (its outcome, the run's
  // totals, the meter's energy). Inline for the common nothing: most runs' restart and stall are 0.
  void waste(JobId job, WasteCause cause, std::int64_t gpu_seconds) {
    if (gpu_seconds != 0) charge_waste(job, cause, gpu_seconds);
  }
  void charge_waste(JobId job, WasteCause cause, std::int64_t gpu_seconds);
  // The network's factor of a run (FeatureControl::set_network_factor): the run being placed takes
  // it at once; another running one is retimed with `retime`.
  void set_network_factor(JobId job, double factor, bool retime);
  // A switch struck by a failure goes down as a network fault, and comes back (Feature::kRouted).
  std::optional<std::size_t> switch_down(int sw);
  void switch_up(std::size_t fault);
  void retime(JobId job, double slowdown);  // its rate changed now (contention, the power cap): its end moves
  void move_end(JobId job, double slowdown);  // its end as things stand now, at `slowdown` from now
  double work_done(JobId job, Time compute) const;  // full-speed s of work once the run computed `compute`
  // Seconds a run holds its resources to compute `compute`: its launch, restart overhead and
  // checkpoint stalls included.
  Time held_for(JobId job, Time compute) const;
  // Every running job's GPUs run at clock fraction `clock` from now (FeatureControl::set_clock).
  void set_clock(double clock);
  // Features' holds of nodes (FeatureControl::hold, release; sim/simulation_holds.cpp).
  void hold_nodes(const std::vector<int>& nodes, FeatureControl::Vacate how);
  void release_nodes(const std::vector<int>& nodes);
  // Brings a down node up if nothing holds it down any more (repair, network, a feature's hold).
  void maybe_bring_up(int node);
  // Nodes being drained go down once their last job gives back what it held on them.
  void retire_drained(const Placement& released);
  // The jobs running on, or recovering while holding part of, `nodes` (sorted), by submit time,
  // then identity (Workload::keys), then JobId: the same order in any row order of the trace.
  std::vector<JobId> jobs_on(const std::vector<int>& nodes) const;
  // Stops every job on `down` (sorted) as their failure does and takes the nodes down, until
  // `repaired_at` (a NodeUp each), or, cut off from the network, until a path is back.
  void take_nodes_down(const std::vector<int>& down, std::optional<Time> repaired_at);
  // The fact to the sinks that want facts (none: nothing to build), with the job's placement for
  // the kinds whose job holds one.
  void emit(FactKind kind, JobId job) {
    const bool holds = kind == FactKind::Started || kind == FactKind::Ended || kind == FactKind::Preempted;
    if (!fact_sinks_.empty()) emit_to_sinks(kind, job, holds ? &placement_of(job) : nullptr);
  }
  void emit(FactKind kind, JobId job, const Placement* placement) {
    if (!fact_sinks_.empty()) emit_to_sinks(kind, job, placement);
  }
  void emit_to_sinks(FactKind kind, JobId job, const Placement* placement);
  // Tells the sinks when the prefix of ended jobs grows.
  void note_ended_prefix();

  const Workload& workload_;
  std::vector<Time> estimates_;
  const EstimateSource* fed_estimates_ = nullptr;  // a fed workload's (set_feed)
  Cluster cluster_;
  Topology topology_;
  std::unique_ptr<Policy> policy_;
  ReplayMode replay_;
  PlacementStrategy placement_ = PlacementStrategy::FirstFit;
  double clock_ = 1.0;         // clock fraction of every running job (a power cap's: set_clock)
  std::vector<std::uint8_t> held_down_;  // [node]: features' holds keeping it down (empty: none ever)
  bool cordons_ = false;                  // a node was ever cordoned (drained): retire_drained at each stop
  // Saves through shared storage (sim/simulation_saves.cpp): the writes in flight, where each
  // checkpointing run is in its saves (kept until it starts again or ends), writes whose end moved.
  std::unique_ptr<StorageSharing> storage_;
  std::unordered_map<JobId, SaveClock> clocks_;
  std::vector<StorageSharing::Moved> moved_;
  const SaveClock* clock_of(JobId job) const {  // null without shared storage or saves (inline: split's hot path)
    if (!storage_) return nullptr;
    const auto it = clocks_.find(job);
    return it == clocks_.end() ? nullptr : &it->second;
  }
  void start_saves(JobId job);  // a run starts: its first save comes an interval after its restart
  void begin_save(JobId job);   // EventKind::SaveStart
  void end_stall(JobId job);    // EventKind::CopyEnd, or a sync save's write ended
  bool end_transfer(std::uint32_t id, std::uint32_t version);  // EventKind::TransferEnd; false if stale
  void apply_moved();           // queues the ends of moved_ (and the runs of sync writes among them)
  void leave_storage(JobId job);  // its run stopped: its writes are given up
  Time stall_left(JobId job, const SaveClock& k) const;  // of the save it is stalled in
  void end_load(JobId job);  // its restore read ended: warm-up, then it computes
  Time compute_from(JobId job, const SaveClock& k) const;  // loading: when it will compute, as things stand
  std::array<double, kJobTypeCount> idle_share_{};
  const FailureModel* failures_ = nullptr;
  std::uint64_t failures_injected_ = 0;
  std::uint64_t nodes_failed_ = 0;
  std::vector<Time> node_up_at_;  // [node]: when its repair ends (a node may go down again meanwhile)
  std::vector<Sink*> fact_sinks_;   // the sinks that wants_facts()
  std::vector<Sink*> ended_sinks_;  // those that wants_ended()
  std::size_t ended_prefix_ = 0;  // jobs [0, ended_prefix_) have ended
  std::shared_mutex growth_;      // held while a feed's jobs come in (EndedJobs::growth)
  JobFeed* feed_ = nullptr;  // null once it has no more jobs
  Workload* fed_ = nullptr;  // the workload it appends to (workload_)

  // Jobs released at a known time, by (release, JobId); empty when that is every job in JobId order.
  std::vector<JobId> release_order_;
  JobId released(std::size_t i) const { return release_order_.empty() ? static_cast<JobId>(i) : release_order_[i]; }
  std::size_t next_release_ = 0;
  std::size_t timed_releases_ = 0;     // jobs released at a known time (the others wait for a job)
  // The jobs that wait for each job (Workload::after), as a compressed list; empty when none does.
  std::vector<std::uint32_t> followers_begin_;  // [job], [job + 1]: its range in followers_
  std::vector<JobId> followers_;
  EventQueue events_;
  std::vector<Status> status_;
  std::vector<JobOutcome> outcomes_;
  // Where running jobs hold resources: a pool of slots, reused so that starting a job does not
  // allocate once the pool is warm. slot_[job] is valid while the job runs.
  std::vector<Placement> held_;
  std::vector<JobId> held_by_;          // [slot]: the job in it
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> slot_;     // [job]
  Placement scratch_;                   // placement search buffer
  const Placement& placement_of(JobId job) const { return held_[slot_[job]]; }
  void free_slot(JobId job);
  using Run = RunCarry;
  // The job's Run: its entry in restarted_, else the whole run time still to do, one start once
  // it has started (outcomes_[job].start), no restart overhead.
  Run run_of(JobId job) const;
  // The job's entry in restarted_, made from run_of when it stops for the first time.
  Run& restarted(JobId job);
  // Checkpointing of the job's runs: compute between saves (zero: none) and the stall per save.
  Time checkpoint_interval(JobId job) const;
  Time checkpoint_stall(JobId job) const;
  // The restart phases of a run after a failure of the job, whose runs are `run`.
  RestartPhases restart_of(JobId job, const Run& run) const;
  // The restart phases of the job's current run, after a failure (zero otherwise).
  RestartPhases restart_phases(JobId job) const;
  std::unordered_map<JobId, Run> restarted_;  // jobs stopped at least once
  std::vector<bool> in_restarted_;            // [job]: has an entry there (a bit, not a lookup, a job)
  std::vector<CurrentRun> current_;  // [slot]
  CurrentRun& current(JobId job) { return current_[slot_[job]]; }
  const CurrentRun& current(JobId job) const { return current_[slot_[job]]; }
  // The progress of a running job whose rate changed, else null.
  const RunProgress* progress_of(JobId job) const {
    const CurrentRun& c = current(job);
    return c.retimed ? &c.progress : nullptr;
  }
  std::array<std::int64_t, kWasteCauseCount> wasted_{};
  std::array<std::int64_t, kJobTypeCount> allocated_by_type_{};   // GPUs held now
  // GPU-seconds inside the window, by type, up to its mark: integrated when its allocation changes.
  std::array<std::int64_t, kJobTypeCount> window_integral_{};
  std::array<Time, kJobTypeCount> window_mark_{};
  // The seconds of [from, now) inside the window.
  std::int64_t window_seconds_since(Time from) const;
  // Adds `gpus` (negative: takes) to the GPUs jobs of type `type` hold, integrating those held so far.
  void change_allocated(JobType type, std::int64_t gpus);
  std::size_t pending_ = 0;
  OptionalTime wake_;  // the latest pass asked for (SchedulingPass::wake_at), to skip repeats
  std::uint64_t ended_ = 0;

  Time now_;
  Time last_change_;
  std::int64_t allocated_integral_ = 0;
  // The run's model features (sim/feature.h), and those of each hook. Last: a feature's thread
  // may read the workload and growth_, so they go first.
  class Control;  // a feature's FeatureControl (sim/simulation_features.cpp)
  std::vector<std::unique_ptr<FeatureControl>> controls_;  // [feature]; outlived by the features
  std::vector<std::unique_ptr<Feature>> features_;
  std::vector<Feature*> on_placed_, on_jobs_added_, on_paced_, on_timed_, on_stepped_, on_stepping_, on_ended_, on_held_,
      on_routed_, on_trained_;
  JobId starting_ = ~JobId{0};  // the job start_run is placing, while the features hear of it
  std::uint32_t causes_listed_ = kCoreWasteCauses;  // the core's causes of waste and the features'
  WasteCause pace_cause_ = WasteCause::Straggler;    // what the slowness of a paced run wastes
  WasteCause pace_cause() const;  // pace_cause_; throws std::logic_error if no feature named it
  // Paced runs (sim/simulation_pace.cpp): a run starts with the features' pace (its wall not yet
  // drawn), its pace changes (EventKind::PaceChange), and it stops having kept `kept` compute
  // seconds of its run (its slowness charged in proportion).
  void start_pace(JobId job, std::uint32_t start);
  void change_pace(JobId job);
  void stop_pace(JobId job, Time compute, Time kept);
  // Queues the run's next pace change if it comes before `end` (its end as planned now).
  void queue_pace(JobId job, Time end);
  // A feature stops the run (Feature::Stop, sim/feature.h): the job is queued, or runs again at once.
  void evict(JobId job, bool replace);
  // The slowdown of a running job now: the network's, the power cap's and the features' pace.
  double slowdown_now(JobId job) const { return current(job).net / clock_ * current(job).pace; }
  const FirstLaunchSource* first_launches_ = nullptr;  // a feature's, if one gives them
  bool began_ = false;                                 // the features' begin() was called
  void begin_features();
};

}  // namespace acme
