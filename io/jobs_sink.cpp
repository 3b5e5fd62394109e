// jobs.csv (io/sinks.h): its columns, and the sink that writes them.
#include "io/sinks.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "io/columns.h"
#include "io/csv.h"
#include "io/ended_jobs_thread.h"
#include "io/feature_columns.h"

namespace acme {
namespace {

// What a job's row is written from, made once a row.
struct JobRow {
  const Workload& w;
  const std::vector<JobOutcome>& outcomes;
  ReplayMode replay;
  JobId id;
  const JobRequest& r;
  const JobOutcome& o;
  Time submit;
  QueueParts queue;  // when it started
};

constexpr std::string_view kAsInTrace = "as in the trace (synthetic jobs: numbered)";
constexpr std::string_view kRequest = "the request";
constexpr std::string_view kTimes =
    "submit, start (after its launch latency, `launch.*`; empty if it never started), and the time it left the "
    "system; a job that waits for another (a decoupled evaluation's metric job) is submitted when that one ends";
constexpr std::string_view kPlacement =
    "leaf switches under its (last) placement, and the run-time factor the network model gave it";

Cell started_or_blank(const JobRow& j, std::int64_t v) { return j.o.start ? Cell::integer(v) : Cell::blank(); }

constexpr Column<JobRow> kJobColumns[] = {
    {"job_id", kAsInTrace, [](const JobRow& j) { return Cell::text(j.w.names[j.id]); }},
    {"user", kAsInTrace,
     [](const JobRow& j) {
       return Cell::text(j.r.user < j.w.users.size() ? j.w.users[j.r.user] : std::string_view{});
     }},
    {"type", kAsInTrace, [](const JobRow& j) { return Cell::name(name(j.r.type)); }},
    {"state",
     "how the job ended: COMPLETED, FAILED, CANCELLED, PREEMPTED, TIMEOUT, NODE_FAIL, RUNNING (cut off at the trace "
     "horizon) or REJECTED (can never fit)",
     [](const JobRow& j) { return Cell::name(name(j.o.state)); }},
    {"gpu_num", kRequest, [](const JobRow& j) { return Cell::integer(j.r.gpu_num); }},
    {"node_num", kRequest, [](const JobRow& j) { return Cell::integer(j.r.node_num); }},
    {"cpu_num", kRequest, [](const JobRow& j) { return Cell::integer(j.r.cpu_num); }},
    {"submit_s", kTimes, [](const JobRow& j) { return Cell::integer(j.submit.sec()); }},
    {"start_s", kTimes, [](const JobRow& j) { return j.o.start ? Cell::integer(j.o.start->sec()) : Cell::blank(); }},
    {"end_s", kTimes, [](const JobRow& j) { return j.o.end ? Cell::integer(j.o.end->sec()) : Cell::blank(); }},
    {"queue_s", "`start_s - submit_s`: its launch included, as the traces record it; `wait_s + launch_s`",
     [](const JobRow& j) { return j.o.start ? Cell::integer((*j.o.start - j.submit).sec()) : Cell::blank(); }},
    {"wait_s", "the part of `queue_s` spent waiting to be placed",
     [](const JobRow& j) { return started_or_blank(j, j.queue.wait.sec()); }},
    {"launch_s",
     "the part of `queue_s` spent launching: the latency of its first start (`launch.*`), or less if it was stopped "
     "while it launched",
     [](const JobRow& j) { return started_or_blank(j, j.queue.launch.sec()); }},
    {"run_s", "time it ran, summed over its runs, launches excluded (`end_s - start_s` unless preempted)",
     [](const JobRow& j) { return started_or_blank(j, j.o.run_s); }},
    {"gpu_seconds", "GPUs held x time held (launches included), summed over its runs",
     [](const JobRow& j) { return Cell::integer(j.o.gpu_seconds); }},
    {"preemptions", "times it was stopped and requeued",
     [](const JobRow& j) { return Cell::integer(j.o.preemptions); }},
    {"wasted_gpu_seconds",
     "the part of `gpu_seconds` that was wasted (failed, lost to preemption, idle evaluation GPUs)",
     [](const JobRow& j) { return Cell::integer(j.o.wasted_gpu_seconds); }},
    {"leaves_spanned", kPlacement, [](const JobRow& j) { return started_or_blank(j, j.o.leaves_spanned); }},
    {"slowdown", kPlacement, [](const JobRow& j) { return j.o.start ? Cell::real(j.o.slowdown, 3) : Cell::blank(); }},
    {"replay_delay_s", "recorded replay only: start minus recorded start",
     [](const JobRow& j) {
       if (j.replay != ReplayMode::Recorded || !j.o.start) return Cell::blank();
       return Cell::integer((*j.o.start - *released(j.w, j.replay, j.outcomes, j.id)).sec());
     }},
    {"reject_reason", "why a job was REJECTED: it can never fit the cluster, or the policy can never start it",
     [](const JobRow& j) { return Cell::name(describe(j.o.reject)); }},
    {"failures", "injected failures that stopped one of its runs (0 unless failures are on)",
     [](const JobRow& j) { return Cell::integer(j.o.failures); }},
};

// jobs.csv: one row per job, in workload order. With SinkSettings::threads above 1, a thread of
// its own writes (or captures) the rows of the ended jobs while the run goes on.
class JobsSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit JobsSink(const SinkSettings& s)
      : path_(s.out_dir / "jobs.csv"),
        capture_(s.capture),
        renames_(s.renames),
        feature_columns_(s.features, FeatureOutput::Job),
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
    write_names<JobRow>(*csv_, kJobColumns);
    feature_columns_.write_names(*csv_);
    csv_->end_row();
    csv_->expect_rows(expected_rows);
  }

  void row(const Workload& w, const std::vector<JobOutcome>& outcomes, ReplayMode replay,
           const FirstLaunches& launches, std::size_t i) {
    const auto id = static_cast<JobId>(i);
    const JobOutcome& o = outcomes[i];
    const Time submit = submitted(w, outcomes, id);
    const JobRow j{w, outcomes, replay, id, w.requests[i], o, submit,
                   o.start ? queue_parts(launches, w, id, submit, *o.start) : QueueParts{}};
    write_cells<kJobColumns>(*csv_, j);
    feature_columns_.write_cells(*csv_, id);
    csv_->end_row();
  }

  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  FeatureColumnsOf feature_columns_;  // the run's features' columns of the file
  bool live_;
  std::optional<CsvWriter> csv_;
  std::size_t written_ = 0;
  EndedJobsThread writer_{[this](const EndedJobs& e, std::size_t begin, std::size_t end) {
    if (!csv_) start(e.expected_jobs);
    for (std::size_t i = begin; i < end; ++i) row(e.workload, e.outcomes, e.replay, e.launches, i);
  }};
};

}  // namespace

std::unique_ptr<Sink> make_jobs_sink(const SinkSettings& settings) { return std::make_unique<JobsSink>(settings); }

std::vector<FileColumns> jobs_columns() {
  return {{"jobs.csv", with_feature_columns({group_doc<JobRow>(kJobColumns)}, FeatureOutput::Job)}};
}

}  // namespace acme
