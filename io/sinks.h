// The sinks the registry (io/sink_registry.cpp, sink_table() of sim/sink.h) names, one file each:
//   jobs.csv             io/jobs_sink.cpp
//   timeseries.csv       io/timeseries_sink.cpp (links.csv too; fragmentation in io/fragmentation.h)
//   summary.csv          io/summary_sink.cpp (and summary_by_type.csv)
//   wasted_by_cause.csv  io/waste_sink.cpp
//   run.json             io/run_json_sink.cpp
//   evaluations.csv      io/evaluations_sink.cpp
//   users.csv            io/users_sink.cpp
//   training.csv         io/training_sink.cpp (and training_summary.csv; with failures on only)
//   standard output      io/console_sink.cpp
// The jobs.csv and summary sinks handle ended jobs on a thread of their own (io/ended_jobs_thread.h).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "io/columns.h"
#include "sim/sink.h"

namespace acme {

std::unique_ptr<Sink> make_jobs_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_timeseries_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_summary_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_waste_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_run_json_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_evaluations_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_users_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_training_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_console_sink(const SinkSettings& settings);

// The conditions of columns written only with a model feature on (ColumnGroupDoc::when).
inline constexpr std::string_view kWithPower = "with `power.enabled` only";
inline constexpr std::string_view kWithContention = "with `network.contention` only";
inline constexpr std::string_view kWithFailures = "with `failures.enabled` only";
inline constexpr std::string_view kWithStragglers = "with `stragglers.enabled` only";
inline constexpr std::string_view kWithEviction = "with `stragglers.mitigation: evict` only";

// The files each sink writes, with their columns, each beside its sink.
std::vector<FileColumns> jobs_columns();
std::vector<FileColumns> timeseries_columns();  // and links.csv
std::vector<FileColumns> summary_columns();     // and summary_by_type.csv
std::vector<FileColumns> waste_columns();
std::vector<FileColumns> evaluations_columns();
std::vector<FileColumns> users_columns();
std::vector<FileColumns> training_columns();  // and training_summary.csv
// Every CSV file of every sink, with its columns, in the order of sink_table() (run.json and the
// console have none).
std::vector<FileColumns> output_columns();

}  // namespace acme
