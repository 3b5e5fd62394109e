#include "features/power.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "io/feature_registry.h"
#include "io/sinks.h"
#include "sim/error.h"

namespace acme {
namespace {

// Seren's running power per job GPU, deciles, W: scripts/fit_power.py, AcmeTrace's measured
// quantiles of Seren's GPU power (configs/kalos.yaml has Kalos's).
const std::vector<std::pair<std::string, double>> kSerenJob = {
    {"p0", 60}, {"p10", 63}, {"p20", 65}, {"p30", 72}, {"p40", 84}, {"p50", 96},
    {"p60", 174}, {"p70", 251}, {"p80", 325}, {"p90", 395}, {"p100", 466}};

// A run's power, from its start (run_held) until it stops.
struct RunPower {
  float run_share = 0;  // the share of the run its GPUs compute, as planned at its start
  float job_w = 0;      // its GPUs' mean running power, W
  // Seconds of the run inside the window as planned: its running GPU-time, counted at its start.
  std::int32_t planned_s = 0;
  // Per-GPU power of the run, held and running mixed, W.
  double w(double held_w) const { return static_cast<float>(held_w + (job_w - held_w) * run_share); }
};

class PowerFeature final : public Feature {
 public:
  PowerFeature(const PowerSettings& settings, Time interval) : model_(settings), meter_(model_, interval) {}
  unsigned hooks() const override { return kHeld | kStepping | kStepped | kEnded | kJobsAdded; }

  void begin(const FeatureRun& run) override {
    control_ = &run.control;
    workload_ = &run.workload;
    meter_.open(run.workload.size(), run.workload.window_from, run.workload.window_to);
    runs_.resize(run.workload.size());
    // The first level, once the features before it began: what they held down draws nothing.
    level_ = level();
    clock_ = level_.clock;
    control_->set_clock(clock_);
  }
  void jobs_added() override {
    if (!workload_) return;  // before begin, which sizes what follows the jobs
    meter_.grow(workload_->size());
    runs_.resize(workload_->size());
  }
  // An interval's row is read mid-run (timeseries.csv): closed at the first instant at or past its end.
  void stepping(Time now) override {
    if (now.sec() >= meter_.next_row_s()) meter_.advance(now, level_);
  }
  void stepped(Time now) override { note_level(now); }
  void ended(Time now) override {
    meter_.advance(now, level_);
    meter_.close(now);
    for (std::size_t job = 0; job < workload_->size(); ++job) {
      const double kwh = meter_.job_kwh(static_cast<JobId>(job));
      jobs_kwh_[static_cast<std::size_t>(workload_->requests[job].type)] += kwh;
      jobs_kwh_[kJobTypeCount] += kwh;
    }
  }

