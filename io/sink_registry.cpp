// The registry of sinks (io/sinks.h): every output's name, description, files and factory; and
// the columns of every CSV file they write.
#include <string>
#include <utility>

#include "io/registry.h"
#include "io/sinks.h"
#include "sim/error.h"

namespace acme {
namespace {

// Each output registers as every plugin does (io/registry.h); the I/O layer's here rather than in
// its sink's own file, so that acmesim_io needs no whole-archive link (a model feature's output
// registers in its own file under features/, a library linked whole).
const Registrar<SinkEntry> kJobsSink({"jobs",
                                  "jobs.csv: one row per job (request, state, times, queuing delay, GPU-seconds)",
                                  {"jobs.csv"},
                                  make_jobs_sink,
                                  10, jobs_columns});
const Registrar<SinkEntry> kTimeseriesSink(
    {"timeseries",
     "timeseries.csv: cluster state per interval (allocated GPUs, running and pending jobs); with network "
     "contention also links.csv, the load of each link tier per interval",
     {"timeseries.csv", "links.csv"},
     make_timeseries_sink,
     20, timeseries_columns});
const Registrar<SinkEntry> kSummarySink({"summary",
                                     "summary.csv and summary_by_type.csv: run statistics with every configuration key",
                                     {"summary.csv", "summary_by_type.csv"},
                                     make_summary_sink,
                                     30, summary_columns});
const Registrar<SinkEntry> kWasteSink(
    {"waste",
     "wasted_by_cause.csv: wasted GPU-hours by cause (failed jobs, preemption, idle evaluation GPUs)",
     {"wasted_by_cause.csv"},
     make_waste_sink,
     40, waste_columns});
const Registrar<SinkEntry> kRunJsonSink(
    {"run_json",
     "run.json: resolved configuration, version, workload provenance, conservation figures",
     {"run.json"},
     make_run_json_sink,
     50});
const Registrar<SinkEntry> kEvaluationsSink(
    {"evaluations",
     "evaluations.csv: one row per evaluation (a checkpoint's batch of Eval jobs): makespan, GPU-seconds",
     {"evaluations.csv"},
     make_evaluations_sink,
     60, evaluations_columns});
const Registrar<SinkEntry> kUsersSink(
    {"users",
     "users.csv: one row per user: jobs, GPU-hours, queuing delay, slowdown, waits over an hour",
     {"users.csv"},
     make_users_sink,
     70, users_columns});
const Registrar<SinkEntry> kConsoleSink(
    {"console", "a summary table per job type on standard output", {}, make_console_sink, 80});

}  // namespace

std::span<const SinkEntry> sink_table() { return Registry<SinkEntry>::table(); }

std::unique_ptr<Sink> make_sink(std::string_view name, const SinkSettings& settings) {
  std::string valid;
  for (const SinkEntry& e : sink_table()) {
    if (e.name == name) return e.make(settings);
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError("unknown output '" + std::string(name) + "' (valid: " + valid + ")");
}

std::vector<FileColumns> output_columns() {
  std::vector<FileColumns> all;
  for (const SinkEntry& e : sink_table())
    if (e.columns)
      for (FileColumns& f : e.columns()) all.push_back(std::move(f));
  return all;
}

}  // namespace acme
