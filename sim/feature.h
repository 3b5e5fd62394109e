// The model-feature contract: a part of the model a run may have or not (a launch latency, slow
// nodes, capacity changes, power and energy, the network, evaluation, failures), in one module of
// its own under features/.
//
// A feature owns its state and reads its own keys (io/feature_registry.h registers it; its factory
// returns none when the feature is off). The Simulation owns the features of its run
// (Simulation::add_feature) and calls, of each, only the hooks its hooks() names, in the order the
// features were added; a feature that is off is not in the list and costs nothing, and a hook no
// feature has costs one empty loop where it would be called. The hooks, the only ones the loop
// calls (each added when a migrated feature first needs it):
//
//  - begin(run): once, at the first step, before its events. `run` names the workload, the lock
//    it grows under and the jobs expected, for a feature that works ahead on a thread of its own,
//    and the run's FeatureControl (below), valid while the Simulation lives.
//  - timed(id) [kTimed]: an instant the feature asked for (FeatureControl::at) has come, among the
//    events of that instant (after network faults, before paces change), in the order asked.
//  - stepped(now) [kStepped]: a step ended: every event of the instant and its scheduling pass
//    are done (what the cluster is now is what it stays until the next step).
//  - placed(job, key, start, request) [kPlaced]: the job was placed for run number `start` (0: its
//    first) and holds its resources from now: returns how long after now it starts running (the
//    run's time before it computes). The sum over the features is the run's delay.
//  - jobs_added() [kJobsAdded]: a feed (Simulation::set_feed) appended jobs to the workload (also
//    before begin: set_feed takes in the first jobs).
//  - run_started(job, key, start, request, now) [kPaced]: run number `start` of the job was placed
//    now: returns its Pace from now (the factor its rate is divided by, >= 1, and when that
//    changes next; Time::max(): never). The core multiplies the features' factors with the network's
//    slowdown and the power cap's clock (the rates multiply), and at `next` (if the run is still
//    on then and could still be computing) calls
//  - paced(job, key, start, started, now, may_stop) [kPaced]: the Pace from now of run number
//    `start`, placed at `started`, with its next change; called at a change the feature asked for. The core
//    retimes the job (Simulation::retime: its end moves, the work done is kept) and charges the
//    slowness: a factor f over c compute seconds costs c x (1 - 1/f) of the job's GPU-seconds,
//    wasted with the causes of waste_causes() (the first of them).
//    A Pace may also ask the core to stop the run now (`stop`, from paced() only; Evict and
//    Replace only when `may_stop`: false for a job that saves no checkpoints, which would start
//    over, and once stops and failures have kept no progress kMaxFailures times in a row,
//    sim/failures.h, so that a job that can keep nothing still ends): Evict, the run stops as a
//    failure that takes none of the cluster's nodes down (it keeps the compute its last safe
//    checkpoint covers, the rest is wasted with the pace's cause; no recovery delay: the
//    feature's own delay came first) and the job gives back its nodes and is queued;
//    Replace, the same stop but the job keeps its placement (spares took the place of the nodes
//    out) and its next run starts at once. Either way that run pays the restart phases
//    (sim/checkpoints.h) as after a failure (features/stragglers.h: eviction of slow nodes).
//    Timeout (whatever `may_stop`; it wins over the others): the job ends now, killed at its time
//    limit, in state TIMEOUT and not queued again; its GPU-time is wasted as a failed job's
//    (WasteCause::FailedJob), as a trace's TIMEOUT job's is (features/time_limits.cpp).
//  - run_stopped(job, lost_s) [kPaced]: the run stopped (ended, preempted, failed); `lost_s`: the
//    compute seconds its slowness cost that the job kept (after a failure, the part before its
//    last checkpoint, in proportion), for the feature's per-job outputs.
//  - stepping(now) [kStepping]: a step begins, before its events (after begin at the first).
//  - ended(now) [kEnded]: the run's last step is done (after its stepped()).
//  - The GPU-time the jobs hold [kHeld], for a feature that follows it (power and energy):
//    run_held(job, key, request, compute, wall, idle_share): a run was placed now and holds its
//    resources for `wall` as planned, computing `compute` of it, its GPUs idle for `idle_share`
//    of that compute besides (Simulation's idle share: evaluation's loading and metrics);
//    run_released(job, held): the run stopped after holding them `held`; hold_began(job, gpus):
//    a failed job keeps `gpus` GPUs through its recovery (FailureModel::holds_gpus);
//    hold_ended(job, gpus, held): it gave them back after `held`; wasted(job, cause, gpu_seconds):
//    GPU-time of the job was counted as wasted (the cause says whether its GPUs sat idle or lost
//    compute they did), after its run_released when the run stopped.
//  - The time of training jobs [kTrained], for their ledger (the failures feature's, training.csv;
//    sim/training.h), told only of the jobs of the types that checkpoint, with a failure model:
//    run_trained(job, parts): a run stopped (ended, preempted, failed, evicted), its time by part
//    (its launch counted from its second run on); training_step(job, step, now): the job moved
//    between its runs (failed, recovered, queued again, placed again).
//  - The runs' routes over the network [kRouted], for the network model: run_joined(job, request,
//    leaves_spanned): a run was placed now on nodes spanning `leaves_spanned` leaf switches; the
//    feature gives its network factor (FeatureControl::set_network_factor, first of all) and,
//    sharing links, the factors of the other runs it slows; run_left(job): the run stops, before
//    its resources are given back; switch_down(sw) and switch_up(fault): a switch struck by a
//    failure goes down as a network fault, returned for its end (none: the feature keeps no
//    routes, nothing done).
//
// Before the Simulation is made, the run builder calls shape(cluster) of every feature: the
// cluster the run is built on (nodes a feature adds, nodes it reserves for some job types); then
// rewrite(workload): the workload the run replays instead, from a feature that changes the jobs
// themselves (evaluation decoupled), none from most; a feature whose needs_whole_workload() is true
// is given every job (a run then does not start before its workload is whole).
//
// A feature may also give the core a model it consults beside the hooks it calls: failure_model(),
// the failure model of the failures feature (features/failures.h). The core keeps the mechanics of
// a stop from the last checkpoint and its recovery, which other features use too (an eviction of
// slow nodes, a hold with Vacate::Fail, nodes cut off by a network fault), and reads the model's
// draws and its checkpoint, restart, recovery and repair times from it (Simulation::add_feature).
//
// At the end of the run the core's conservation check calls check_conservation() of every feature
// (a feature's own sums must add up: throws std::logic_error naming what does not).
//
// And what the outputs read (not hooks): columns(output), the feature's columns of timeseries.csv,
// jobs.csv, wasted_by_cause.csv and the summaries (FeatureOutput; after the file's own, in the
// order the features were added), none from most; first_launches(), each job's first launch
// latency, which splits queue_s into wait_s and launch_s (sim/outcome.h), none from most features;
// link_loads(), the network's links (links.csv); evaluations(), which evaluation each Eval job
// belongs to (evaluations.csv), from the evaluation feature, complete once the run ended;
// evicts(), whether slow nodes are evicted (training.csv's evicted columns); and waste_causes(),
// the causes of wasted GPU-time a feature adds (bits of WasteCause): the outputs list those only
// in runs with a feature that names them, so a run without it writes what it wrote before the
// cause existed (Conservation::causes_listed). power_meter() is the power feature's meter, which
// its own columns read.
//
// A hook runs on the simulation's thread, inside a step; it must not throw except for a bug
// (std::logic_error) and must draw nothing from a shared generator: every draw is keyed by the
// job (job_key), so that the outputs stay the same under any policy, row order and thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string_view>
#include <vector>

