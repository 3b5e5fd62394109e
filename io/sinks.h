// What a sink that writes files is made from (SinkSettings), the registry of sinks (sink_table:
// the I/O layer's registered in io/sink_registry.cpp, a model feature's in its own file) and the
// sinks, one file each:
//   jobs.csv             io/jobs_sink.cpp
//   timeseries.csv       io/timeseries_sink.cpp (links.csv too; fragmentation in io/fragmentation.h)
//   summary.csv          io/summary_sink.cpp (and summary_by_type.csv)
//   wasted_by_cause.csv  io/waste_sink.cpp
//   run.json             io/run_json_sink.cpp
//   evaluations.csv      io/evaluations_sink.cpp
//   users.csv            io/users_sink.cpp
//   training.csv         features/training_output.cpp (and training_summary.csv; with failures on
//                        only), the failures feature's, which registers it there
//   standard output      io/console_sink.cpp
// The jobs.csv and summary sinks handle ended jobs on a thread of their own (io/ended_jobs_thread.h).
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "io/columns.h"
#include "sim/sink.h"

namespace acme {

struct TableCapture;
class DeferredRenames;
class Feature;
class LinkSharing;
class SharedSummary;
class Topology;

// Every file a sink writes appears whole or not at all (written to a temporary name, then
// renamed, at once or, with SinkSettings::renames, when the run is done).
struct SinkSettings {
  std::filesystem::path out_dir;
  Time interval = Time::hours(1);  // time-series interval
  int total_gpus = 0;
  int nodes = 0;
  int gpus_per_node = 8;
  TableCapture* capture = nullptr;  // set: the outputs go there (io/captured_table.h), no file
  // Set: files are finished under their temporary names and renamed by its owner (io/csv.h).
  DeferredRenames* renames = nullptr;
  // With network contention: the link loads (complete when the run is done) and the topology
  // that names the links. Not owned.
  const LinkSharing* links = nullptr;
  const Topology* topology = nullptr;
  // The run's model features, in their order: the sinks add their columns (Feature::columns).
  // Not owned.
  std::vector<const Feature*> features = {};
  // Threads the outputs may use: above 1, jobs.csv's rows are written while the run goes.
  unsigned threads = 1;
  // The run's summary, shared by the sinks that write or print it (io/shared_summary.h); null:
  // each such sink builds its own.
  std::shared_ptr<SharedSummary> summary = nullptr;
};

struct SinkEntry {
  std::string_view name;
  std::string_view description;
  std::array<std::string_view, 2> files;  // the files it writes (empty entries: none)
  std::unique_ptr<Sink> (*make)(const SinkSettings&);
  int order = 1000;  // output order: by order, then by name
  // The CSV files it writes with their columns, for the docs (none: run.json, the console).
  std::vector<FileColumns> (*columns)() = nullptr;
  static constexpr std::string_view kKind = "output";
};

// The registry table (Registry<SinkEntry> of io/registry.h), in output order.
std::span<const SinkEntry> sink_table();

// REQUIRES: `name` is in sink_table(); otherwise InputError listing the valid names.
std::unique_ptr<Sink> make_sink(std::string_view name, const SinkSettings& settings);

std::unique_ptr<Sink> make_jobs_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_timeseries_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_summary_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_waste_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_run_json_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_evaluations_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_users_sink(const SinkSettings& settings);
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
// Every CSV file of every registered sink, with its columns (SinkEntry::columns), in the order of
// sink_table().
std::vector<FileColumns> output_columns();

}  // namespace acme
