// Failure injection from the measured failure table (keys failures.*; the table and every
// number of the model in configs/failures/acme.yaml; derivation in experiments/failures/README.md).
//
// Each run of a GPU job, of horizon T (its wall time), draws which reasons strike it:
//   infrastructure reasons: with probability 1 - exp(-G x lambda_r x T) (a per-GPU hazard, G the
//                           job's GPUs), lambda_r = rate_fit_r x count_r / (exposure GPUs x
//                           utilization x days);
//   framework and script reasons (and infrastructure reasons listed under per_run in the table
//                           file): with probability p_r(G) = c_r x G^beta_r per run, where
//                           beta_r makes the mean GPUs of the struck jobs of the exposure's
//                           population (exposure.gpu_demand) the table's avg_gpus_r, and c_r
//                           makes their expected count rate_fit_r x count_r (without
//                           exposure.gpu_demand: beta_r = 0, c_r = rate_fit_r x count_r / exposure
//                           jobs).
// A reason that strikes does so after an exponential time of mean avg_ttf_r x ttf_fit_r,
// truncated to the horizon (the table's means are those of runs that did fail: the hazard is not
// constant over a run; failures come early); an infrastructure reason of avg_ttf 0 has a constant
// hazard instead, its time exponential of mean 1 / (G x lambda_r), truncated (a table of rates
// only, as configs/failures/llama3.yaml). The run fails at the earliest. rate_fit_r and
// ttf_fit_r (the table file's fit.<reason>) are fitted so that injected into the population the
// table was measured on, each reason's count and mean time to failure are the table's
// (experiments/failures/validate.cpp --fit).
// Whether any reason strikes is settled first by one uniform (most runs: none), so a run costs a
// few instructions unless it fails. Draws come from their own generator keyed by
// (failures.seed, the job's identity, run number), the identity its key (job_key: its job_id or
// generated id, not its row), so the same job's n-th run meets the same failure under every
// policy, whatever order the policy starts jobs in, in any row order or window of its trace. A job
// that failures have stopped kMaxFailures times in a row (its own or its node's) without keeping
// any progress draws no more failures of its own: expected to fail before its first safe save, or
// before its end when it saves nothing (a long run on many GPUs), it would otherwise restart
// forever, and the simulation would never end. A job that keeps progress from its failures (its
// saves) gets closer to its end at each, and draws up to kMaxFailuresInAll (a 10,000-GPU job
// interrupted every 5 hours for four weeks of work meets about 160; one of 16,384 GPUs over 54
// days, about 500), so that a job whose saves barely outpace its failures still ends. A failure
// another job draws still stops a job when it takes down a node it runs on (each job draws at
// most the caps, so the run still ends). Preemptions do not count.
//
// Checkpointing (job types in failures.checkpoint.<Type>, default Pretrain): every
// checkpoint interval of compute the job saves, stalling it; a failed run resumes from its last
// save that was safe when it struck, after the restart phases (sim/checkpoints.h).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/checkpoints.h"
#include "sim/cluster_spec.h"
#include "sim/job.h"
#include "sim/time.h"

namespace acme {

enum class FailureCategory : std::uint8_t { Infrastructure, Framework, Script };

// What a failure takes down besides the job, by the topology's failure domains (Topology::Domain),
// for the repair time: Gpu and Nic the node of the job's GPU or NIC that failed, Node a node of
// the job, Leaf the leaf switch above one of the job's nodes and so every node under it; Job
// nothing. The struck node is one of the job's, drawn with its GPUs as weight
// (FailureModel::where). The table file's takes_down.<reason>; per-GPU reasons default to Node,
// per-run reasons always take nothing down.
enum class FailureDomain : std::uint8_t { Job, Gpu, Nic, Node, Leaf };

struct FailureReason {
  std::string name;
  FailureCategory category = FailureCategory::Infrastructure;
  double count = 0, avg_gpus = 0, avg_ttf_min = 0, gpu_time_share_pct = 0;  // the table's row
  FailureDomain domain = FailureDomain::Node;
  // The table file's fit.<reason>: [rate_fit, ttf_fit] (default [1, 1]). rate_fit scales the
  // reason's chance to strike (so that its count, after earlier failures of the same runs hid
  // some, is the table's); ttf_fit its time (next).
  double rate_fit = 1, ttf_fit = 1;
  // The mean of the exponential time to failure, before truncation to the run: avg_ttf_min x 60
  // x ttf_fit. The table's avg_ttf_min is the mean over runs that failed, so it is what remains
  // after the truncation.
  double ttf_mean_s = 0;
  double per_gpu_rate = 0;  // infrastructure: failures per GPU-second
  // Framework, script and per_run reasons: the chance that the reason strikes a run of G GPUs,
  // min(1, per_run_prob x G^gpu_exponent) (see FailureModel).
  double per_run_prob = 0;
  double gpu_exponent = 0;
  double per_run_chance(std::int32_t gpus) const {
    return std::min(1.0, per_run_prob * std::pow(static_cast<double>(gpus), gpu_exponent));
  }
};

struct FailureDraw {
  Time after;            // from the start of the run
  std::size_t reason = 0;  // index into FailureModel::reasons()
  FailureDomain domain = FailureDomain::Job;  // what else it takes down
  bool takes_hardware() const { return domain != FailureDomain::Job; }
  FailureCategory category = FailureCategory::Infrastructure;
  bool per_run = false;  // drawn per run (framework, script, the table's per_run reasons)
};

inline constexpr std::int32_t kMaxFailures = 100;        // in a row, none keeping progress
inline constexpr std::int32_t kMaxFailuresInAll = 1000;  // of any job

// The failure model's settings: the keys failures.* and the table file they name, as read by
// io/failure_file.h (every field's meaning and default: configs/README.md, failures.*).
struct FailureSettings {
  bool enabled = false;                    // failures.enabled
  std::uint64_t seed = 1;                  // failures.seed
  bool hold_gpus = true;                   // failures.hold_gpus
  bool recorded_failed_complete = false;   // failures.recorded_failed: complete
  std::array<bool, kJobTypeCount> checkpoints{};  // failures.checkpoint.<Type>
  // The table: its rows (with fit.<reason> and takes_down.<reason> applied), the infrastructure
  // reasons it draws per run, and the exposure it was measured on.
  std::vector<FailureReason> reasons;
  std::vector<std::string> per_run;
  std::vector<std::pair<double, double>> population;  // exposure.gpu_demand: (GPUs, jobs)
  double exposure_gpu_seconds = 0;         // GPUs x utilization x days x 86400; > 0 if enabled
  double exposure_jobs = 0;                // > 0 if enabled
  double detect_s = 0, diagnose_s = 0;     // the recovery delay's two phases
  double repair_s = 0;
  CheckpointSettings checkpoint;           // saves and the restart phases
};

class FailureModel {
 public:
  // The model of `settings` (read by features/failures.h: load_failure_model). enabled() is
  // false unless settings.enabled.
  explicit FailureModel(FailureSettings settings);
  bool enabled() const { return enabled_; }

