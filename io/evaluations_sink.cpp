// evaluations.csv (io/sinks.h): its columns, and the sink that writes them.
#include "io/sinks.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/columns.h"
#include "io/csv.h"

namespace acme {
namespace {

// An evaluation's row: its jobs' sums (EvaluationSums), its number, trials and first job's name.
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

// An evaluation's sums over its jobs, kept for every evaluation of a run while its jobs are
// gone through (48 bytes each; its row is made from them as it is written).
struct EvaluationSums {
  std::int64_t gpu_seconds = 0, wasted = 0;
  OptionalTime submit, end;
  JobId first = kNoJob;
  std::int32_t jobs = 0, completed = 0;
};

// The sums of the run's evaluations, in their order.
std::vector<EvaluationSums> evaluation_sums(const RunRecord& run) {
  const EvaluationIndex& index = *run.evaluations;
  std::vector<EvaluationSums> sums(index.trials.size());
  for (std::size_t i = 0; i < index.of_job.size(); ++i) {
    if (index.of_job[i] == EvaluationIndex::kNone) continue;
    const auto job = static_cast<JobId>(i);
    const JobOutcome& o = run.outcomes[i];
    EvaluationSums& e = sums[index.of_job[i]];
    const Time submit = submitted(run.workload, run.outcomes, job);
    if (e.first == kNoJob) e.first = job;
    if (!e.submit || submit < *e.submit) e.submit = submit;
    if (o.end && (!e.end || *o.end > *e.end)) e.end = o.end;
    ++e.jobs;
    e.gpu_seconds += o.gpu_seconds;
    e.wasted += o.wasted_gpu_seconds;
    e.completed += o.state == JobState::Completed;
  }
  return sums;
}

// The table: a row per evaluation that has a job in the run, in order.
void write_evaluations(CsvWriter& csv, const RunRecord& run) {
  const std::vector<EvaluationSums> sums = evaluation_sums(run);
  write_names<EvaluationRow>(csv, kEvaluationColumns);
  csv.end_row();
  csv.expect_rows(static_cast<std::size_t>(
      std::count_if(sums.begin(), sums.end(), [](const EvaluationSums& s) { return s.first != kNoJob; })));
  for (std::size_t e = 0; e < sums.size(); ++e) {
    const EvaluationSums& s = sums[e];
    if (s.first == kNoJob) continue;
    const EvaluationRow row{static_cast<std::int64_t>(e), run.evaluations->trials[e], s.first,
                            run.workload.names[s.first], s.jobs, s.gpu_seconds, s.wasted, s.completed, s.submit, s.end};
    write_cells<EvaluationRow>(csv, kEvaluationColumns, row);
    csv.end_row();
  }
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
    CsvWriter csv(path_, capture_, renames_);
    write_evaluations(csv, run);
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
