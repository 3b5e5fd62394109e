// summary.csv and summary_by_type.csv (io/sinks.h).
#include "io/sinks.h"

#include <array>
#include <filesystem>
#include <string_view>

#include "io/csv.h"
#include "io/ended_jobs_thread.h"
#include "io/metrics.h"
#include "sim/power.h"

namespace acme {
namespace {

void write_config_cells(CsvWriter& csv, const RunRecord& run) {
  for (const auto& [key, value] : run.config) csv.text(value);
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
      for (const auto& [key, value] : run.config) csv.text(key);
      for (std::string_view h : {"cluster_gpus", "window_start_s", "window_end_s", "rows_skipped"}) csv.text(h);
      for (const StatColumn& c : stat_columns()) csv.text(c.name);
      power_header(csv);
      csv.end_row();
      write_config_cells(csv, run);
      csv.integer(run.cluster.total_gpus()).integer(sum.window_start.sec()).integer(sum.window_end.sec());
      csv.integer(static_cast<std::int64_t>(run.workload.rows_skipped));
      for (const StatColumn& c : stat_columns()) csv.text(c.format(sum.all));
      if (power_) {
        double wasted = 0;
        for (std::size_t c = 0; c < kWasteCauseCount; ++c) wasted += power_->wasted_kwh(static_cast<WasteCause>(c));
        csv.real(power_->total_kwh(), 1).real(job_kwh[kJobTypeCount], 1).real(power_->idle_kwh(), 1);
        csv.real(power_->nodes_kwh(), 1).real(wasted, 1);
        for (double q : {0.25, 0.5, 0.75, 0.9}) csv.real(power_->gpu_power_quantile(q), 0);
        for (double q : {0.25, 0.5, 0.75, 0.9}) csv.real(power_->job_gpu_power_quantile(q), 0);
        csv.real(power_->capped_hours(), 2).real(power_->clock_mean(), 4).real(power_->saved_kwh(), 1);
      }
      csv.end_row();
      csv.commit();
    }
    CsvWriter csv(dir_ / "summary_by_type.csv", capture_, renames_);
    for (const auto& [key, value] : run.config) csv.text(key);
    csv.text("type");
    for (const StatColumn& c : stat_columns()) csv.text(c.name);
    power_header(csv);
    csv.end_row();
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      if (sum.by_type[t].jobs == 0) continue;
      write_config_cells(csv, run);
      csv.text(kJobTypeNames[t]);
      for (const StatColumn& c : stat_columns()) csv.text(c.format(sum.by_type[t]));
      if (power_) {  // a type's jobs' energy; idle GPUs, nodes and the GPU power spread are the cluster's
        csv.real(job_kwh[t], 1).real(job_kwh[t], 1);
        for (int i = 0; i < 14; ++i) csv.blank();
      }
      csv.end_row();
    }
    csv.commit();
  }

 private:
  void power_header(CsvWriter& csv) const {
    if (!power_) return;
    for (std::string_view h : {"energy_kwh", "jobs_energy_kwh", "idle_energy_kwh", "nodes_energy_kwh",
                               "wasted_energy_kwh", "gpu_power_p25_w", "gpu_power_p50_w", "gpu_power_p75_w",
                               "gpu_power_p90_w", "job_gpu_power_p25_w", "job_gpu_power_p50_w",
                               "job_gpu_power_p75_w", "job_gpu_power_p90_w", "capped_hours", "clock_mean", "cap_saved_kwh"})
      csv.text(h);
  }

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

std::unique_ptr<Sink> make_summary_sink(const SinkSettings& settings) { return std::make_unique<SummarySink>(settings); }

}  // namespace acme
