#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <utility>
#include <map>
#include <vector>
#include <string>

#include "io/captured_table.h"
#include "io/csv.h"
#include "sim/error.h"
#include "io/fairness.h"
#include "io/ended_jobs_thread.h"
#include "io/metrics.h"
#include "io/timeseries_sink.h"
#include "sim/capacity.h"
#include "sim/link_sharing.h"
#include "sim/power.h"
#include "sim/sink.h"

namespace acme {
namespace {

// jobs.csv: one row per job, in workload order. With SinkSettings::threads above 1, a thread of
// its own writes (or captures) the rows of the ended jobs while the run goes on.
class JobsSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit JobsSink(const SinkSettings& s)
      : path_(s.out_dir / "jobs.csv"), capture_(s.capture), renames_(s.renames), power_(s.power),
        live_(s.threads > 1) {}

  bool wants_ended() const override { return live_; }
  void on_ended(const EndedJobs& ended) override { writer_.on_ended(ended); }

  void finish(const RunRecord& run) override {
    written_ = writer_.stop();
    if (!csv_) start(run.workload.size());
    for (; written_ < run.workload.size(); ++written_)
      row(run.workload, run.outcomes, run.replay, run.launches, written_);
    csv_->commit();
  }

 private:
  void start(std::size_t expected_rows) {
    csv_.emplace(path_, capture_, renames_);
    for (std::string_view h : {"job_id", "user", "type", "state", "gpu_num", "node_num", "cpu_num",
                               "submit_s", "start_s", "end_s", "queue_s", "wait_s", "launch_s", "run_s", "gpu_seconds",
                               "preemptions", "wasted_gpu_seconds", "leaves_spanned", "slowdown", "replay_delay_s",
                               "reject_reason", "failures"})
      csv_->text(h);
    if (power_) csv_->text("energy_kwh");
    csv_->end_row();
    csv_->expect_rows(expected_rows);
  }