  void run_held(JobId job, std::uint64_t job_key, const JobRequest& request, Time compute, Time wall,
                double idle_share) override {
    if (request.gpu_num == 0) return;  // CPU jobs: their nodes' overhead only
    const Time now = control_->now();
    // The part of the run its GPUs sit idle, as planned: launch, reload, checkpoint saves, and the
    // job's idle share of its compute.
    const double idle = static_cast<double>((wall - compute).sec()) + idle_share * static_cast<double>(compute.sec());
    RunPower& p = runs_[job];
    p.run_share = wall > Time{} ? static_cast<float>(1.0 - idle / static_cast<double>(wall.sec())) : 0.0f;
    p.planned_s = static_cast<std::int32_t>(
        std::min<std::int64_t>(meter_.window_seconds(now, now + wall), std::numeric_limits<std::int32_t>::max()));
    // Each GPU's draw, and its running GPU-time as planned (run_released corrects it if the run changes).
    const double per_gpu = static_cast<double>(p.planned_s) * p.run_share;
    double sum = 0;
    model_.each_gpu_level(job_key, request, [&](std::size_t level) {
      sum += model_.level_w(level);
      meter_.note_running_gpu_time(level, per_gpu);
    });
    p.job_w = static_cast<float>(sum / request.gpu_num);
    const double held_w = model_.settings().held_w, w = p.w(held_w);
    allocated_w_ += static_cast<double>(request.gpu_num) * w;
    dynamic_w_ += static_cast<double>(request.gpu_num) * std::max(0.0, w - held_w);
  }
  void run_released(JobId job, Time held) override {
    const JobRequest& request = workload_->requests[job];
    const std::int64_t gpus = request.gpu_num;
    if (gpus == 0) return;
    const Time now = control_->now();
    const RunPower& p = runs_[job];
    const double held_w = model_.settings().held_w, w = p.w(held_w);
    meter_.charge(job, gpus, held, w);
    allocated_w_ -= static_cast<double>(gpus) * w;
    dynamic_w_ -= static_cast<double>(gpus) * std::max(0.0, w - held_w);
    // Its GPU-time at held power; at running power, what the run changed from its plan.
    const std::int64_t seconds = meter_.window_seconds(now - held, now);
    meter_.note_held_gpu_time(static_cast<double>(gpus * seconds) * (1.0 - p.run_share));
    if (seconds == p.planned_s) return;
    const double per_gpu = static_cast<double>(seconds - p.planned_s) * p.run_share;
    model_.each_gpu_level(workload_->keys[job], request,
                          [&](std::size_t level) { meter_.note_running_gpu_time(level, per_gpu); });
  }
  // A failed job's recovery hold draws held_w on the GPUs it keeps.
  void hold_began(JobId, std::int64_t gpus) override {
    allocated_w_ += static_cast<double>(gpus) * model_.settings().held_w;
  }
  void hold_ended(JobId job, std::int64_t gpus, Time held) override {
    const Time now = control_->now();
    const double held_w = model_.settings().held_w;
    meter_.charge(job, gpus, held, held_w);
    meter_.note_held_gpu_time(static_cast<double>(gpus * meter_.window_seconds(now - held, now)));
    allocated_w_ -= static_cast<double>(gpus) * held_w;
  }
  // GPUs held idle draw held_w; lost compute drew the job's running power.
  void wasted(JobId job, WasteCause cause, std::int64_t gpu_seconds) override {
    const bool idle = cause == WasteCause::EvalIdle || cause == WasteCause::CheckpointStall ||
                      cause == WasteCause::RecoveryHold || cause == WasteCause::Restart || cause == WasteCause::Launch;
    meter_.waste(cause, static_cast<double>(gpu_seconds), idle ? model_.settings().held_w : runs_[job].job_w);
  }

  void check_conservation() const override { meter_.check_conservation(); }
  const PowerMeter* power_meter() const override { return &meter_; }
  std::span<const FeatureColumn> columns(FeatureOutput output) const override;
  // The energy of the jobs of type `t` (kJobTypeCount: of all), kWh, once the run ended.
  double jobs_kwh(std::size_t t) const { return jobs_kwh_[t]; }

