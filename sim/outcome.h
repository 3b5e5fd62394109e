// What happened to each job in a run, and the facts the core emits while it runs.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster.h"
#include "sim/cluster_spec.h"
#include "sim/job.h"
#include "sim/time.h"

namespace acme {

// recorded: every job starts at its recorded start time (or as soon after as it fits on the
// modeled cluster); the baseline. policy: every job is submitted at its submit time and the
// policy decides when it starts.
enum class ReplayMode : std::uint8_t { Recorded, Policy };

// Why GPU-time was wasted. Every wasted GPU-second has exactly one cause.
enum class WasteCause : std::uint8_t {
  FailedJob,   // held by a job that ended FAILED, TIMEOUT or NODE_FAIL (and not already counted)
  Preemption,  // work lost when a running job was stopped and requeued
  EvalIdle,    // GPUs held idle inside a job that did not fail (FeatureControl::set_idle_share)
  FailureLost,      // compute since the last checkpoint, lost when an injected failure hit the run
  CheckpointStall,  // GPUs stalled while a checkpoint was saved (sim/failures.h)
  RecoveryHold,     // GPUs a failed job kept while its failure was detected and diagnosed
  Restart,          // a run after a failure reloading its checkpoint before it computes again
  Launch,           // GPUs held from placement until the job starts (features/launch.h)
  Straggler,        // a run computing slower while one of its nodes is slow (features/stragglers.h)
};
inline constexpr std::size_t kWasteCauseCount = 9;
inline constexpr std::array<std::string_view, kWasteCauseCount> kWasteCauseNames = {
    "failed_job", "preemption", "eval_idle", "failure_lost", "checkpoint_stall", "recovery_hold", "restart", "launch",
    "straggler"};
// The causes every run's outputs list (bits 1 << WasteCause): those before the model features
// that add their own (Feature::waste_causes) and are listed only in runs with such a feature.
inline constexpr std::uint32_t kCoreWasteCauses = (1u << 8) - 1;
inline constexpr std::uint32_t cause_bit(WasteCause c) { return 1u << static_cast<unsigned>(c); }

struct JobOutcome {  // 48 bytes: a million of them are kept
  OptionalTime start;          // first start (after its launch); none if it never started
  OptionalTime end;            // when it left the system (ended, withdrawn or rejected)
  std::int64_t gpu_seconds = 0;          // GPUs held x time held, summed over its runs
  std::int64_t wasted_gpu_seconds = 0;   // the part of gpu_seconds that was wasted
  std::int32_t run_s = 0;                // run_time() in seconds
  float slowdown = 1.0f;                 // run-time factor of its (last) placement
  std::uint16_t preemptions = 0;         // times it was stopped and requeued (count())
  std::uint16_t failures = 0;            // injected failures that stopped a run (sim/failures.h; count())
  std::int16_t leaves_spanned = 0;       // leaf switches under its (last) placement
  JobState state = JobState::Completed;
  RejectReason reject = RejectReason::None;

