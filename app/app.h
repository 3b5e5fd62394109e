// The commands of the acmesim executable; main.cpp parses the command line and calls these.
// This is the one place where the engine, the policies, the workloads and the sinks meet.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/captured_table.h"
#include "io/columns.h"
#include "io/config.h"
#include "sim/sink.h"

namespace acme {

// The cores this process may run on (taskset, cpusets), at most the machine's.
unsigned usable_cores();

// The threads a run may use: config.threads, or usable_cores() when it is 0.
unsigned threads_of(const RunConfig& config);

// One run from start to end, with the pieces a sweep may share passed in: simulates `workload`
// (which it does not change) on `cluster` under config's policy and writes config's outputs to
// `out_dir`, after removing every output an earlier run left there (so that a killed run leaves no
// finished-looking file). Safe to call from several threads at once on the same workload.
// `observer`, if given, is fed every fact and the RunRecord like the run's own sinks (validate).
// With `capture`, the outputs go there (io/captured_table.h) and out_dir is not used. A run over
// its own workload (`acmesim run`, run_captured) is built by open_run (app/make_simulation.h).
struct RunReport {
  Conservation conservation;
  double simulate_s = 0, outputs_s = 0;
};
RunReport execute_run(const RunConfig& config, const ClusterSpec& cluster, const Workload& workload,
                      const std::filesystem::path& out_dir, bool progress, Sink* observer = nullptr,
                      TableCapture* capture = nullptr);

// The run of `acmesim run` in process, its outputs captured instead of written: what the Python
// module's acmesim.run returns as DataFrames. Throws InputError as run_command would.
struct CapturedRun {
  TableCapture outputs;
  RunReport report;
};
CapturedRun run_captured(const RunConfig& config);

// Every key of a run with the value in force, as its outputs list them: the configuration, then
// the keys its policy, estimate model and network model read, defaults included. Builds those
// plugins as execute_run does, so a key none of them has is an InputError before any run starts.
std::vector<std::pair<std::string, std::string>> resolve_run(const RunConfig& config, const ClusterSpec& cluster);

struct RunArgs {
  std::string config;
  std::vector<std::string> overrides;  // key=value
  std::string out_dir = "out";
  bool progress = true;                // a progress line on stderr, when stderr is a terminal
  unsigned threads = 0;                // RunConfig::threads; 0: the cores this process may use
};
int run_command(const RunArgs& args);

// What: empty, the policies (with their keys), workload sources and outputs; "columns", every
// output file's columns as the Markdown tables of configs/README.md (io/columns.h).
int list_command(std::string_view what = {});
// Every CSV file's columns: a run's outputs (io/sinks.h), then validate's (workloads/fidelity.h)
// and calibrate's (workloads/calibration.h).
std::vector<FileColumns> every_file_columns();

struct GenArgs {
  std::string cluster = "seren";  // seren | kalos: picks the schema and the default files
  std::string from, to;
  std::uint64_t seed = 1;
  double load = 1.0;
  std::string output;
  std::string config_file;   // the replay's run configuration; default: configs/<cluster>.yaml
  std::string model_file;    // default: configs/workloads/<cluster>.yaml
  std::string cluster_file;  // default: configs/clusters/<cluster>.yaml
  // The policy of the replay that sets start and end times, at its defaults; empty: the policy of
  // configs/<cluster>.yaml with its keys (the Acme baseline).
  std::string policy;
};
int gen_command(const GenArgs& args);

struct CalibrateArgs {
  std::string trace;              // an AcmeTrace CSV, either schema
  std::string cluster = "seren";  // seren | kalos: picks the published statistics
  std::string out_dir = "out/calibrate";
  std::string published_file;     // default: configs/workloads/<cluster>.published.yaml
  bool keep_data = false;         // keep <out>/data, the CDF tables the plots are drawn from
  bool cache = true;              // read the trace through the trace cache (workloads/trace_cache.h)
};
// Prints the table; returns 0 when every statistic is within tolerance, 1 otherwise.
int calibrate_command(const CalibrateArgs& args);

struct ValidateArgs {
  std::string trace;                   // an AcmeTrace CSV, either schema
  std::string cluster = "seren";       // seren | kalos: the default run configuration
  std::string config;                  // default: configs/<cluster>.yaml
  std::vector<std::string> overrides;  // key=value: run keys, and validate.* (app/validate.cpp)
  std::string out_dir = "out/validate";
  bool progress = true;
};
// Replays the trace and compares each job's queueing delay with the recorded one (workloads/fidelity.h).
// Prints the table; returns 0 when every gated group is within tolerance, 1 otherwise.
int validate_command(const ValidateArgs& args);

struct SweepArgs {
  std::string file;      // a sweep file (app/sweep.h, configs/README.md "Sweep files")
  std::string out_dir;   // DIR: runs/<id>/, summary.csv, summary_by_type.csv
  unsigned jobs = 0;     // worker threads per process; 0: the cores this process may use
  bool progress = true;  // a progress bar on stderr, when stderr is a terminal
  bool cache = true;     // false: every run's cache.enabled is false (--no-cache)
  // --shard I/N: run only share I of N (share_of over every run of the sweep, so the shares do
  // not depend on what other shards have finished), skip its finished runs, and do not merge:
  // N separate jobs (a Slurm job array) run the sweep, then one `--merge` writes the tables.
  std::optional<std::pair<int, int>> shard;
  bool merge_only = false;  // --merge: run nothing, merge the runs' outputs into DIR/summary.csv
};
// Runs every unfinished run of the sweep (or of its shard), split over the processes of an MPI
// job if launched by one, then merges DIR/summary.csv (not for a shard). Returns 0 when every run
// finished, 1 when some failed (with --merge: when some run failed or is missing).
// Under an MPI launcher with more than one process, --shard is an InputError.
int sweep_command(const SweepArgs& args);
// "I/N" with integers 0 <= I < N, as --shard takes it. Throws InputError naming --shard.
std::pair<int, int> parse_shard(const std::string& text);

struct CompareArgs {
  std::string dir;                   // a sweep's output folder, or its summary.csv
  std::vector<std::string> by;       // group by these columns
  std::string baseline;              // default: the first group
  std::vector<std::string> metrics;  // default: see app/compare.h
};
// Prints means, 95% confidence intervals and ratios to the baseline (app/compare.h).
int compare_command(const CompareArgs& args);

// Help text listing every run configuration key with its default and meaning.
std::string config_keys_help();

}  // namespace acme
