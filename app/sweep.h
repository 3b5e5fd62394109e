// Sweeps: many runs described by one YAML file, run in parallel, resumable, merged into one table.
//
// A sweep file (every key optional but one axis; configs/README.md, "Sweep files"):
//
//   base: ../kalos.yaml                      a run configuration, relative to the sweep file
//   set: {outputs: "summary,timeseries"}     keys fixed for every run, over the base
//   grid: {policy.name: [fifo, backfill]}    axes whose cartesian product is taken
//   zip: {workload.trace: [a.csv, b.csv], cluster: [...]}   lists of equal length, moving together
//   windows: {every: month, from: 2023-06-01, to: 2023-09-01}   workload.from/to pairs
//   seeds: [1, 2, 3]                         or {from: 1, count: 3}
//
// Runs are numbered in sweep order: the first grid axis changes slowest, then the later grid
// axes, the zip, the windows, and the seeds fastest. Values from the sweep file keep its file and
// line, so a bad key or value is an InputError "sweep.yaml:7: policy.nmae: ..." and paths in it
// are relative to its folder. Axis values are single values (no lists or mappings), or null: that
// run does not set the key (zip: {policy.name: [acme, backfill], policy.depth: [null, 64]}).
// Every run is validated before any starts: its configuration, its cluster file, and the keys of
// its policy and other plugins (resolve_run in app.h).
//
// Policies with different keys: a policy.* key of the sweep file (set or an axis) that a run's
// policy does not read is left out of that run, and its swept column is empty in that run's row
// (grid: {policy.name: [acme, backfill], policy.depth: [64, 256]} runs backfill twice and acme
// without policy.depth). Runs that become the same run once such keys are left out are one run,
// listed once, at the position of the first (that grid has 3 runs, not 4). A key that no policy
// of the sweep reads is still an error, at its line: a misspelt key is not silently dropped.
//
// A sweep's runs always write summary.csv (the merge needs it) and never print the console table.
//
// Output folder DIR:
//   DIR/runs/<id>/          a finished run's outputs; it appears only when every output is
//                           written (the run writes into DIR/runs/<id>.partial, then renames it)
//   DIR/runs/<id>.failed    a failed run's error message; the run is tried again on restart
//   DIR/summary.csv         one row per run, in sweep order: the swept keys (values as in the
//                           sweep file), run_id, status (ok, failed, or missing if not run), error,
//                           then every other column of the runs' summary.csv
//   DIR/summary_by_type.csv the same for the runs' summary_by_type.csv (a failed run: one row)
// The merged files depend only on the sweep and the runs' outputs, never on the number of
// workers or processes, nor on the order in which runs finished. (Path columns, such as cluster,
// hold paths as resolved from the sweep file's path as given: the same command from the same
// folder gives the same bytes; run ids do not depend on it.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/cluster_spec.h"
#include "io/config.h"

namespace acme {

struct SweepRun {
  std::size_t index = 0;  // position in sweep order (in Sweep::runs)
  // 12 hex digits: FNV-1a 64 of the resolved configuration (`resolved`, with paths to existing
  // files taken relative to the sweep file's folder, so the id does not depend on the current
  // directory). The same sweep names the same runs on every machine.
  std::string id;
  RunConfig config;
  // Every key with the value in force, as the run's summary.csv and run.json list them.
  std::vector<std::pair<std::string, std::string>> resolved;
  // The value of each swept key (Sweep::swept_keys) as the sweep file writes it ("1.0", not
  // "1.000"), or as the sweep generates it (windows, seeds {from, count}); empty when the run
  // does not set the key (null, or a key its policy does not read).
  std::vector<std::string> swept;
  std::shared_ptr<const ClusterSpec> cluster;  // shared by the runs of one cluster file
  // Runs with equal keys replay the same workload, loaded once (trace, window, model, load, and
  // the seed for generated workloads).
  std::string workload_key;
};

struct Sweep {
  std::string file;
  std::vector<std::string> swept_keys;  // the axes' run keys, in order: summary.csv's first columns
  std::vector<SweepRun> runs;
};

// Reads, expands and validates a sweep file. Throws InputError naming file, line and key of the
// first problem: an unknown key, an empty axis, zip lists of different lengths, a key swept
// twice (or both fixed by set and swept), two runs with the same configuration (but the twins
// made by leaving keys out, above), a policy.* key no run's policy reads, or any run whose
// configuration is invalid.
// More than `max_runs` runs (or windows, or seeds) is an error too, found before any is expanded.
Sweep load_sweep(const std::string& path, std::size_t max_runs = 1000000);

// "runs/<id>" and friends, relative to the output folder.
std::filesystem::path run_dir(const std::filesystem::path& out_dir, const SweepRun& run);

// Indices of the runs without a finished folder under out_dir, in sweep order.
std::vector<std::size_t> unfinished_runs(const Sweep& sweep, const std::filesystem::path& out_dir);

// This process's share of `todo` when `processes` processes split it: runs that share a workload
// are kept together, then the list is cut into `processes` contiguous parts whose lengths differ
// by at most one. Every process computes the same split from the same inputs.
std::vector<std::size_t> share_of(const Sweep& sweep, std::span<const std::size_t> todo, int process,
                                  int processes);

struct RunnerOptions {
  unsigned workers = 0;   // threads; 0: std::thread::hardware_concurrency()
  bool progress = false;  // draw a progress bar on stderr
};

struct RunnerResult {
  std::size_t finished = 0, failed = 0;
  double seconds = 0;
};

// Runs `todo` (indices into sweep.runs) on a pool of worker threads, each workload loaded once
// and shared by its runs. A run that throws leaves DIR/runs/<id>.failed with the message and the
// others go on; leftovers of an interrupted attempt (<id>.partial) are removed before a run starts.
RunnerResult run_sweep_runs(const Sweep& sweep, std::span<const std::size_t> todo,
                            const std::filesystem::path& out_dir, const RunnerOptions& options);

struct MergeResult {
  std::size_t ok = 0, failed = 0, missing = 0;  // missing: neither finished nor failed
};

// Writes DIR/summary.csv and DIR/summary_by_type.csv from the runs' outputs, and removes
// leftover *.partial folders. REQUIRES: no run of the sweep is in progress.
MergeResult merge_sweep(const Sweep& sweep, const std::filesystem::path& out_dir);

// One process, start to end: the unfinished runs, then the merge.
MergeResult run_sweep(const Sweep& sweep, const std::filesystem::path& out_dir, const RunnerOptions& options);

// FNV-1a, 64 bits: the run id hash, stable across machines and compilers.
std::uint64_t fnv1a64(std::string_view bytes);

}  // namespace acme