  // Time held, summed over its runs, launches excluded.
  Time run_time() const { return Time::seconds(run_s); }
  // Throws std::overflow_error past 2^31 - 1 s (68 years) in all.
  void add_run_time(Time t) {
    const std::int64_t sum = run_s + t.sec();
    if (sum > INT32_MAX || sum < 0) throw std::overflow_error("a job ran more than 68 years in all");
    run_s = static_cast<std::int32_t>(sum);
  }
  // One more preemption or failure; throws std::overflow_error past 65,535 of them.
  static void count(std::uint16_t& counter) {
    if (counter == UINT16_MAX) throw std::overflow_error("a job stopped more than 65,535 times for one cause");
    ++counter;
  }
};
static_assert(sizeof(JobOutcome) == 48);

// When a job that waits for no other reaches the scheduler: in a recorded replay its recorded
// start (if it started), else its submit time.
inline Time timed_release(const Workload& w, ReplayMode mode, JobId job) {
  if (mode == ReplayMode::Recorded)
    if (const OptionalTime recorded = w.profiles[job].recorded_start()) return *recorded;
  return w.requests[job].submit;
}

// When the job reached the scheduler: timed_release or, for a job that waited for another
// (Workload::after), its think time after that one ended (none before).
inline OptionalTime released(const Workload& w, ReplayMode mode, const std::vector<JobOutcome>& outcomes, JobId job) {
  if (!w.waits(job)) return timed_release(w, mode, job);
  const OptionalTime end = outcomes[w.after[job]].end;
  return end ? OptionalTime(*end + w.think_time(job)) : end;
}

// When the job was submitted: its request's submit time or, for a job that waited for another
// (Workload::after), its think time after that one ended.
inline Time submitted(const Workload& w, const std::vector<JobOutcome>& outcomes, JobId job) {
  if (!w.waits(job)) return w.requests[job].submit;
  const OptionalTime end = outcomes[w.after[job]].end;
  return end ? *end + w.think_time(job) : w.requests[job].submit;
}

// Failed: an injected failure stopped the job; it recovers (detection, diagnosis) and is queued
// again with Requeued. While it recovers it may keep some of its resources (sim/failures.h).
// Preempted: also a run stopped to evict its slow nodes (Feature::Stop), queued again, or, with
// spares, Started again at once on the same resources.
enum class FactKind : std::uint8_t { Queued, Started, Ended, Withdrawn, Rejected, Preempted, Failed, Requeued };

// One thing that happened, as the core tells sinks. `request` stays valid for the run;
// `placement`, only during the call: for Started, Ended and Preempted where the job held
// resources; for Failed and Requeued the resources it gave back then (perhaps none); null for
// the other kinds.
struct Fact {
  FactKind kind;
  Time time;
  JobId job;
  const JobRequest* request;
  const Placement* placement = nullptr;
};

// The end-of-run conservation figures (see Simulation::check_conservation).
struct Conservation {
  std::uint64_t jobs = 0;
  std::uint64_t ended = 0;
  std::int64_t job_gpu_seconds = 0;       // summed over jobs
  std::int64_t integral_gpu_seconds = 0;  // integral of allocated GPUs over time
  std::array<std::int64_t, kWasteCauseCount> wasted_by_cause{};  // GPU-seconds
  std::uint32_t causes_listed = kCoreWasteCauses;  // the causes the outputs list: the core's and the features'
  bool listed(std::size_t cause) const { return (causes_listed >> cause) & 1u; }
};

// Which evaluation (one checkpoint's batch of Eval jobs, features/evaluation.h) each job belongs
// to, for evaluations.csv.
struct EvaluationIndex {
  static constexpr std::uint32_t kNone = 0xffffffffu;
  std::vector<std::uint32_t> of_job;  // [job]: its evaluation, kNone for other jobs
  std::vector<std::uint32_t> trials;  // [evaluation]: trials (datasets) it evaluates
};

// Where each job's first launch latency comes from: the launch feature (features/launch.h).
class FirstLaunchSource {
 public:
  // The latency of the first start of `job`, whose key (Workload::keys) is `job_key`. O(1).
  virtual Time first(JobId job, std::uint64_t job_key, const JobRequest& r) const = 0;
  // No first latency is longer.
  virtual Time most() const = 0;

 protected:
  ~FirstLaunchSource() = default;
};

// Each job's first launch latency, as the run drew it; none without a launch latency.
struct FirstLaunches {
  const FirstLaunchSource* source = nullptr;
  Time of(JobId job, std::uint64_t job_key, const JobRequest& r) const {
    return source ? source->first(job, job_key, r) : Time{};
  }
  Time most() const { return source ? source->most() : Time{}; }
};

// What the outputs read of a run's jobs beside their outcomes (Simulation::job_reports).
struct JobReports {
  FirstLaunches launches;  // each job's first launch latency (queue_parts below)
};

// Everything a sink may report once the run is over.
struct RunRecord {
  const Workload& workload;
  const ClusterSpec& cluster;
  ReplayMode replay;
  const std::vector<JobOutcome>& outcomes;
  std::vector<std::pair<std::string, std::string>> config;  // resolved configuration, key order
  Conservation conservation;
  std::array<std::int64_t, kJobTypeCount> window_gpu_seconds{};  // see Simulation
  const EvaluationIndex* evaluations = nullptr;  // when the run grouped its evaluations
  FirstLaunches launches{};  // each job's first launch latency (none without a launch latency)
};

// How long a started job launched before its first start (its first launch latency, or less if
// it was stopped while launching) and how long it waited before that to be placed: the two
// parts of start - submitted.
struct QueueParts {
  Time wait, launch;
};
inline QueueParts queue_parts(const FirstLaunches& launches, const Workload& w, JobId job, Time submitted, Time start) {
  const Time queue = start - submitted;
  const Time launch = std::min(launches.of(job, w.keys[job], w.requests[job]), queue);
  return {queue - launch, launch};
}

}  // namespace acme