#include "sim/cluster.h"
#include "sim/cluster_spec.h"
#include "sim/job.h"
#include "sim/outcome.h"
#include "sim/time.h"
#include "sim/topology.h"
#include "sim/training.h"

namespace acme {

// What a feature may do to its run, from begin() on (the Simulation's; each call at once, inside
// the hook that makes it): ask for instants of its own, and hold nodes and switches out of service.
class FeatureControl {
 public:
  // How the jobs on nodes held out of service leave them (hold).
  enum class Vacate : std::uint8_t {
    Finish,  // they run to their end and take no new job; each node goes down once empty (a drain)
    Kill,    // they are preempted at once (killed: queued again, the run wasted as preemption)
    Fail,    // they stop as on a failed node (from their last checkpoint, after the recovery delay)
  };
  virtual ~FeatureControl() = default;
  virtual Time now() const = 0;
  virtual const Cluster& cluster() const = 0;
  virtual const Topology& topology() const = 0;
  // The feature's timed(id) at `t` (>= now()). O(log events).
  virtual void at(Time t, std::uint32_t id) = 0;
  // Holds each of `nodes` out of service once more, its jobs leaving as `how` says. A node is up
  // again once no hold, repair or network cut-off keeps it down. O(nodes + their jobs).
  virtual void hold(const std::vector<int>& nodes, Vacate how) = 0;
  // Ends one hold of each of `nodes` (a drain's nodes take jobs again).
  virtual void release(const std::vector<int>& nodes) = 0;
  // Every running job's GPUs run at clock fraction `clock` (in (0, 1]) from now, and every job
  // started from now on (a power cap): a job's rate is multiplied by it, so the core retimes each
  // running job when it changes. 1 until a feature sets it. O(running jobs) when it changes.
  virtual void set_clock(double clock) = 0;
  // The network's factor of `job`'s run from now (the rates multiply: its rate is divided by it),
  // set by the network feature; 1 until set. The run being placed (run_joined) takes it at once;
  // another running job is retimed with `retime`, else keeps its end until its next change.
  virtual void set_network_factor(JobId job, double factor, bool retime) = 0;
  // The placement of a running job.
  virtual const Placement& placement_of(JobId job) const = 0;
  // The share of the compute of each run of a job of type `t` during which its GPUs sit idle (a
  // job's own JobProfile::idle_share, when not 0, takes its place): wasted, cause eval_idle. 0 until
  // a feature sets it; set it in begin().
  virtual void set_idle_share(JobType t, double share) = 0;
  // With network contention: takes switch `sw` down as a network fault (routes move; the nodes it
  // cuts off stop their jobs as failed nodes and stay down until a path is back), returned for
  // bring_switch_up. None without contention (nothing done).
  virtual std::optional<std::size_t> take_switch_down(int sw) = 0;
  virtual void bring_switch_up(std::size_t fault) = 0;
};

// What a feature sees of its run when it begins.
struct FeatureRun {
  const Workload& workload;  // grows while a feed appends to it: read from another thread holding `growth` shared
  std::shared_mutex& growth;
  std::size_t expected_jobs;  // the workload's jobs, or the room made for a feed's
  FeatureControl& control;
};

class FailureModel;
class Feature;
class LinkSharing;
class PowerMeter;

// The outputs a feature may add columns to, and what a row of each is.
enum class FeatureOutput : std::uint8_t {
  Interval,  // timeseries.csv: the interval that starts at time_s (read once the run is done)
  Job,       // jobs.csv: a JobId (read for jobs that have ended, perhaps on another thread while the
             // run goes on: the feature keeps what it reads safe to read so)
  Cause,     // wasted_by_cause.csv: a WasteCause (once the run is done)
  Summary,   // summary.csv: kJobTypeCount, the run; summary_by_type.csv: a JobType (once the run is done)
};
inline constexpr std::size_t kFeatureOutputs = 4;

// A column a feature adds to an output: its name, its meaning and when it is written (Markdown,
// configs/README.md's tables: "with `power.enabled` only"), and its cell in a row: an integer or a
// real with `decimals` decimals (decimals < 0: an integer), or blank. Declared once, in the
// feature's file, for the docs (FeatureEntry::columns) and the runs (Feature::columns).
struct FeatureCell {
  double value = 0;
  int decimals = -1;
  bool blank = false;
};
struct FeatureColumn {
  std::string_view name, doc, when;
  FeatureCell (*cell)(const Feature&, std::int64_t row);
};


class Feature {
 public:
  // The hooks a feature has, as bits of hooks().
  enum Hook : unsigned {
    kPlaced = 1u << 0,
    kJobsAdded = 1u << 1,
    kPaced = 1u << 2,
    kTimed = 1u << 3,
    kStepped = 1u << 4,
    kStepping = 1u << 5,
    kEnded = 1u << 6,
    kHeld = 1u << 7,
    kRouted = 1u << 8,
    kTrained = 1u << 9,
  };
  // A run's pace: its rate is divided by `factor` from now until `next`; or the run stops now.
  enum class Stop : std::uint8_t { None, Evict, Replace, Timeout };
  struct Pace {
    double factor = 1.0;
    Time next = Time::max();
    Stop stop = Stop::None;
  };

