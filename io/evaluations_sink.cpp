// evaluations.csv (io/sinks.h).
#include "io/sinks.h"

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/csv.h"

namespace acme {
namespace {

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

}  // namespace

std::unique_ptr<Sink> make_evaluations_sink(const SinkSettings& settings) { return std::make_unique<EvaluationsSink>(settings); }

}  // namespace acme
