// Time limits enforced, a model feature (sim/feature.h) in one module: as Slurm does, a run still
// running when its job's time limit has passed since it was placed (plus time_limits.grace_s,
// Slurm's OverTimeLimit) is killed. The job ends then in state TIMEOUT, is not queued again, and
// its GPU-time is wasted as a failed job's (WasteCause::FailedJob, as a trace's TIMEOUT job's).
//
// A job's limit is the one its trace records (Workload::time_limits: SWF's requested time, sacct's
// Timelimit), else its type's time_limits.default_h.<Type> (a partition's DefaultTime: the what-if
// of a site-wide limit on a trace that records none, such as AcmeTrace), else none: never killed.
// In a replay at recorded run times a job outruns a recorded limit only if its trace says it ran
// longer than it asked (a row the site's own limit would have stopped), or when the model slows
// it: the network's placement slowdown or contention, a power cap's clock, slow nodes, checkpoint
// stalls, restart phases. That is the what-if it answers: how many jobs would a slower cluster, or
// a stricter limit, push past their time.
// Every run of a job (after a preemption or failure) is timed from its own placement, as Slurm
// times a requeued job afresh; the launch counts, as Slurm's prolog does.
//
// Keys: time_limits.enforced (default false: off, no output byte changes), time_limits.grace_s,
// time_limits.default_h.<Type>. Never in a recorded replay (its runs start and end as recorded).
// Hooks: run_started and paced (kPaced: the core calls paced() at the limit if the run could
// still be computing then, and at any other feature's pace change; its Pace asks
// Feature::Stop::Timeout once the limit passed). Adds jobs.csv's `time_limit_s` and the
// summaries' `timeouts` and `timeout_gpu_h`. Cost when on: O(1) a run, plus the core's paced runs
// (sim/simulation_pace.cpp); a run that ends before its limit has no event.
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>

#include "io/feature_registry.h"
#include "io/params.h"
#include "sim/feature.h"

namespace acme {
namespace {

constexpr std::string_view kWithTimeLimits = "with `time_limits.enforced` only";

class TimeLimitFeature final : public Feature {
 public:
  TimeLimitFeature(Time grace, const std::array<Time, kJobTypeCount>& defaults) : grace_(grace), defaults_(defaults) {}
  unsigned hooks() const override { return kPaced; }
  void begin(const FeatureRun& run) override { workload_ = &run.workload; }

  Pace run_started(JobId job, std::uint64_t, std::uint32_t, const JobRequest&, Time now) override {
    return {1.0, deadline(job, now)};
  }
  Pace paced(JobId job, std::uint64_t, std::uint32_t, Time started, Time now, bool) override {
    const Time at = deadline(job, started);
    if (now < at) return {1.0, at};
    const JobRequest& r = workload_->requests[job];
    Killed& k = killed_[static_cast<std::size_t>(r.type)];
    ++k.jobs;
    k.gpu_seconds += std::int64_t{r.gpu_num} * (now - started).sec();
    return {1.0, Time::max(), Stop::Timeout};
  }
  std::span<const FeatureColumn> columns(FeatureOutput output) const override;

  // Jobs killed at their limit and the GPU-seconds of the runs killed, of a job type's jobs
  // (type < kJobTypeCount) or of all (kJobTypeCount).
  std::int64_t jobs(std::size_t type) const { return sum(type, &Killed::jobs); }
  std::int64_t gpu_seconds(std::size_t type) const { return sum(type, &Killed::gpu_seconds); }
  // The job's limit: recorded, else its type's default (none: 0). Read by jobs.csv's writer while
  // the workload cannot grow.
  Time limit(JobId job) const {
    const Time recorded = workload_->time_limit(job);
    return recorded > Time{} ? recorded : defaults_[static_cast<std::size_t>(workload_->requests[job].type)];
  }

