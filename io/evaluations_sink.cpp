// evaluations.csv (io/sinks.h): its columns, and the sink that writes them.
#include "io/sinks.h"

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/columns.h"
#include "io/csv.h"

namespace acme {
namespace {

// An evaluation's row: its jobs' sums.
struct EvaluationRow {
  std::int64_t number = 0, trials = 0;
  JobId first = kNoJob;
  std::string_view first_name;
  std::int64_t jobs = 0, gpu_seconds = 0, wasted = 0, completed = 0;
  OptionalTime submit, end;
};

constexpr std::string_view kJobCounts =
    "its jobs in this run (decoupled: the packed job, its metric job, the trials not packed), and how many ended "
    "COMPLETED";
constexpr std::string_view kSpan = "first submission, last end, and `end_s - submit_s`";
constexpr std::string_view kSums = "summed over its jobs";

constexpr Column<EvaluationRow> kEvaluationColumns[] = {
    {"evaluation", "its number, from 0", [](const EvaluationRow& r) { return Cell::integer(r.number); }},
    {"first_job",
     "`job_id` of its first job in `jobs.csv` (decoupled: its packed job, `<first trial>#eval<trials>`)",
     [](const EvaluationRow& r) { return Cell::text(r.first_name); }},
    {"trials", "Eval jobs of the workload it groups (one per dataset)",
     [](const EvaluationRow& r) { return Cell::integer(r.trials); }},
    {"jobs", kJobCounts, [](const EvaluationRow& r) { return Cell::integer(r.jobs); }},
    {"jobs_completed", kJobCounts, [](const EvaluationRow& r) { return Cell::integer(r.completed); }},
    {"submit_s", kSpan, [](const EvaluationRow& r) { return Cell::integer(r.submit->sec()); }},
    {"end_s", kSpan, [](const EvaluationRow& r) { return r.end ? Cell::integer(r.end->sec()) : Cell::blank(); }},
    {"makespan_s", kSpan,
     [](const EvaluationRow& r) { return r.end ? Cell::integer((*r.end - *r.submit).sec()) : Cell::blank(); }},
    {"gpu_seconds", kSums, [](const EvaluationRow& r) { return Cell::integer(r.gpu_seconds); }},
    {"wasted_gpu_seconds", kSums, [](const EvaluationRow& r) { return Cell::integer(r.wasted); }},
};

// The rows of the run's evaluations, in their order (those with no job left out).
std::vector<EvaluationRow> evaluation_rows(const RunRecord& run) {
  const EvaluationIndex& index = *run.evaluations;
  std::vector<EvaluationRow> rows(index.trials.size());
  for (std::size_t i = 0; i < index.of_job.size(); ++i) {
    if (index.of_job[i] == EvaluationIndex::kNone) continue;
    const auto job = static_cast<JobId>(i);
    const JobOutcome& o = run.outcomes[i];
    EvaluationRow& row = rows[index.of_job[i]];
    const Time submit = submitted(run.workload, run.outcomes, job);
    if (row.first == kNoJob) row.first = job;
    if (!row.submit || submit < *row.submit) row.submit = submit;
    if (o.end && (!row.end || *o.end > *row.end)) row.end = o.end;
    ++row.jobs;
    row.gpu_seconds += o.gpu_seconds;
    row.wasted += o.wasted_gpu_seconds;
    row.completed += o.state == JobState::Completed;
  }
  for (std::size_t e = 0; e < rows.size(); ++e) {
    rows[e].number = static_cast<std::int64_t>(e);
    rows[e].trials = index.trials[e];
    if (rows[e].first != kNoJob) rows[e].first_name = run.workload.names[rows[e].first];
  }
  std::erase_if(rows, [](const EvaluationRow& r) { return r.first == kNoJob; });
  return rows;
}

// evaluations.csv: one row per evaluation (a checkpoint's batch of Eval jobs, the run's
// EvaluationIndex), in order of first submission. Written only when the run grouped them.
class EvaluationsSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit EvaluationsSink(const SinkSettings& s)
      : path_(s.out_dir / "evaluations.csv"), capture_(s.capture), renames_(s.renames) {}
  void finish(const RunRecord& run) override {
    if (!run.evaluations) return;
    const std::vector<EvaluationRow> rows = evaluation_rows(run);
    CsvWriter csv(path_, capture_, renames_);
    write_table<EvaluationRow>(csv, kEvaluationColumns, rows);
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

}  // namespace

std::unique_ptr<Sink> make_evaluations_sink(const SinkSettings& settings) {
  return std::make_unique<EvaluationsSink>(settings);
}

std::vector<FileColumns> evaluations_columns() {
  return {{"evaluations.csv", {group_doc<EvaluationRow>(kEvaluationColumns)}}};
}

}  // namespace acme
