// summary.csv and summary_by_type.csv (io/sinks.h): their columns, and the sink that writes them.
#include "io/sinks.h"

#include <array>
#include <filesystem>
#include <optional>
#include <string_view>

#include "io/columns.h"
#include "io/csv.h"
#include "io/ended_jobs_thread.h"
#include "io/metrics.h"
#include "sim/power.h"

namespace acme {
namespace {

// summary.csv's columns after the configuration's, before the statistics.
struct RunRow {
  const RunRecord& run;
  const RunSummary& sum;
};
constexpr std::string_view kWindow =
    "start and end of the window the statistics are taken over: `[workload.from, workload.to)` when given, else "
    "first submit to last end";
constexpr Column<RunRow> kRunColumns[] = {
    {"cluster_gpus", "GPUs in the cluster", [](const RunRow& r) { return Cell::integer(r.run.cluster.total_gpus()); }},
    {"window_start_s", kWindow, [](const RunRow& r) { return Cell::integer(r.sum.window_start.sec()); }},
    {"window_end_s", kWindow, [](const RunRow& r) { return Cell::integer(r.sum.window_end.sec()); }},
    {"rows_skipped", "malformed trace rows skipped (`workload.lenient`)",
     [](const RunRow& r) { return Cell::integer(static_cast<std::int64_t>(r.run.workload.rows_skipped)); }},
};

// summary_by_type.csv's column after the configuration's.
constexpr Column<std::size_t> kTypeColumns[] = {
    {"type", "the job type of the row", [](const std::size_t& t) { return Cell::text(kJobTypeNames[t]); }},
};

// The statistics (io/metrics.h) of a row: of the run, or of a job type. Reals are captured as the
// text the file holds (Cell::real_as_text); a blank is an empty text.
template <class T>
Cell count(T v) { return Cell::integer(static_cast<std::int64_t>(v)); }
Cell fixed(double v) { return Cell::real_as_text(v, 3); }
Cell fixed_or_blank(const std::optional<double>& v) { return v ? fixed(*v) : Cell::text({}); }
template <std::size_t S>
Cell state_count(const Stats& s) { return count(s.by_state[S]); }

constexpr std::string_view kJobs = "jobs in the row, those asking for GPUs, those that started";
constexpr std::string_view kQueue = "queuing delay (start - submit) of GPU jobs that started; nearest-rank percentiles";
constexpr std::string_view kWait = "its first part: the wait to be placed (`wait_s` of `jobs.csv`)";
constexpr std::string_view kLaunch = "its second part: the launch latency of the first start (`launch_s`)";
constexpr std::string_view kReplay = "recorded replay: jobs that started later than recorded, and their mean delay";
constexpr std::string_view kByState = "jobs by final state";

constexpr Column<Stats> kStatColumns[] = {
    {"jobs", kJobs, [](const Stats& s) { return count(s.jobs); }},
    {"gpu_jobs", kJobs, [](const Stats& s) { return count(s.gpu_jobs); }},
    {"started", kJobs, [](const Stats& s) { return count(s.started); }},
    {"queue_mean_s", kQueue, [](const Stats& s) { return fixed(s.queue_mean_s); }},
    {"queue_p50_s", kQueue, [](const Stats& s) { return count(s.queue_p50_s); }},
    {"queue_p90_s", kQueue, [](const Stats& s) { return count(s.queue_p90_s); }},
    {"queue_p99_s", kQueue, [](const Stats& s) { return count(s.queue_p99_s); }},
    {"queue_max_s", kQueue, [](const Stats& s) { return count(s.queue_max_s); }},
    {"wait_mean_s", kWait, [](const Stats& s) { return fixed(s.wait_mean_s); }},
    {"wait_p50_s", kWait, [](const Stats& s) { return count(s.wait_p50_s); }},
    {"wait_p90_s", kWait, [](const Stats& s) { return count(s.wait_p90_s); }},
    {"wait_p99_s", kWait, [](const Stats& s) { return count(s.wait_p99_s); }},
    {"launch_mean_s", kLaunch, [](const Stats& s) { return fixed(s.launch_mean_s); }},
    {"launch_p50_s", kLaunch, [](const Stats& s) { return count(s.launch_p50_s); }},
    {"launch_p99_s", kLaunch, [](const Stats& s) { return count(s.launch_p99_s); }},
    {"launch_max_s", kLaunch, [](const Stats& s) { return count(s.launch_max_s); }},
    {"gpu_hours", "GPU-hours held", [](const Stats& s) { return fixed(s.gpu_hours); }},
    {"gpu_util_pct",
     "allocated GPU-time inside the window over cluster GPUs x window length, %; the window is `[workload.from, "
     "workload.to)` when given, else first submit to last end",
     [](const Stats& s) { return fixed(s.gpu_util_pct); }},
    {"wasted_gpu_hours",
     "wasted GPU-hours: jobs that ended FAILED, TIMEOUT or NODE_FAIL, work lost to preemption, idle evaluation GPUs",
     [](const Stats& s) { return fixed(s.wasted_gpu_hours); }},
    {"preemptions", "times jobs were stopped and requeued", [](const Stats& s) { return count(s.preemptions); }},
    {"makespan_s", "last end - first submit", [](const Stats& s) { return count(s.makespan_s); }},
    {"replay_delayed_jobs", kReplay, [](const Stats& s) { return count(s.replay_delayed_jobs); }},
    {"replay_delay_mean_s", kReplay, [](const Stats& s) { return fixed(s.replay_delay_mean_s); }},
    {"jobs_completed", kByState, state_count<0>},
    {"jobs_failed", kByState, state_count<1>},
    {"jobs_cancelled", kByState, state_count<2>},
    {"jobs_preempted", kByState, state_count<3>},
    {"jobs_timeout", kByState, state_count<4>},
    {"jobs_node_fail", kByState, state_count<5>},
    {"jobs_running", kByState, state_count<6>},
    {"jobs_rejected", kByState, state_count<7>},
    {"jain_slowdown_users",
     "Jain's fairness index (sum x)^2 / (n x sum x^2) of the users' mean slowdowns (`slowdown_mean` of `users.csv`), "
     "over users with at least one slowdown; in `summary_by_type.csv`, of each user's mean over their jobs of that "
     "type. 1: every user is slowed down alike; 1/n: one user bears it all. Blank when no job has a slowdown",
     [](const Stats& s) { return fixed_or_blank(s.jain_slowdown_users); }},
    {"jain_slowdown_types",
     "the same index of the job types' mean slowdowns, over the types with at least one slowdown; `summary.csv` only "
     "(a type's own row has nothing to compare: the cell is blank in `summary_by_type.csv`)",
     [](const Stats& s) { return fixed_or_blank(s.jain_slowdown_types); }},
    {"waiting_over_1h_pct",
     "started GPU jobs whose queuing delay exceeded 3600 s, % of the started GPU jobs; blank when none started",
     [](const Stats& s) { return fixed_or_blank(s.waiting_over_1h_pct); }},
};
static_assert(kJobStateCount == 8, "a column per final state");

// The energy columns: of the run, or of a type's row, where only its jobs' energy is the type's
// (idle GPUs, nodes and the GPU power spread are the cluster's: blank).
struct EnergyRow {
  const PowerMeter& meter;
  double jobs_kwh;  // the row's jobs' energy
  bool of_type;
};
Cell of_run(const EnergyRow& r, double v, int decimals) { return r.of_type ? Cell::blank() : Cell::real(v, decimals); }
template <int Percent>
Cell gpu_power(const EnergyRow& r) { return of_run(r, r.meter.gpu_power_quantile(Percent / 100.0), 0); }
template <int Percent>
Cell job_gpu_power(const EnergyRow& r) { return of_run(r, r.meter.job_gpu_power_quantile(Percent / 100.0), 0); }

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

constexpr Column<EnergyRow> kEnergyColumns[] = {
    {"energy_kwh", kEnergy,
     [](const EnergyRow& r) { return Cell::real(r.of_type ? r.jobs_kwh : r.meter.total_kwh(), 1); }},
    {"jobs_energy_kwh", kEnergy, [](const EnergyRow& r) { return Cell::real(r.jobs_kwh, 1); }},
    {"idle_energy_kwh", kEnergy, [](const EnergyRow& r) { return of_run(r, r.meter.idle_kwh(), 1); }},
    {"nodes_energy_kwh", kEnergy, [](const EnergyRow& r) { return of_run(r, r.meter.nodes_kwh(), 1); }},
    {"wasted_energy_kwh",
     "energy of the wasted GPU-time (held-idle causes at `held_w`, lost compute at the job's running power); by cause "
     "in wasted_by_cause.csv's `energy_kwh`",
     [](const EnergyRow& r) {
       double wasted = 0;
       for (std::size_t c = 0; c < kWasteCauseCount; ++c) wasted += r.meter.wasted_kwh(static_cast<WasteCause>(c));
       return of_run(r, wasted, 1);
     }},
    {"gpu_power_p25_w", kGpuPower, gpu_power<25>},
    {"gpu_power_p50_w", kGpuPower, gpu_power<50>},
    {"gpu_power_p75_w", kGpuPower, gpu_power<75>},
    {"gpu_power_p90_w", kGpuPower, gpu_power<90>},
    {"job_gpu_power_p25_w", kJobGpuPower, job_gpu_power<25>},
    {"job_gpu_power_p50_w", kJobGpuPower, job_gpu_power<50>},
    {"job_gpu_power_p75_w", kJobGpuPower, job_gpu_power<75>},
    {"job_gpu_power_p90_w", kJobGpuPower, job_gpu_power<90>},
    {"capped_hours", kCap, [](const EnergyRow& r) { return of_run(r, r.meter.capped_hours(), 2); }},
    {"clock_mean", kCap, [](const EnergyRow& r) { return of_run(r, r.meter.clock_mean(), 4); }},
    {"cap_saved_kwh", kCap, [](const EnergyRow& r) { return of_run(r, r.meter.saved_kwh(), 1); }},
};

void write_config_cells(CsvWriter& csv, const RunRecord& run) {
  for (const auto& [key, value] : run.config) csv.text(value);
}
void write_config_names(CsvWriter& csv, const RunRecord& run) {
  for (const auto& [key, value] : run.config) csv.text(key);
}

// summary.csv (one row) and summary_by_type.csv (one row per job type present).
// With SinkSettings::threads above 1, a thread of its own adds the ended jobs to the summary
// while the run goes on.
class SummarySink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit SummarySink(const SinkSettings& s)
      : dir_(s.out_dir), capture_(s.capture), renames_(s.renames), power_(s.power), live_(s.threads > 1) {}
  bool wants_ended() const override { return live_; }
  void on_ended(const EndedJobs& ended) override { adder_.on_ended(ended); }
  void finish(const RunRecord& run) override {
    adder_.stop();
    const RunSummary sum = builder_.finish(run);
    // With the power model: energy of the jobs by type (and in all), kWh.
    std::array<double, kJobTypeCount + 1> job_kwh{};
    if (power_)
      for (std::size_t i = 0; i < run.workload.size(); ++i) {
        const double kwh = power_->job_kwh(static_cast<JobId>(i));
        job_kwh[static_cast<std::size_t>(run.workload.requests[i].type)] += kwh;
        job_kwh[kJobTypeCount] += kwh;
      }
    {
      CsvWriter csv(dir_ / "summary.csv", capture_, renames_);
      write_config_names(csv, run);
      write_names<RunRow>(csv, kRunColumns);
      write_names<Stats>(csv, kStatColumns);
      if (power_) write_names<EnergyRow>(csv, kEnergyColumns);
      csv.end_row();
      write_config_cells(csv, run);
      write_cells<RunRow>(csv, kRunColumns, {run, sum});
      write_cells<Stats>(csv, kStatColumns, sum.all);
      if (power_) write_cells<EnergyRow>(csv, kEnergyColumns, {*power_, job_kwh[kJobTypeCount], false});
      csv.end_row();
      csv.commit();
    }
    CsvWriter csv(dir_ / "summary_by_type.csv", capture_, renames_);
    write_config_names(csv, run);
    write_names<std::size_t>(csv, kTypeColumns);
    write_names<Stats>(csv, kStatColumns);
    if (power_) write_names<EnergyRow>(csv, kEnergyColumns);
    csv.end_row();
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      if (sum.by_type[t].jobs == 0) continue;
      write_config_cells(csv, run);
      write_cells<std::size_t>(csv, kTypeColumns, t);
      write_cells<Stats>(csv, kStatColumns, sum.by_type[t]);
      if (power_) write_cells<EnergyRow>(csv, kEnergyColumns, {*power_, job_kwh[t], true});
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path dir_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const PowerMeter* power_;
  bool live_;
  SummaryBuilder builder_;
  EndedJobsThread adder_{[this](const EndedJobs& e, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) builder_.add(e.workload, e.outcomes, e.replay, e.launches);
  }};
};

}  // namespace

std::unique_ptr<Sink> make_summary_sink(const SinkSettings& settings) {
  return std::make_unique<SummarySink>(settings);
}

std::vector<FileColumns> summary_columns() {
  const ColumnGroupDoc stats = group_doc<Stats>(kStatColumns);
  const ColumnGroupDoc energy = group_doc<EnergyRow>(kEnergyColumns, kWithPower);
  return {{"summary.csv", {group_doc<RunRow>(kRunColumns), stats, energy}},
          {"summary_by_type.csv", {group_doc<std::size_t>(kTypeColumns), stats, energy}}};
}

}  // namespace acme
