// jobs.csv (io/sinks.h).
#include "io/sinks.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "io/csv.h"
#include "io/ended_jobs_thread.h"
#include "sim/power.h"

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

}  // namespace

std::unique_ptr<Sink> make_jobs_sink(const SinkSettings& settings) { return std::make_unique<JobsSink>(settings); }

}  // namespace acme