 private:
  // The cluster's power now, and the clock a cap allows from the clock now.
  PowerMeter::Level level() const {
    const Cluster& cluster = control_->cluster();
    const PowerSettings& s = model_.settings();
    PowerMeter::Level l;
    l.up_nodes = cluster.node_count() - cluster.down_nodes();
    l.allocated_gpus = cluster.allocated_gpus();
    l.idle_gpus = l.up_nodes * cluster.gpus_per_node() - l.allocated_gpus;
    // What a cap can throttle: the jobs' power above held_w (jobs drawing less are not throttled).
    const double dynamic = dynamic_w_;
    const double base = s.idle_w * static_cast<double>(l.idle_gpus) + s.node_w * static_cast<double>(l.up_nodes) +
                        allocated_w_ - dynamic;
    l.uncapped_w = base + dynamic;
    l.clock = model_.clock_for(base, dynamic, clock_);
    l.it_w = l.clock < 1.0 ? base + dynamic * l.clock * l.clock * l.clock : l.uncapped_w;
    return l;
  }
  // After a step: the meter takes the old level up to now when it changed, and every running
  // job's rate follows a new clock.
  void note_level(Time now) {
    // The level is a function of these (and of the clock, which a cap leaves where it is for the
    // same ones): most steps that start or stop nothing change none.
    const Inputs inputs{allocated_w_, dynamic_w_, control_->cluster().allocated_gpus(), control_->cluster().down_nodes()};
    if (inputs == inputs_) return;
    inputs_ = inputs;
    const PowerMeter::Level l = level();
    if (l == level_) return;
    meter_.advance(now, level_);  // the old level ends now
    level_ = l;
    if (l.clock == clock_) return;
    clock_ = l.clock;
    control_->set_clock(clock_);
  }