  virtual ~Feature() = default;
  // Which of the hooks above the Simulation calls (begin is called for every feature).
  virtual unsigned hooks() const = 0;

  virtual void begin(const FeatureRun&) {}
  virtual Time placed(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, const JobRequest&) { return {}; }
  virtual void jobs_added() {}
  virtual Pace run_started(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, const JobRequest&, Time /*now*/) {
    return {};
  }
  virtual Pace paced(JobId, std::uint64_t /*job_key*/, std::uint32_t /*start*/, Time /*started*/, Time /*now*/,
                     bool /*may_stop*/) {
    return {};
  }
  virtual void run_stopped(JobId, double /*lost_s*/) {}
  virtual void timed(std::uint32_t /*id*/) {}
  virtual void stepped(Time /*now*/) {}
  virtual void stepping(Time /*now*/) {}
  virtual void ended(Time /*now*/) {}
  virtual void run_held(JobId, std::uint64_t /*job_key*/, const JobRequest&, Time /*compute*/, Time /*wall*/,
                        double /*idle_share*/) {}
  virtual void run_released(JobId, Time /*held*/) {}
  virtual void hold_began(JobId, std::int64_t /*gpus*/) {}
  virtual void hold_ended(JobId, std::int64_t /*gpus*/, Time /*held*/) {}
  virtual void wasted(JobId, WasteCause, std::int64_t /*gpu_seconds*/) {}
  virtual void run_trained(JobId, const TrainingTimes& /*parts*/) {}
  virtual void training_step(JobId, TrainingStep, Time /*now*/) {}
  virtual void run_joined(JobId, const JobRequest&, int /*leaves_spanned*/) {}
  virtual void run_left(JobId) {}
  virtual std::optional<std::size_t> switch_down(int /*sw*/) { return std::nullopt; }
  virtual void switch_up(std::size_t /*fault*/) {}
  virtual void check_conservation() const {}

