// training.csv and training_summary.csv: where the time of each training job went (the failures
// feature's ledger, features/training_ledger.h) and the run's effective training time; the
// failures feature's output (written only with failures on), registered here like every sink
// (io/sinks.h).
#include <algorithm>
#include <filesystem>
#include <vector>

#include "io/columns.h"
#include "io/csv.h"
#include "io/registry.h"
#include "io/sinks.h"
#include "features/failures.h"
#include "sim/feature.h"

namespace acme {
namespace {

// One training job's row: its ledger and its outcome. Seconds from its first start to its end.
struct TrainingRow {
  JobId id;
  const RunRecord& run;
  const TrainingTimes& t;
  const JobOutcome& o() const { return run.outcomes[id]; }
  std::int64_t span() const { return o().start && o().end ? (*o().end - *o().start).sec() : 0; }
  // The work kept: all of it for a job that completed, else what it had done when it ended.
  std::int64_t trained() const {
    const std::int64_t work = run.workload.profiles[id].run.sec();
    return o().state == JobState::Completed ? work : std::min(work, span());
  }
  std::int64_t other() const {
    return span() - trained() - t.launch - t.stall - t.lost - t.evicted - t.detect - t.diagnose - t.wait - t.comm_init -
           t.load - t.warmup;
  }
};

template <std::int64_t TrainingTimes::*part>
constexpr Cell seconds(const TrainingRow& r) { return Cell::integer(r.t.*part); }

constexpr Column<TrainingRow> kTrainingColumns[] = {
    {"job_id", "the job, as in `jobs.csv`", [](const TrainingRow& r) { return Cell::text(r.run.workload.names[r.id]); }},
    {"type", "its type", [](const TrainingRow& r) { return Cell::name(name(r.run.workload.requests[r.id].type)); }},
    {"gpu_num", "its GPUs", [](const TrainingRow& r) { return Cell::integer(r.run.workload.requests[r.id].gpu_num); }},
    {"failures", "injected failures that stopped it", [](const TrainingRow& r) { return Cell::integer(r.o().failures); }},
    {"span_s", "seconds from its first start (after its first launch) to its end; the columns to `other_s` split them",
     [](const TrainingRow& r) { return Cell::integer(r.span()); }},
    {"trained_s", "training kept: its work at full speed (what it had done, for a job that did not complete)",
     [](const TrainingRow& r) { return Cell::integer(r.trained()); }},
    {"stall_s", "checkpoint saves stalling it", seconds<&TrainingTimes::stall>},
    {"lost_s", "compute since its last safe save, lost to failures", seconds<&TrainingTimes::lost>},
    {"detect_s", "failures being detected (`failures.detect_s` each, less when a node failure ends its hold)",
     seconds<&TrainingTimes::detect>},
    {"diagnose_s", "failures being diagnosed (`failures.diagnose_s` each)", seconds<&TrainingTimes::diagnose>},
    {"wait_s", "queued again after failures and preemptions, until placed", seconds<&TrainingTimes::wait>},
    {"launch_s", "launching again after them (`launch.*`)", seconds<&TrainingTimes::launch>},
    {"comm_init_s", "restart phase: setting up communicators (`failures.comm_init_s`)", seconds<&TrainingTimes::comm_init>},
    {"load_s", "restart phase: loading the checkpoint (`failures.load_s`)", seconds<&TrainingTimes::load>},
    {"warmup_s", "restart phase: warming up (`failures.warmup_s`)", seconds<&TrainingTimes::warmup>},
    {"other_s", "the rest: running below full speed (network slowdown, power cap, slow components) and work lost to preemption",
     [](const TrainingRow& r) { return Cell::integer(r.other()); }},
    {"effective", "effective training time: `trained_s` / `span_s` (MegaScale's and Llama 3's ratio)",
     [](const TrainingRow& r) {
       return r.span() > 0 ? Cell::real(static_cast<double>(r.trained()) / static_cast<double>(r.span()), 4) : Cell::blank();
     }},
};

// Written after `lost_s` with eviction on only (without it, 0).
constexpr Column<TrainingRow> kEvictedColumns[] = {
    {"evicted_s", "written after `lost_s`: compute since its last safe save, lost to evictions of its slow nodes",
     seconds<&TrainingTimes::evicted>},
};

// The run's training jobs together: GPU-hours of each part, summed over them.
struct TrainingTotals {
  std::size_t jobs = 0;
  std::uint64_t failures = 0;
  // GPU-seconds: span, trained, then the parts in the order of kTrainingColumns.
  std::int64_t span = 0, trained = 0, stall = 0, lost = 0, evicted = 0, detect = 0, diagnose = 0, wait = 0, launch = 0,
               comm_init = 0, load = 0, warmup = 0, other = 0;
  void add(const TrainingRow& r) {
    const std::int64_t g = r.run.workload.requests[r.id].gpu_num;
    ++jobs;
    failures += r.o().failures;
    span += g * r.span(), trained += g * r.trained(), stall += g * r.t.stall;
    lost += g * r.t.lost, evicted += g * r.t.evicted;
    detect += g * r.t.detect, diagnose += g * r.t.diagnose, wait += g * r.t.wait, launch += g * r.t.launch;
    comm_init += g * r.t.comm_init, load += g * r.t.load, warmup += g * r.t.warmup, other += g * r.other();
  }
};

constexpr std::string_view kPartDoc = "GPU-hours, summed over the jobs: of their spans, then of each part, as the columns of `training.csv`";

template <std::int64_t TrainingTotals::*part>
constexpr Cell gpu_hours(const TrainingTotals& t) { return Cell::real(static_cast<double>(t.*part) / 3600.0, 1); }

constexpr Column<TrainingTotals> kTotalColumns[] = {
    {"jobs", "training jobs (of the types in `failures.checkpoint.<Type>`) that started",
     [](const TrainingTotals& t) { return Cell::integer(static_cast<std::int64_t>(t.jobs)); }},
    {"failures", "injected failures that stopped them", [](const TrainingTotals& t) { return Cell::integer(static_cast<std::int64_t>(t.failures)); }},
    {"effective", "effective training time of the run: trained GPU-hours over span GPU-hours",
     [](const TrainingTotals& t) {
       return t.span > 0 ? Cell::real(static_cast<double>(t.trained) / static_cast<double>(t.span), 4) : Cell::blank();
     }},
    {"span_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::span>},
    {"trained_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::trained>},
    {"stall_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::stall>},
    {"lost_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::lost>},
    {"detect_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::detect>},
    {"diagnose_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::diagnose>},
    {"wait_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::wait>},
    {"launch_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::launch>},
    {"comm_init_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::comm_init>},
    {"load_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::load>},
    {"warmup_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::warmup>},
    {"other_gpu_h", kPartDoc, gpu_hours<&TrainingTotals::other>},
};

constexpr Column<TrainingTotals> kEvictedTotalColumns[] = {
    {"evicted_gpu_h", "written after `lost_gpu_h`: GPU-hours of `evicted_s`, summed over the jobs",
     gpu_hours<&TrainingTotals::evicted>},
};

// `columns` with `extra` after the one named `after`, when `on`.
template <class Row>
std::vector<Column<Row>> inserted(std::span<const Column<Row>> columns, std::string_view after,
                                  std::span<const Column<Row>> extra, bool on) {
  std::vector<Column<Row>> out;
  for (const Column<Row>& c : columns) {
    out.push_back(c);
    if (on && c.name == after) out.insert(out.end(), extra.begin(), extra.end());
  }
  return out;
}

// training.csv, one row per training job that started, and training_summary.csv, one row.
class TrainingSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit TrainingSink(const SinkSettings& s)
      : dir_(s.out_dir), capture_(s.capture), renames_(s.renames), ledger_(training_ledger(s.features)),
        evicts_(std::any_of(s.features.begin(), s.features.end(), [](const Feature* f) { return f->evicts(); })) {}
  void finish(const RunRecord& run) override {
    if (!ledger_) return;  // failures off: no file
    std::vector<TrainingRow> rows;
    TrainingTotals totals;
    for (const JobId job : ledger_->jobs())
      if (run.outcomes[job].start) {
        rows.push_back({job, run, *ledger_->find(job)});
        totals.add(rows.back());
      }
    CsvWriter jobs(dir_ / "training.csv", capture_, renames_);
    write_table<TrainingRow>(jobs, inserted<TrainingRow>(kTrainingColumns, "lost_s", kEvictedColumns, evicts_), rows);
    jobs.commit();
    CsvWriter summary(dir_ / "training_summary.csv", capture_, renames_);
    write_table<TrainingTotals>(summary, inserted<TrainingTotals>(kTotalColumns, "lost_gpu_h", kEvictedTotalColumns, evicts_),
                                std::span(&totals, 1));
    summary.commit();
  }

 private:
  std::filesystem::path dir_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const TrainingLedger* ledger_;  // the failures feature's; null without failures
  bool evicts_;  // a feature evicts slow nodes: the evicted columns are written
};

std::unique_ptr<Sink> make_training_sink(const SinkSettings& settings) { return std::make_unique<TrainingSink>(settings); }

std::vector<FileColumns> training_columns() {
  return {{"training.csv",
           {group_doc<TrainingRow>(kTrainingColumns, kWithFailures), group_doc<TrainingRow>(kEvictedColumns, kWithEviction)}},
          {"training_summary.csv",
           {group_doc<TrainingTotals>(kTotalColumns, kWithFailures),
            group_doc<TrainingTotals>(kEvictedTotalColumns, kWithEviction)}}};
}

const Registrar<SinkEntry> kTrainingSink(
    {"training",
     "training.csv and training_summary.csv, with failures on: where each training job's time went (training, "
     "checkpoints, lost work, recovery and restart phases) and the effective training time",
     {"training.csv", "training_summary.csv"},
     make_training_sink,
     75,
     training_columns});

}  // namespace

}  // namespace acme