  // The first failure of run `run` (0 for the first start) of the job of key `job_key`
  // (job_key, Workload::keys) holding `gpus` GPUs, if any strikes within `horizon` of the run's
  // start. Pure: the same arguments give the same draw.
  std::optional<FailureDraw> draw(std::uint64_t job_key, std::uint32_t run, std::int32_t gpus, Time horizon) const;
  // Where in the job's resources that failure struck: a uniform in [0, 1) (pure, as draw()).
  double where(std::uint64_t job_key, std::uint32_t run) const;

  const std::vector<FailureReason>& reasons() const { return reasons_; }
  // exposure.gpu_demand: the (GPUs, jobs) the per-run reasons were fitted to; empty if not given.
  const std::vector<std::pair<double, double>>& population() const { return population_; }
  // A failure's detection and diagnosis, one after the other: the recovery delay.
  Time detection() const { return detect_; }
  Time diagnosis() const { return diagnose_; }
  Time recovery_delay() const { return detect_ + diagnose_; }
  // failures.hold_gpus: a failed job keeps its resources (but those on a node that failed)
  // while it is detected and diagnosed, idle (waste cause recovery_hold).
  bool holds_gpus() const { return hold_gpus_; }
  Time repair() const { return repair_; }            // an infrastructure failure's node downtime
  // Compute between two saves for jobs of type `t`; zero: that type does not checkpoint.
  Time checkpoint_interval(JobType t) const {
    return checkpoints_[static_cast<std::size_t>(t)] ? checkpoint_.interval() : Time{};
  }
  // Whether jobs of type `t` checkpoint (failures.checkpoint.<Type>, whatever the interval): the
  // training jobs whose time the Simulation tells the features of (Feature::kTrained).
  bool trains(JobType t) const { return checkpoints_[static_cast<std::size_t>(t)]; }
  // Saves, their safety and the restart phases (sim/checkpoints.h).
  const CheckpointModel& checkpoints() const { return checkpoint_; }
  // Takes the NIC and storage bandwidths from the cluster's topology.
  void use_cluster(const ClusterSpec& cluster) { checkpoint_.use_cluster(cluster); }
  // failures.recorded_failed: complete. The table's rates count every failure of the traced
  // cluster, and the trace's FAILED jobs are those failures: injecting into a trace as well
  // counts them twice, unless the recorded ones are turned into completions.
  bool recorded_failed_complete() const { return recorded_failed_complete_; }

 private:
  bool enabled_ = false;
  bool recorded_failed_complete_ = false;
  bool hold_gpus_ = true;
  std::uint64_t seed_ = 1;
  std::vector<FailureReason> reasons_;
  std::vector<std::pair<double, double>> population_;
  double per_gpu_rate_sum_ = 0.0;  // of the per-GPU reasons
  // [b]: a lower bound on the chance that no per-run reason strikes a run of 2^b .. 2^(b+1) - 1
  // GPUs (each reason's chance is monotone in G, so largest at an end of the range).
  std::array<double, 32> per_run_none_at_least_{};
  static double strike_probability(const FailureReason& r, std::int32_t gpus, double horizon_s);
  std::uint64_t run_key(std::uint64_t job_key, std::uint32_t run) const;  // seeds the draws of one run
  Time detect_, diagnose_, repair_;
  CheckpointModel checkpoint_;
  std::array<bool, kJobTypeCount> checkpoints_{};
};

}  // namespace acme