  // The cluster the run is built on, as the feature changes it (before the Simulation is made).
  virtual void shape(ClusterSpec&) const {}
  // The topology of the run's cluster, when the feature is added to its Simulation (before the
  // first step): a feature that names switches or links finds them, or throws InputError.
  virtual void attached(const Topology&) {}
  // The workload the run replays instead of `workload`, if the feature rewrites it (before the
  // Simulation is made); none from most.
  virtual std::optional<Workload> rewrite(const Workload& /*workload*/) { return std::nullopt; }
  virtual bool needs_whole_workload() const { return false; }
  // The feature's columns of `output` in this run (the same all run); none from most.
  virtual std::span<const FeatureColumn> columns(FeatureOutput /*output*/) const { return {}; }

  // Each job's first launch latency for the outputs, valid while the feature lives; null: none.
  virtual const FirstLaunchSource* first_launches() const { return nullptr; }
  // The run's energy for the outputs (the power feature's), valid while the feature lives; null: none.
  virtual const PowerMeter* power_meter() const { return nullptr; }
  // The link loads for the outputs (the network feature's with contention: links.csv and
  // timeseries.csv's link columns), complete once the run ended; null: none.
  virtual const LinkSharing* link_loads() const { return nullptr; }
  // The run's evaluations for the outputs (the evaluation feature's, when evaluations.csv is
  // written), complete once the run ended; null: none.
  virtual const EvaluationIndex* evaluations() const { return nullptr; }
  // The failure model of the run (the failures feature's): what the core's stops and recoveries
  // read (failures drawn at each start, checkpoints, restart phases, recovery delays, repairs);
  // valid while the feature lives; null: none.
  virtual const FailureModel* failure_model() const { return nullptr; }
  // Whether the feature may stop runs to evict their slow nodes (Stop::Evict, Replace): training.csv
  // then tells the compute those stops lost apart.
  virtual bool evicts() const { return false; }
  // The causes of waste the feature adds to the outputs, as bits 1 << WasteCause; none from most.
  virtual std::uint32_t waste_causes() const { return 0; }
};

// What the outputs read of the run's features: what the first that gives it gives through `get`
// (one of the accessors above, e.g. first_of(features, &Feature::power_meter)); null: none.
template <class T>
const T* first_of(const std::vector<const Feature*>& features, const T* (Feature::*get)() const) {
  for (const Feature* f : features)
    if (const T* x = (f->*get)()) return x;
  return nullptr;
}

}  // namespace acme