  void row(const Workload& w, const std::vector<JobOutcome>& outcomes, ReplayMode replay,
           const FirstLaunches& launches, std::size_t i) {
    CsvWriter& csv = *csv_;
    const JobRequest& r = w.requests[i];
    const JobOutcome& o = outcomes[i];
    csv.text(w.names[static_cast<std::uint32_t>(i)]).text(r.user < w.users.size() ? w.users[r.user] : std::string_view{});
    csv.plain_text(name(r.type));
    csv.plain_text(name(o.state)).integer(r.gpu_num).integer(r.node_num).integer(r.cpu_num);
    const Time submit = submitted(w, outcomes, static_cast<JobId>(i));
    csv.integer(submit.sec());
    if (o.start) csv.integer(o.start->sec()); else csv.blank();
    if (o.end) csv.integer(o.end->sec()); else csv.blank();
    if (o.start) {
      const QueueParts q = queue_parts(launches, w, static_cast<JobId>(i), submit, *o.start);
      csv.integer((*o.start - submit).sec()).integer(q.wait.sec()).integer(q.launch.sec()).integer(o.run_s);
    } else {
      csv.blank().blank().blank().blank();
    }
    csv.integer(o.gpu_seconds).integer(o.preemptions).integer(o.wasted_gpu_seconds);
    if (o.start) csv.integer(o.leaves_spanned).real(o.slowdown, 3); else csv.blank().blank();
    if (replay == ReplayMode::Recorded && o.start)
      csv.integer((*o.start - *released(w, replay, outcomes, static_cast<JobId>(i))).sec());
    else csv.blank();
    csv.plain_text(describe(o.reject)).integer(o.failures);
    if (power_) csv.real(power_->job_kwh(static_cast<JobId>(i)), 3);
    csv.end_row();
  }

  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const PowerMeter* power_;
  bool live_;
  std::optional<CsvWriter> csv_;
  std::size_t written_ = 0;
  EndedJobsThread writer_{[this](const EndedJobs& e, std::size_t begin, std::size_t end) {
    if (!csv_) start(e.expected_jobs);
    for (std::size_t i = begin; i < end; ++i) row(e.workload, e.outcomes, e.replay, e.launches, i);
  }};
};

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

// users.csv: one row per user with at least one job, by name (io/fairness.h); blank cells
// where a user has nothing to average.
class UsersSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit UsersSink(const SinkSettings& s)
      : path_(s.out_dir / "users.csv"), capture_(s.capture), renames_(s.renames) {}
  void finish(const RunRecord& run) override {
    const std::vector<UserStats> users = user_stats(run);
    CsvWriter csv(path_, capture_, renames_);
    for (std::string_view h : {"user", "jobs", "gpu_jobs", "gpu_hours", "queue_mean_s", "queue_p95_s", "slowdown_mean",
                               "jobs_waiting_over_1h"})
      csv.text(h);
    csv.end_row();
    csv.expect_rows(users.size());
    for (const UserStats& u : users) {
      csv.text(u.user).integer(static_cast<std::int64_t>(u.jobs)).integer(static_cast<std::int64_t>(u.gpu_jobs));
      csv.real(static_cast<double>(u.gpu_seconds) / 3600.0, 3);
      if (u.queue_mean_s) csv.real(*u.queue_mean_s, 3).integer(*u.queue_p95_s); else csv.blank().blank();
      if (u.slowdown_mean) csv.real(*u.slowdown_mean, 3); else csv.blank();
      csv.integer(static_cast<std::int64_t>(u.jobs_waiting_over_1h));
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

// wasted_by_cause.csv: wasted GPU-hours by cause, one row per cause, every cause listed.
class WasteSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit WasteSink(const SinkSettings& s)
      : path_(s.out_dir / "wasted_by_cause.csv"), capture_(s.capture), renames_(s.renames), power_(s.power) {}
  void finish(const RunRecord& run) override {
    CsvWriter csv(path_, capture_, renames_);
    csv.text("cause").text("gpu_hours");
    if (power_) csv.text("energy_kwh");
    csv.end_row();
    for (std::size_t c = 0; c < kWasteCauseCount; ++c) {
      csv.text(kWasteCauseNames[c]).real(static_cast<double>(run.conservation.wasted_by_cause[c]) / 3600.0);
      if (power_) csv.real(power_->wasted_kwh(static_cast<WasteCause>(c)), 1);
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const PowerMeter* power_;
};

// run.json: the resolved configuration, version, workload provenance and conservation figures.
class RunJsonSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit RunJsonSink(const SinkSettings& s)
      : path_(s.out_dir / "run.json"), capture_(s.capture), renames_(s.renames) {}
  void finish(const RunRecord& run) override {
    nlohmann::ordered_json j;
    j["acmesim_version"] = ACMESIM_VERSION;
    auto& config = j["config"];
    for (const auto& [key, value] : run.config) config[key] = value;
    j["workload"] = {{"source", run.workload.source},
                     {"schema", run.workload.schema.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(run.workload.schema)},
                     {"jobs", run.workload.size()},
                     {"rows_skipped", run.workload.rows_skipped}};
    j["cluster"] = {{"name", run.cluster.name}, {"nodes", run.cluster.nodes}, {"gpus", run.cluster.total_gpus()}};
    j["conservation"] = {{"jobs", run.conservation.jobs},
                         {"jobs_ended", run.conservation.ended},
                         {"job_gpu_seconds", run.conservation.job_gpu_seconds},
                         {"integral_gpu_seconds", run.conservation.integral_gpu_seconds},
                         {"wasted_gpu_seconds_by_cause", [&] {
                            nlohmann::ordered_json w;
                            for (std::size_t c = 0; c < kWasteCauseCount; ++c)
                              w[std::string(kWasteCauseNames[c])] = run.conservation.wasted_by_cause[c];
                            return w;
                          }()},
                         {"ok", true}};
    if (capture_) {
      capture_->texts["run.json"] = j.dump(2) + "\n";
      return;
    }
    OutputFile out(path_, renames_);
    out.write(j.dump(2));
    out.write("\n");
    out.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

// A table for people on stdout.
class ConsoleSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit ConsoleSink(const SinkSettings&) {}
  void finish(const RunRecord& run) override {
    const RunSummary sum = summarize(run);
    std::printf("\n%-9s %9s %9s %10s %9s %9s %10s %12s %7s %12s %9s %9s %9s\n", "type", "jobs", "gpu_jobs",
                "queue_mean", "queue_p50", "queue_p90", "queue_p99", "gpu_hours", "util%", "wasted_gpu_h",
                "completed", "failed", "cancelled");
    auto row = [](std::string_view label, const Stats& s) {
      std::printf("%-9.*s %9llu %9llu %9.0fs %8llds %8llds %9llds %12.0f %7.2f %12.0f %9llu %9llu %9llu\n",
                  static_cast<int>(label.size()), label.data(), static_cast<unsigned long long>(s.jobs),
                  static_cast<unsigned long long>(s.gpu_jobs), s.queue_mean_s,
                  static_cast<long long>(s.queue_p50_s), static_cast<long long>(s.queue_p90_s),
                  static_cast<long long>(s.queue_p99_s), s.gpu_hours, s.gpu_util_pct, s.wasted_gpu_hours,
                  static_cast<unsigned long long>(s.by_state[0]), static_cast<unsigned long long>(s.by_state[1]),
                  static_cast<unsigned long long>(s.by_state[2]));
    };
    for (std::size_t t = 0; t < kJobTypeCount; ++t)
      if (sum.by_type[t].jobs > 0) row(kJobTypeNames[t], sum.by_type[t]);
    row("all", sum.all);
    // A configured bound as the configuration wrote it (its offset kept); else the first submission
    // or the last end, in UTC.
    auto bound = [&](std::string_view key, Time t) {
      for (const auto& [k, v] : run.config)
        if (k == key && !v.empty()) return v;
      return format_timestamp(t);
    };
    std::printf("\n%s on %s (%d GPUs), window %s .. %s, makespan %.1f days, %llu rejected, %llu rows skipped\n",
                run.workload.source.c_str(), run.cluster.name.c_str(), run.cluster.total_gpus(),
                bound("workload.from", sum.window_start).c_str(), bound("workload.to", sum.window_end).c_str(),
                static_cast<double>(sum.all.makespan_s) / 86400.0,
                static_cast<unsigned long long>(sum.all.by_state[static_cast<std::size_t>(JobState::Rejected)]),
                static_cast<unsigned long long>(run.workload.rows_skipped));
    std::fflush(stdout);
  }
};

// evaluations.csv: one row per evaluation (a checkpoint's batch of Eval jobs, the run's
// EvaluationIndex), in order of first submission. Written only when the run grouped them.
class EvaluationsSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit EvaluationsSink(const SinkSettings& s)
      : path_(s.out_dir / "evaluations.csv"), capture_(s.capture), renames_(s.renames) {}
  void finish(const RunRecord& run) override {
    if (!run.evaluations) return;
    const EvaluationIndex& index = *run.evaluations;
    struct Row {
      JobId first = kNoJob;
      std::int64_t jobs = 0, gpu_seconds = 0, wasted = 0, completed = 0;
      OptionalTime submit, end;
    };
    std::vector<Row> rows(index.trials.size());
    for (std::size_t i = 0; i < index.of_job.size(); ++i) {
      if (index.of_job[i] == EvaluationIndex::kNone) continue;
      const auto job = static_cast<JobId>(i);
      const JobOutcome& o = run.outcomes[i];
      Row& row = rows[index.of_job[i]];
      const Time submit = submitted(run.workload, run.outcomes, job);
      if (row.first == kNoJob) row.first = job;
      if (!row.submit || submit < *row.submit) row.submit = submit;
      if (o.end && (!row.end || *o.end > *row.end)) row.end = o.end;
      ++row.jobs;
      row.gpu_seconds += o.gpu_seconds;
      row.wasted += o.wasted_gpu_seconds;
      row.completed += o.state == JobState::Completed;
    }
    CsvWriter csv(path_, capture_, renames_);
    for (std::string_view h : {"evaluation", "first_job", "trials", "jobs", "jobs_completed", "submit_s", "end_s",
                               "makespan_s", "gpu_seconds", "wasted_gpu_seconds"})
      csv.text(h);
    csv.end_row();
    for (std::size_t e = 0; e < rows.size(); ++e) {
      const Row& row = rows[e];
      if (row.first == kNoJob) continue;
      csv.integer(static_cast<std::int64_t>(e)).text(run.workload.names[row.first]);
      csv.integer(index.trials[e]).integer(row.jobs).integer(row.completed).integer(row.submit->sec());
      if (row.end) csv.integer(row.end->sec()).integer((*row.end - *row.submit).sec()); else csv.blank().blank();
      csv.integer(row.gpu_seconds).integer(row.wasted);
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

template <class S>
std::unique_ptr<Sink> make(const SinkSettings& s) { return std::make_unique<S>(s); }

constexpr SinkEntry kSinks[] = {
    {"jobs", "jobs.csv: one row per job (request, state, times, queuing delay, GPU-seconds)", {"jobs.csv"},
     make<JobsSink>},
    {"timeseries",
     "timeseries.csv: cluster state per interval (allocated GPUs, running and pending jobs); with network "
     "contention also links.csv, the load of each link tier per interval",
     {"timeseries.csv", "links.csv"}, make_timeseries_sink},
    {"summary", "summary.csv and summary_by_type.csv: run statistics with every configuration key",
     {"summary.csv", "summary_by_type.csv"}, make<SummarySink>},
    {"waste", "wasted_by_cause.csv: wasted GPU-hours by cause (failed jobs, preemption, idle evaluation GPUs)",
     {"wasted_by_cause.csv"}, make<WasteSink>},
    {"run_json", "run.json: resolved configuration, version, workload provenance, conservation figures", {"run.json"},
     make<RunJsonSink>},
    {"evaluations", "evaluations.csv: one row per evaluation (a checkpoint's batch of Eval jobs): makespan, GPU-seconds",
     {"evaluations.csv"}, make<EvaluationsSink>},
    {"users", "users.csv: one row per user: jobs, GPU-hours, queuing delay, slowdown, waits over an hour",
     {"users.csv"}, make<UsersSink>},
    {"console", "a summary table per job type on standard output", {}, make<ConsoleSink>},
};

}  // namespace

std::span<const SinkEntry> sink_table() { return kSinks; }

std::unique_ptr<Sink> make_sink(std::string_view name, const SinkSettings& settings) {
  std::string valid;
  for (const SinkEntry& e : kSinks) {
    if (e.name == name) return e.make(settings);
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError("unknown output '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace acme
