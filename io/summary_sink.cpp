// summary.csv and summary_by_type.csv (io/sinks.h): their columns, and the sink that writes them.
#include "io/sinks.h"

#include <array>
#include <filesystem>
#include <optional>
#include <string_view>

#include "io/columns.h"
#include "io/csv.h"
#include "io/feature_columns.h"
#include "io/metrics.h"
#include "io/shared_summary.h"

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

void write_config_cells(CsvWriter& csv, const RunRecord& run) {
  for (const auto& [key, value] : run.config) csv.text(value);
}
void write_config_names(CsvWriter& csv, const RunRecord& run) {
  for (const auto& [key, value] : run.config) csv.text(key);
}

// summary.csv (one row) and summary_by_type.csv (one row per job type present).
// With SinkSettings::threads above 1, a thread of its own adds the ended jobs to the summary
// while the run goes on (SharedSummary, which the console table reads too).
class SummarySink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit SummarySink(const SinkSettings& s)
      : dir_(s.out_dir),
        capture_(s.capture),
        renames_(s.renames),
        feature_columns_(s.features, FeatureOutput::Summary),
        live_(s.threads > 1),
        summary_(s.summary ? s.summary : std::make_shared<SharedSummary>()) {}
  bool wants_ended() const override { return live_; }
  void on_ended(const EndedJobs& ended) override { summary_->on_ended(ended); }
  void finish(const RunRecord& run) override {
    const RunSummary& sum = summary_->of(run);
    {
      CsvWriter csv(dir_ / "summary.csv", capture_, renames_);
      write_config_names(csv, run);
      write_names<RunRow>(csv, kRunColumns);
      write_names<Stats>(csv, kStatColumns);
      feature_columns_.write_names(csv);
      csv.end_row();
      write_config_cells(csv, run);
      write_cells<RunRow>(csv, kRunColumns, {run, sum});
      write_cells<Stats>(csv, kStatColumns, sum.all);
      feature_columns_.write_cells(csv, kJobTypeCount);
      csv.end_row();
      csv.commit();
    }
    CsvWriter csv(dir_ / "summary_by_type.csv", capture_, renames_);
    write_config_names(csv, run);
    write_names<std::size_t>(csv, kTypeColumns);
    write_names<Stats>(csv, kStatColumns);
    feature_columns_.write_names(csv);
    csv.end_row();
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      if (sum.by_type[t].jobs == 0) continue;
      write_config_cells(csv, run);
      write_cells<std::size_t>(csv, kTypeColumns, t);
      write_cells<Stats>(csv, kStatColumns, sum.by_type[t]);
      feature_columns_.write_cells(csv, static_cast<std::int64_t>(t));
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path dir_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  FeatureColumnsOf feature_columns_;  // the run's features' columns of the file
  bool live_;
  std::shared_ptr<SharedSummary> summary_;
};

}  // namespace

std::unique_ptr<Sink> make_summary_sink(const SinkSettings& settings) {
  return std::make_unique<SummarySink>(settings);
}

std::vector<FileColumns> summary_columns() {
  const ColumnGroupDoc stats = group_doc<Stats>(kStatColumns);
  return {{"summary.csv", with_feature_columns({group_doc<RunRow>(kRunColumns), stats}, FeatureOutput::Summary)},
          {"summary_by_type.csv",
           with_feature_columns({group_doc<std::size_t>(kTypeColumns), stats}, FeatureOutput::Summary)}};
}

}  // namespace acme
