// Failure injection from the measured failure table (keys failures.*; the table and every
// number of the model in configs/failures/acme.yaml; derivation in experiments/failures/README.md).
//
// Each run of a GPU job draws, for every reason r of the table, a time to failure:
//   infrastructure reasons: exponential, rate G x lambda_r (a per-GPU hazard, G the job's GPUs),
//                           lambda_r = count_r / (exposure GPUs x utilization x days);
//   framework and script reasons (and infrastructure reasons listed under per_run in the table
//                           file): per run, with probability p_r = count_r / exposure jobs the
//                           reason strikes, after an exponential time of mean avg_ttf_r truncated
//                           to the run's horizon (the table counts runs that did fail).
// The run fails at the earliest of these. Draws come from their own generator keyed by
// (failures.seed, job, run number), so the same job's n-th run meets the same failure under
// every policy, whatever order the policy starts jobs in. A job that failures have stopped
// kMaxFailures times (its own or its node's) runs on without failing: a job that cannot
// checkpoint and is expected to fail many times per run (a long run on many GPUs) would otherwise
// restart forever, and the simulation would never end. Preemptions do not count.
//
// Checkpointing (job types in failures.checkpoint_types, default Pretrain): every
// checkpoint_interval_s of compute the job saves, stalling save_time_s (sync) or
// save_time_s / async_speedup (async); a failed run resumes from its last completed save.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/job.h"
#include "sim/params.h"
#include "sim/time.h"

namespace acme {

enum class FailureCategory : std::uint8_t { Infrastructure, Framework, Script };

struct FailureReason {
  std::string name;
  FailureCategory category = FailureCategory::Infrastructure;
  double count = 0, avg_gpus = 0, avg_ttf_min = 0, gpu_time_share_pct = 0;  // the table's row
  double per_gpu_rate = 0;  // infrastructure: failures per GPU-second
  double per_run_prob = 0;  // framework, script, per_run: chance that it strikes a run
};

struct FailureDraw {
  Time after;            // from the start of the run
  std::size_t reason = 0;  // index into FailureModel::reasons()
  // A fault of hardware the job holds (a per-GPU infrastructure reason): takes its node down.
  bool infrastructure() const { return category == FailureCategory::Infrastructure && !per_run; }
  FailureCategory category = FailureCategory::Infrastructure;
  bool per_run = false;  // drawn per run (framework, script, the table's per_run reasons)
};

inline constexpr std::int32_t kMaxFailures = 100;

class FailureModel {
 public:
  // Reads failures.* from `params`; the table from failures.table, else `default_table`.
  // Throws InputError on a bad key or file. enabled() is false unless failures.enabled.
  FailureModel(Params& params, const std::string& default_table);
  bool enabled() const { return enabled_; }

  // The first failure of run `run` (0 for the first start) of `job` holding `gpus` GPUs, if any
  // strikes within `horizon` of the run's start. Pure: the same arguments give the same draw.
  std::optional<FailureDraw> draw(JobId job, std::uint32_t run, std::int32_t gpus, Time horizon) const;

  const std::vector<FailureReason>& reasons() const { return reasons_; }
  Time recovery_delay() const { return recovery_; }  // detection + diagnosis
  Time repair() const { return repair_; }            // an infrastructure failure's node downtime
  // Compute between two saves for jobs of type `t`; zero: that type does not checkpoint.
  Time checkpoint_interval(JobType t) const { return checkpoints_[static_cast<std::size_t>(t)] ? interval_ : Time{}; }
  Time checkpoint_stall() const { return stall_; }  // per save, by the checkpoint mode

 private:
  bool enabled_ = false;
  std::uint64_t seed_ = 1;
  std::vector<FailureReason> reasons_;
  Time recovery_, repair_, interval_, stall_;
  std::array<bool, kJobTypeCount> checkpoints_{};
};

}  // namespace acme
