#include "io/config.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>

#include "io/csv.h"
#include "io/feature_registry.h"
#include "io/sinks.h"

namespace acme {
namespace {

// An empty value clears the bound: --set workload.from= replays from the first job.
std::optional<Time> optional_time(const YamlValue& v) {
  if (v.as_string().empty()) return std::nullopt;
  return v.as_time();
}

std::string print_time(const std::optional<Time>& t, int offset_s) { return t ? format_timestamp(*t, offset_s) : ""; }

// "+08:00", "-05:30", "Z" (seconds east of UTC), read as a timestamp's offset; empty: none.
std::optional<int> utc_offset(const YamlValue& v) {
  const std::string s = v.as_string();
  if (s.empty()) return std::nullopt;
  if (const auto t = parse_timestamp("1970-01-01 00:00:00" + s)) return static_cast<int>(-t->sec());
  v.fail("expected a UTC offset such as +08:00, -05:00 or Z, got '" + s + "'");
}

// The offset as a timestamp prints it ("+08:00").
std::string print_utc_offset(const std::optional<int>& offset_s) {
  return offset_s ? format_timestamp(Time{}, *offset_s).substr(19) : "";
}

void check_outputs(const YamlValue& v, const std::string& list) {
  const std::vector<std::string> items = split_commas(list);
  for (auto item = items.begin(); item != items.end(); ++item) {
    bool known = false;
    std::string valid;
    for (const SinkEntry& e : sink_table()) {
      known |= e.name == *item;
      valid += (valid.empty() ? "" : ", ") + std::string(e.name);
    }
    if (!known) v.fail("unknown output '" + *item + "' (valid: " + valid + ")");
    // Two sinks of one kind would write the same file at once.
    if (std::find(items.begin(), item, *item) != item) v.fail("output '" + *item + "' is listed twice");
  }
}

using F = Field<RunConfig>;

const std::array<F, 17> kFields = {{
    {"cluster", "cluster description file (configs/clusters/*.yaml)",
     [](RunConfig& c, const YamlValue& v) { c.cluster = v.as_path(); },
     [](const RunConfig& c) { return c.cluster; }},
    {"workload.source", "auto | acmetrace | synthetic; auto: acmetrace if workload.trace is set",
     [](RunConfig& c, const YamlValue& v) { c.workload_source = v.as_string(); },
     [](const RunConfig& c) { return c.workload_source; }},
    {"workload.trace", "AcmeTrace CSV (trace_seren.csv or trace_kalos.csv schema); empty: none",
     [](RunConfig& c, const YamlValue& v) { c.workload_trace = v.as_path(); },
     [](const RunConfig& c) { return c.workload_trace; }},
    {"workload.from", "first submit time selected: 2023-03-01 (UTC) or 2023-03-01 00:00:00+08:00; empty: no bound",
     [](RunConfig& c, const YamlValue& v) {
       c.workload_from = optional_time(v);
       c.workload_from_offset_s = v.utc_offset_s();
     },
     [](const RunConfig& c) { return print_time(c.workload_from, c.workload_from_offset_s); }},
    {"workload.to", "end of the selection (exclusive), same forms as workload.from",
     [](RunConfig& c, const YamlValue& v) {
       c.workload_to = optional_time(v);
       c.workload_to_offset_s = v.utc_offset_s();
     },
     [](const RunConfig& c) { return print_time(c.workload_to, c.workload_to_offset_s); }},
    {"workload.trace_utc_offset",
     "UTC offset of trace timestamps written without one (Helios's: +08:00); empty: read as UTC, with a warning",
     [](RunConfig& c, const YamlValue& v) { c.workload_utc_offset_s = utc_offset(v); },
     [](const RunConfig& c) { return print_utc_offset(c.workload_utc_offset_s); }},
    {"workload.lenient", "true: skip malformed trace rows and count them; false: stop at the first",
     [](RunConfig& c, const YamlValue& v) { c.workload_lenient = v.as_bool(); },
     [](const RunConfig& c) { return std::string(c.workload_lenient ? "true" : "false"); }},
    {"workload.feedback",
     "true: an SWF log's job waits for its preceding job and is submitted its think time after it ends; false: when "
     "the log says",
     [](RunConfig& c, const YamlValue& v) { c.workload_feedback = v.as_bool(); },
     [](const RunConfig& c) { return std::string(c.workload_feedback ? "true" : "false"); }},
    {"workload.model", "synthetic workload model (configs/workloads/*.yaml)",
     [](RunConfig& c, const YamlValue& v) { c.workload_model = v.as_path(); },
     [](const RunConfig& c) { return c.workload_model; }},
    {"workload.load", "synthetic arrival-rate multiplier; 1.0 is the published rate",
     [](RunConfig& c, const YamlValue& v) { c.workload_load = v.as_double(1e-6, 1e6); },
     [](const RunConfig& c) { return format_fixed(c.workload_load, 3); }},
    {"replay", "recorded: jobs start when the trace says; policy: the policy decides",
     [](RunConfig& c, const YamlValue& v) {
       const std::string s = v.as_string();
       if (s == "recorded") c.replay = ReplayMode::Recorded;
       else if (s == "policy") c.replay = ReplayMode::Policy;
       else v.fail("expected recorded or policy, got '" + s + "'");
     },
     [](const RunConfig& c) { return std::string(name(c.replay)); }},
    {"policy.name", "scheduling policy (acmesim list); used when replay is policy",
     [](RunConfig& c, const YamlValue& v) { c.policy_name = v.as_string(); },
     [](const RunConfig& c) { return c.policy_name; }},
    {"placement", "how jobs are placed on nodes: first_fit, best_fit or topology",
     [](RunConfig& c, const YamlValue& v) {
       const std::string s = v.as_string();
       for (std::size_t i = 0; i < std::size(kPlacementNames); ++i)
         if (kPlacementNames[i] == s) return void(c.placement = static_cast<PlacementStrategy>(i));
       v.fail("expected first_fit, best_fit or topology, got '" + s + "'");
     },
     [](const RunConfig& c) { return std::string(kPlacementNames[static_cast<std::size_t>(c.placement)]); }},
    {"seed", "seed of every random draw of the run (synthetic workload)",
     [](RunConfig& c, const YamlValue& v) {
       c.seed = static_cast<std::uint64_t>(v.as_int(0, std::numeric_limits<std::int64_t>::max()));
     },
     [](const RunConfig& c) { return std::to_string(c.seed); }},
    {"metrics.interval_s", "time-series interval, seconds",
     [](RunConfig& c, const YamlValue& v) { c.metrics_interval = Time::seconds(v.as_int(1, 365LL * 86400)); },
     [](const RunConfig& c) { return std::to_string(c.metrics_interval.sec()); }},
    {"outputs", "comma-separated outputs to write (acmesim list)",
     [](RunConfig& c, const YamlValue& v) {
       c.outputs = v.as_string();
       check_outputs(v, c.outputs);
     },
     [](const RunConfig& c) { return c.outputs; }},
    {"eval", "coupled: evaluation jobs hold their GPUs through model loading and metrics (as traced); decoupled: see README",
     [](RunConfig& c, const YamlValue& v) {
       const std::string s = v.as_string();
       if (s == "coupled") c.eval_decoupled = false;
       else if (s == "decoupled") c.eval_decoupled = true;
       else v.fail("expected coupled or decoupled, got '" + s + "'");
     },
     [](const RunConfig& c) { return std::string(c.eval_decoupled ? "decoupled" : "coupled"); }},
}};

}  // namespace

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t comma = std::min(s.find(',', pos), s.size());
    out.push_back(s.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

std::string_view name(ReplayMode m) { return m == ReplayMode::Recorded ? "recorded" : "policy"; }

std::span<const Field<RunConfig>> run_config_fields() { return kFields; }

std::string RunConfig::where(const std::string& key) const {
  auto it = origin.find(key);
  return it == origin.end() ? "defaults" : it->second;
}

RunConfig load_run_config(const std::string& path, std::span<const std::string> overrides) {
  std::vector<YamlValue> values;
  if (!path.empty()) values = read_yaml_file(path);
  for (const std::string& o : overrides) values.push_back(yaml_override(o));
  return make_run_config(values);
}

namespace {

// A window belongs to the workload named with it: a later layer (--set, a sweep's settings) that
// names a trace replays the whole trace, or the window it gives itself, not the window the file
// it overrides chose for its own (synthetic) workload.
std::vector<YamlValue> drop_windows_of_other_workloads(const std::vector<YamlValue>& values) {
  const auto trace = std::find_if(values.rbegin(), values.rend(),
                                  [](const YamlValue& v) { return v.key() == "workload.trace"; });
  if (trace == values.rend() || trace->as_string().empty()) return values;  // empty: no trace
  const auto last = trace.base() - 1;  // the value naming the trace
  std::vector<YamlValue> kept;
  for (auto it = values.begin(); it != values.end(); ++it) {
    const bool window = it->key() == "workload.from" || it->key() == "workload.to";
    if (window && it < last && it->file() != last->file()) continue;
    kept.push_back(*it);
  }
  return kept;
}

// The policy.* keys set before the last policy.name, in another file (or --set) that named
// another policy, were written for that policy: a policy chosen on top (--set policy.name=fifo
// over a configuration that tunes acme) does not get them.
std::vector<YamlValue> drop_keys_of_other_policies(const std::vector<YamlValue>& values) {
  const auto name = std::find_if(values.rbegin(), values.rend(), [](const YamlValue& v) { return v.key() == "policy.name"; });
  if (name == values.rend()) return values;
  const auto last = name.base() - 1;  // the value naming the policy
  const auto named_in = [&](const std::string& file) {  // the last policy its file named, or ""
    std::string named;
    for (auto it = values.begin(); it != last; ++it)
      if (it->key() == "policy.name" && it->file() == file) named = it->as_string();
    return named;
  };
  std::vector<YamlValue> kept;
  for (auto it = values.begin(); it != values.end(); ++it) {
    const bool tuning = it->key().rfind("policy.", 0) == 0 && it->key() != "policy.name";
    if (tuning && it < last && it->file() != last->file() && named_in(it->file()) != last->as_string()) continue;
    kept.push_back(*it);
  }
  return kept;
}

// Whether `replay` was given after policy.name by another source (a --set over the file that names
// the policy): the user asked for a recorded replay of a configuration, whose policy then yields.
// Given by one source (one file, or both by --set), the two contradict each other.
bool replay_given_over_policy(const std::vector<YamlValue>& values) {
  const YamlValue* replay = nullptr;
  const YamlValue* policy = nullptr;
  for (const YamlValue& v : values) {
    if (v.key() == "replay") replay = &v;
    if (v.key() == "policy.name") policy = &v;
  }
  return replay && policy && replay > policy && replay->file() != policy->file();
}

}  // namespace

RunConfig make_run_config(const std::vector<YamlValue>& given) {
  const std::vector<YamlValue> values = drop_keys_of_other_policies(drop_windows_of_other_workloads(given));
  RunConfig c;
  std::vector<YamlValue> own;
  for (const YamlValue& v : values) {
    if (v.key().rfind("policy.", 0) == 0 && v.key() != "policy.name") c.policy_params.push_back(v);
    else if (v.key().rfind("estimate.", 0) == 0) c.estimate_params.push_back(v);
    else if (const FeatureEntry* f = feature_of_key(v.key())) c.feature_params[std::string(f->name)].push_back(v);
    else if (v.key().rfind("cache.", 0) == 0) c.cache_params.push_back(v);
    else own.push_back(v);
  }
  apply_fields(run_config_fields(), own, c);
  for (const YamlValue& v : values)
    c.origin[v.key()] = v.line() ? v.file() + ":" + std::to_string(v.line()) : v.file();

  auto fail = [&](const std::string& key, const std::string& msg) {
    throw InputError(c.where(key) + ": " + key + ": " + msg);
  };
  if (c.workload_from && c.workload_to && *c.workload_to <= *c.workload_from)
    fail("workload.to", "must be later than workload.from");
  if (c.workload_source == "auto") c.workload_source = c.workload_trace.empty() ? "synthetic" : "acmetrace";
  if (c.workload_source == "acmetrace" && c.workload_trace.empty())
    fail("workload.source", "acmetrace replays a trace file, but workload.trace is not set");
  // Options that the run would ignore without a word: its outputs would misstate what it did.
  if (c.workload_source == "synthetic" && !c.workload_trace.empty())
    fail("workload.trace", "workload.source is synthetic, which reads no trace (leave it auto to replay the trace)");
  if (c.workload_source == "synthetic" && (!c.workload_from || !c.workload_to))
    fail(c.workload_from ? "workload.to" : "workload.from",
         "a synthetic workload needs both workload.from and workload.to");
  if (c.workload_source == "acmetrace" && c.workload_load != 1.0)
    fail("workload.load",
         "scales synthetic arrivals only; a trace (workload.source acmetrace) is replayed as recorded");
  if (c.replay == ReplayMode::Recorded && c.policy_name != "fifo" && c.policy_name != "greedy") {
    if (!replay_given_over_policy(values))
      fail("policy.name", "replay: recorded starts jobs at their recorded start (greedy when they do not fit), "
                          "so policy '" + c.policy_name + "' would not be used (use replay: policy)");
    c.unused_policy = c.policy_name + " (" + c.where("policy.name") + ")";
    c.policy_name = "greedy";
    c.policy_params.clear();
    c.origin["policy.name"] = c.where("replay");
  }
  std::error_code ec;  // a name too long for the file system is no such file, not a crash
  if (!std::filesystem::is_regular_file(c.cluster, ec)) fail("cluster", "no such file: " + c.cluster);
  if (c.workload_source == "synthetic" && !std::filesystem::is_regular_file(c.workload_model, ec))
    fail("workload.model", "no such file: " + c.workload_model);
  return c;
}

std::vector<std::pair<std::string, std::string>> describe(const RunConfig& c) {
  return describe_fields(run_config_fields(), c);
}

}  // namespace acme
