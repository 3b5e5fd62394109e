// The run configuration: every key, its type, default and meaning, in one table (config.cpp),
// which also lists them for `acmesim run --help` and configs/README.md.
//
// Paths in a configuration file are relative to that file's folder; paths given with --set are
// relative to the current directory. A window (workload.from, .to) belongs to the workload named
// with it: a later layer (--set, a sweep) that names a trace drops the window of the file it
// overrides, so the trace replays whole unless that layer gives a window too.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/outcome.h"
#include "io/yaml_util.h"

namespace acme {

struct RunConfig {
  std::string cluster = "configs/clusters/seren.yaml";
  std::string workload_source = "auto";  // auto: acmetrace when workload.trace is set, else synthetic
  std::string workload_trace;            // AcmeTrace CSV; empty: none
  std::optional<Time> workload_from;     // select jobs submitted at or after
  std::optional<Time> workload_to;       // ... and before
  // The UTC offset (seconds) each bound was written with ("+08:00": 28800; a date: 0). They are
  // printed in it (run.json, summary.csv, the console), as the user wrote them.
  int workload_from_offset_s = 0, workload_to_offset_s = 0;
  std::optional<int> workload_utc_offset_s;  // of trace timestamps without one; none: UTC, with a warning
  bool workload_lenient = false;         // skip (and count) malformed rows instead of stopping
  bool workload_feedback = false;        // an SWF log's jobs wait for their preceding job (think time)
  std::string workload_model = "configs/workloads/seren.yaml";  // synthetic workload model
  double workload_load = 1.0;            // synthetic arrival-rate multiplier
  ReplayMode replay = ReplayMode::Policy;
  std::string policy_name = "fifo";
  // A recorded replay asked for over a configured policy (`replay: recorded` given after the
  // source that set policy.name, e.g. a --set over the file): that policy and where it was set,
  // "acme (configs/seren.yaml:11)". policy_name is then greedy, the scheduler of jobs that do not
  // fit at their recorded start, and policy_params are dropped with the policy. Empty otherwise.
  std::string unused_policy;
  PlacementStrategy placement = PlacementStrategy::FirstFit;
  std::uint64_t seed = 1;
  Time metrics_interval = Time::hours(1);
  std::string outputs = "jobs,timeseries,summary,waste,run_json,evaluations,users,training,console";
  bool eval_decoupled = false;           // eval: coupled (as traced) or decoupled (features/evaluation.h)

  // Values under policy.* (but policy.name) and estimate.*, read by the policy and the estimate
  // model through Params: each knows its own keys.
  std::vector<YamlValue> policy_params;
  std::vector<YamlValue> estimate_params;
  // <name>.* of each registered model feature (io/feature_registry.h), by its name: launch.*
  std::map<std::string, std::vector<YamlValue>, std::less<>> feature_params;
  // cache.*: the parsed-trace cache (workloads/trace_cache.h). It changes no result, so these keys
  // are not recorded in run.json or summary.csv.
  std::vector<YamlValue> cache_params;

  // Not a key (acmesim run --threads): threads that read a trace and write the outputs; 0: the
  // hardware's. Every count gives the same bytes, so it is not recorded with the keys.
  unsigned threads = 0;
  // "file:line" of each key set from a file or --set, for errors found after loading.
  std::map<std::string, std::string> origin;
  std::string where(const std::string& key) const;
};

std::span<const Field<RunConfig>> run_config_fields();

// Reads `path` (may be empty: defaults only), then applies `overrides` ("key=value") in order.
// Throws InputError naming the file (or --set), line and key of the first problem.
RunConfig load_run_config(const std::string& path, std::span<const std::string> overrides);
// The same from values already read, applied in order (a later value of a key wins); how a sweep
// builds each run from its base file, its fixed settings and its axes.
RunConfig make_run_config(const std::vector<YamlValue>& values);

// The resolved configuration as (key, value) pairs in table order, for outputs.
std::vector<std::pair<std::string, std::string>> describe(const RunConfig& c);

std::string_view name(ReplayMode m);

// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""}.
std::vector<std::string> split_commas(const std::string& s);

}  // namespace acme