 private:
  struct Killed {
    std::int64_t jobs = 0, gpu_seconds = 0;
  };
  // When a run placed at `placed` is killed: never for a job without a limit.
  Time deadline(JobId job, Time placed) const {
    const Time l = limit(job);
    return l > Time{} ? placed + l + grace_ : Time::max();
  }
  std::int64_t sum(std::size_t type, std::int64_t Killed::*field) const {
    if (type < kJobTypeCount) return killed_[type].*field;
    std::int64_t all = 0;
    for (const Killed& k : killed_) all += k.*field;
    return all;
  }

  const Time grace_;
  const std::array<Time, kJobTypeCount> defaults_;  // by type: the limit of a job that records none (0: none)
  const Workload* workload_ = nullptr;
  std::array<Killed, kJobTypeCount> killed_{};
};

const TimeLimitFeature& time_limits_of(const Feature& f) { return static_cast<const TimeLimitFeature&>(f); }

constexpr FeatureColumn kTimeLimitJobColumns[] = {
    {"time_limit_s",
     "the job's time limit, seconds: the one its trace records, else its type's `time_limits.default_h`; blank: none "
     "(never killed)",
     kWithTimeLimits, [](const Feature& f, std::int64_t job) {
       const Time limit = time_limits_of(f).limit(static_cast<JobId>(job));
       return FeatureCell{static_cast<double>(limit.sec()), -1, limit == Time{}};
     }},
};

constexpr FeatureColumn kTimeLimitSummaryColumns[] = {
    {"timeouts",
     "jobs killed at their time limit (`features/time_limits.cpp`: state TIMEOUT, their GPU-time wasted as "
     "`failed_job`)",
     kWithTimeLimits,
     [](const Feature& f, std::int64_t row) {
       return FeatureCell{static_cast<double>(time_limits_of(f).jobs(static_cast<std::size_t>(row)))};
     }},
    {"timeout_gpu_h", "GPU-hours of the runs killed at their time limit, from placement to the kill", kWithTimeLimits,
     [](const Feature& f, std::int64_t row) {
       return FeatureCell{static_cast<double>(time_limits_of(f).gpu_seconds(static_cast<std::size_t>(row))) / 3600.0, 2};
     }},
};

// Its columns of every output, by FeatureOutput.
constexpr std::array<std::span<const FeatureColumn>, kFeatureOutputs> kTimeLimitColumns = {
    std::span<const FeatureColumn>{}, kTimeLimitJobColumns, std::span<const FeatureColumn>{}, kTimeLimitSummaryColumns};

std::span<const FeatureColumn> TimeLimitFeature::columns(FeatureOutput output) const {
  return kTimeLimitColumns[static_cast<std::size_t>(output)];
}

std::unique_ptr<Feature> make_time_limits(Params& params, const FeatureSetup& setup) {
  const bool on = params.flag("enforced", false,
                              "kill a run still running when its job's time limit (recorded: SWF's requested time, "
                              "sacct's Timelimit; else default_h) has passed since it was placed: state TIMEOUT, as "
                              "Slurm does");
  const double grace = params.number("grace_s", 0, 0, 86400,
                                     "seconds a run may outlive its limit before it is killed (Slurm's OverTimeLimit)");
  const auto hours = params.type_table(
      "default_h", {}, 0, 24.0 * 365,
      "hours: the limit of a job of this type whose trace records none (a partition's DefaultTime); none: never killed");
  std::array<Time, kJobTypeCount> defaults{};
  for (std::size_t t = 0; t < kJobTypeCount; ++t)
    if (hours[t]) defaults[t] = Time::seconds(static_cast<std::int64_t>(std::llround(*hours[t] * 3600)));
  if (!on || setup.replay == ReplayMode::Recorded) return nullptr;
  return std::make_unique<TimeLimitFeature>(Time::seconds(static_cast<std::int64_t>(grace)), defaults);
}

const FeatureRegistrar kTimeLimits({"time_limits",
                                    "Time limits (time_limits.*): a run that outlives its job's time limit is "
                                    "killed (TIMEOUT)",
                                    make_time_limits, 27, kTimeLimitColumns});

}  // namespace

}  // namespace acme
