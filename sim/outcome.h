// What happened to each job in a run, and the facts the core emits while it runs.
#pragma once

#include <cstdint>
#include <optional>
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

struct JobOutcome {
  Time release;                // when the job reached the scheduler
  std::optional<Time> start;   // none if it never started
  std::optional<Time> end;     // when it left the system (ended, withdrawn or rejected)
  JobState state = JobState::Completed;
  RejectReason reject = RejectReason::None;
  std::int64_t gpu_seconds = 0;  // GPUs held x time held
};

enum class FactKind : std::uint8_t { Queued, Started, Ended, Withdrawn, Rejected };

// One thing that happened, as the core tells sinks. `request` stays valid for the run.
struct Fact {
  FactKind kind;
  Time time;
  JobId job;
  const JobRequest* request;
};

// The end-of-run conservation figures (see Simulation::check_conservation).
struct Conservation {
  std::uint64_t jobs = 0;
  std::uint64_t ended = 0;
  std::int64_t job_gpu_seconds = 0;       // summed over jobs
  std::int64_t integral_gpu_seconds = 0;  // integral of allocated GPUs over time
};

// Everything a sink may report once the run is over.
struct RunRecord {
  const Workload& workload;
  const ClusterSpec& cluster;
  ReplayMode replay;
  const std::vector<JobOutcome>& outcomes;
  std::vector<std::pair<std::string, std::string>> config;  // resolved configuration, key order
  Conservation conservation;
};

}  // namespace acme