  PowerModel model_;
  PowerMeter meter_;  // of model_
  FeatureControl* control_ = nullptr;
  const Workload* workload_ = nullptr;
  std::vector<RunPower> runs_;  // [job]: its current (or last) run's
  double allocated_w_ = 0;      // power of the GPUs jobs hold now
  double dynamic_w_ = 0;        // ... of it, the running jobs' power above held_w (what a cap throttles)
  PowerMeter::Level level_;     // the power state since the meter's last advance
  struct Inputs {
    double allocated_w = -1, dynamic_w = -1;
    std::int64_t allocated_gpus = -1, down_nodes = -1;
    bool operator==(const Inputs&) const = default;
  };
  Inputs inputs_;      // what level_ was last computed from
  double clock_ = 1.0;  // the clock fraction of every running job
  std::array<double, kJobTypeCount + 1> jobs_kwh_{};  // by type, then of all (at ended)
};

constexpr FeatureColumn kPowerColumns[] = {
    {"power_kw", "mean facility power of the cluster over the interval, kW", kWithPower,
     [](const Feature& f, std::int64_t time_s) { return FeatureCell{f.power_meter()->mean_kw(time_s), 1}; }},
};
constexpr FeatureColumn kPowerJobColumns[] = {
    {"energy_kwh", "facility energy of the job's GPUs over all its runs and recovery holds, kWh (`sim/power.h`)",
     kWithPower, [](const Feature& f, std::int64_t job) {
       return FeatureCell{f.power_meter()->job_kwh(static_cast<JobId>(job)), 3};
     }},
};
constexpr FeatureColumn kPowerCauseColumns[] = {
    {"energy_kwh", "facility energy of the cause's wasted GPU-time, kWh (as `wasted_energy_kwh` of `summary.csv`)",
     kWithPower, [](const Feature& f, std::int64_t cause) {
       return FeatureCell{f.power_meter()->wasted_kwh(static_cast<WasteCause>(cause)), 1};
     }},
};

// The summaries' energy columns: of the run (row kJobTypeCount), or of a type's row, where only
// its jobs' energy is the type's (idle GPUs, nodes and the GPU power spread are the cluster's: blank).
bool of_type(std::int64_t row) { return row != static_cast<std::int64_t>(kJobTypeCount); }
FeatureCell of_run(std::int64_t row, double v, int decimals) { return {v, decimals, of_type(row)}; }
template <int Percent>
FeatureCell gpu_power(const Feature& f, std::int64_t row) {
  return of_run(row, f.power_meter()->gpu_power_quantile(Percent / 100.0), 0);
}
template <int Percent>
FeatureCell job_gpu_power(const Feature& f, std::int64_t row) {
  return of_run(row, f.power_meter()->job_gpu_power_quantile(Percent / 100.0), 0);
}
double jobs_kwh(const Feature& f, std::int64_t row) {
  return static_cast<const PowerFeature&>(f).jobs_kwh(static_cast<std::size_t>(row));
}

constexpr std::string_view kEnergy =
    "facility energy of the run (the integral of cluster power), of the jobs (their GPUs), of idle GPUs and of the "
    "nodes' overhead; the last three add up to the first, less `cap_saved_kwh` under a cap (checked at the end of "
    "every run). In summary_by_type.csv the type's jobs' energy, the rest blank";
constexpr std::string_view kGpuPower =
    "quantiles of per-GPU power (uncapped) over the GPU-time of up nodes inside the workload's window, idle GPUs "
    "included, W";
constexpr std::string_view kJobGpuPower =
    "the same over the GPU-time jobs held, W (what AcmeTrace's measured GPU power quantiles are compared with: "
    "`experiments/power/`)";
constexpr std::string_view kCap =
    "hours the cap throttled jobs, the mean clock fraction over the GPU-time jobs held (1: never throttled; jobs ran "
    "1 / clock slower), and the energy the cap saved (job energy is counted at uncapped power)";

constexpr FeatureColumn kPowerSummaryColumns[] = {
    {"energy_kwh", kEnergy, kWithPower,
     [](const Feature& f, std::int64_t row) {
       return FeatureCell{of_type(row) ? jobs_kwh(f, row) : f.power_meter()->total_kwh(), 1};
     }},
    {"jobs_energy_kwh", kEnergy, kWithPower,
     [](const Feature& f, std::int64_t row) { return FeatureCell{jobs_kwh(f, row), 1}; }},
    {"idle_energy_kwh", kEnergy, kWithPower,
     [](const Feature& f, std::int64_t row) { return of_run(row, f.power_meter()->idle_kwh(), 1); }},
    {"nodes_energy_kwh", kEnergy, kWithPower,
     [](const Feature& f, std::int64_t row) { return of_run(row, f.power_meter()->nodes_kwh(), 1); }},
    {"wasted_energy_kwh",
     "energy of the wasted GPU-time (held-idle causes at `held_w`, lost compute at the job's running power); by cause "
     "in wasted_by_cause.csv's `energy_kwh`",
     kWithPower,
     [](const Feature& f, std::int64_t row) {
       double wasted = 0;
       for (std::size_t c = 0; c < kWasteCauseCount; ++c) wasted += f.power_meter()->wasted_kwh(static_cast<WasteCause>(c));
       return of_run(row, wasted, 1);
     }},
    {"gpu_power_p25_w", kGpuPower, kWithPower, gpu_power<25>},
    {"gpu_power_p50_w", kGpuPower, kWithPower, gpu_power<50>},
    {"gpu_power_p75_w", kGpuPower, kWithPower, gpu_power<75>},
    {"gpu_power_p90_w", kGpuPower, kWithPower, gpu_power<90>},
    {"job_gpu_power_p25_w", kJobGpuPower, kWithPower, job_gpu_power<25>},
    {"job_gpu_power_p50_w", kJobGpuPower, kWithPower, job_gpu_power<50>},
    {"job_gpu_power_p75_w", kJobGpuPower, kWithPower, job_gpu_power<75>},
    {"job_gpu_power_p90_w", kJobGpuPower, kWithPower, job_gpu_power<90>},
    {"capped_hours", kCap, kWithPower,
     [](const Feature& f, std::int64_t row) { return of_run(row, f.power_meter()->capped_hours(), 2); }},
    {"clock_mean", kCap, kWithPower,
     [](const Feature& f, std::int64_t row) { return of_run(row, f.power_meter()->clock_mean(), 4); }},
    {"cap_saved_kwh", kCap, kWithPower,
     [](const Feature& f, std::int64_t row) { return of_run(row, f.power_meter()->saved_kwh(), 1); }},
};

// Its columns of every output, by FeatureOutput.
constexpr std::array<std::span<const FeatureColumn>, kFeatureOutputs> kPowerOutputColumns = {
    kPowerColumns, kPowerJobColumns, kPowerCauseColumns, kPowerSummaryColumns};

std::span<const FeatureColumn> PowerFeature::columns(FeatureOutput output) const {
  return kPowerOutputColumns[static_cast<std::size_t>(output)];
}

std::unique_ptr<Feature> make_power(Params& params, const FeatureSetup& setup) {
  return power_feature(read_power_settings(params, setup.seed), setup.interval);
}

const FeatureRegistrar kPower({"power", "Power and energy (power.*)", make_power, 50, kPowerOutputColumns});

}  // namespace

std::unique_ptr<Feature> power_feature(const PowerSettings& settings, Time interval) {
  if (!settings.enabled) return nullptr;
  return std::make_unique<PowerFeature>(settings, interval);
}

PowerSettings read_power_settings(Params& params, std::uint64_t seed) {
  PowerSettings s;
  s.seed = seed;
  s.enabled = params.flag("enabled", false, "model power and energy: energy_kwh in jobs.csv, power_kw in "
                                            "timeseries.csv, energy columns in the summaries and waste");
  s.idle_w = params.number("idle_w", 60, 0, 5000, "power of a GPU with no job on an up node, W (AcmeTrace: 60 W)");
  s.held_w = params.number("held_w", 66, 0, 5000,
                           "power of a GPU a job holds without computing (launch, reload, checkpoint save, "
                           "evaluation idle share, recovery hold), W (AcmeTrace: measured p25, among the samples "
                           "at 0% utilization)");
  const auto table = params.table("job_w", kSerenJob, 0, 5000,
                                  "power of a running job's GPUs when not held: quantiles p0, p10, ..., p100 of the "
                                  "per-job draw, W (scripts/fit_power.py: the cluster's measured GPU power)");
  s.job_w.assign(kSerenJob.size(), 0.0);
  for (const auto& [name, value] : table) {
    std::size_t i = 0;
    while (i < kSerenJob.size() && kSerenJob[i].first != name) ++i;
    if (i == kSerenJob.size())
      throw InputError("power.job_w." + name + ": not a quantile (valid: p0, p10, ..., p100)");
    s.job_w[i] = value;
  }
  for (std::size_t i = 1; i < s.job_w.size(); ++i)
    if (s.job_w[i] < s.job_w[i - 1])
      throw InputError("power.job_w." + kSerenJob[i].first + ": quantiles must not fall (" +
                       std::to_string(std::lround(s.job_w[i])) + " W after " + std::to_string(std::lround(s.job_w[i - 1])) +
                       " W)");
  s.node_w = params.number("node_w", 940, 0, 1e6,
                           "power of an up GPU node besides its GPUs (CPUs, memory, NICs, fans), W (AcmeTrace: a "
                           "node's lowest draw, 1,421 W, less 8 idle GPUs)");
  s.psu_loss = params.number("psu_loss", 0.096, 0, 0.99, "share of input power lost in power supplies (AcmeTrace: 9.6%)");
  s.pue = params.number("pue", 1.0, 1.0, 10, "facility power over IT power (1: cooling and the rest not counted)");
  s.cap_kw = params.number("cap_kw", 0, 0, 1e9,
                           "cap on the cluster's facility power, kW (0: none); above it running jobs are throttled");
  s.min_clock = params.number("min_clock", 0.5, 0.05, 1,
                              "lowest clock fraction a cap may impose (progress x clock, GPU power above held_w x "
                              "clock^3)");
  s.clock_step = params.number("clock_step", 0.02, 0, 0.5,
                               "headroom a cap keeps below the clock that fits, and the room it waits for before "
                               "raising the clock again (0: follow the cap exactly, retiming every running job at "
                               "each event while it binds)");
  if (s.cap_kw > 0 && !s.enabled)
    throw InputError("power.cap_kw: needs power.enabled: true (the cap acts on the modeled power)");
  return s;
}

}  // namespace acme
