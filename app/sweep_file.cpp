// Sweeps (app/sweep.h): reading a sweep file and expanding it into runs.
#include "app/sweep.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "app/app.h"
#include "app/plugin_keys.h"
#include "sim/error.h"
#include "io/cluster_file.h"
#include "io/csv.h"
#include "workloads/registry.h"

namespace acme {
namespace fs = std::filesystem;

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// ---- The sweep file -------------------------------------------------------------------------

// One swept key and its values; the axes of a group move together (a grid axis is a group of
// one; the zip, the windows and the seeds are one group each).
struct Axis {
  std::string key;
  YamlValue origin;  // where the axis is written, for errors
  std::vector<YamlValue> values;
};
using AxisGroup = std::vector<Axis>;

Axis make_axis(const YamlValue& v, const std::string& key) {
  Axis axis{key, v, {}};
  for (const YamlValue& item : v.items()) axis.values.push_back(item.derive(key));
  if (axis.values.empty()) v.fail("an empty list gives no runs");
  return axis;
}

// The same local time one calendar month later ("2023-06-01 00:00:00+08:00" -> 2023-07-01 ...).
Time add_month(Time t, int offset) {
  std::string s = format_timestamp(t, offset);
  int year = std::stoi(s.substr(0, 4)), month = std::stoi(s.substr(5, 2)) + 1;
  if (month == 13) month = 1, ++year;
  char ym[32];
  std::snprintf(ym, sizeof ym, "%04d-%02d", year, month);
  s.replace(0, 7, ym);
  return parse_timestamp(s).value_or(Time::max());  // past the year 9999: no next month
}

// windows: {every: month | week | day, from: T, to: T} -> workload.from and workload.to axes.
AxisGroup make_windows(const std::map<std::string, YamlValue>& w, const YamlValue& any, std::size_t max_runs) {
  for (const char* key : {"windows.every", "windows.from", "windows.to"})
    if (!w.count(key)) any.fail(std::string("windows needs every, from and to; ") + key + " is missing");
  for (const auto& [key, v] : w)
    if (key != "windows.every" && key != "windows.from" && key != "windows.to")
      v.fail("unknown key (valid: windows.every, windows.from, windows.to)");
  const YamlValue& every = w.at("windows.every");
  const YamlValue& from_v = w.at("windows.from");
  const std::string unit = every.as_string();
  if (unit != "month" && unit != "week" && unit != "day") every.fail("expected month, week or day, got '" + unit + "'");
  const Time from = from_v.as_time(), to = w.at("windows.to").as_time();
  if (to <= from) w.at("windows.to").fail("must be later than windows.from");
  const int offset = from_v.utc_offset_s();
  if (unit == "month" && std::stoi(format_timestamp(from, offset).substr(8, 2)) > 28)
    from_v.fail("monthly windows must start on day 1 to 28 of a month");
  Axis froms{"workload.from", from_v, {}}, tos{"workload.to", from_v, {}};
  for (Time t = from; t < to;) {
    if (froms.values.size() == max_runs) w.at("windows.to").fail("more than " + std::to_string(max_runs) + " windows");
    const Time next = unit == "month" ? add_month(t, offset) : t + Time::hours(unit == "week" ? 7 * 24 : 24);
    froms.values.push_back(from_v.derive("workload.from", format_timestamp(t, offset)));
    tos.values.push_back(from_v.derive("workload.to", format_timestamp(std::min(next, to), offset)));
    t = next;
  }
  return {froms, tos};
}

// seeds: [1, 2, 3] or {from: 1, count: 3} -> the seed axis.
AxisGroup make_seeds(const std::map<std::string, YamlValue>& s, std::size_t max_runs) {
  if (s.count("seeds")) {
    if (s.size() > 1) s.begin()->second.fail("seeds is either a list or {from, count}, not both");
    return {make_axis(s.at("seeds"), "seed")};
  }
  for (const auto& [key, v] : s)
    if (key != "seeds.from" && key != "seeds.count") v.fail("unknown key (valid: seeds.from, seeds.count)");
  const YamlValue& any = s.begin()->second;
  if (!s.count("seeds.from") || !s.count("seeds.count")) any.fail("seeds needs both from and count");
  const std::int64_t from = s.at("seeds.from").as_int(0, std::numeric_limits<std::int64_t>::max() / 2);
  const std::int64_t count = s.at("seeds.count").as_int(1, static_cast<std::int64_t>(max_runs));
  Axis axis{"seed", s.at("seeds.from"), {}};
  for (std::int64_t i = 0; i < count; ++i)
    axis.values.push_back(s.at("seeds.from").derive("seed", std::to_string(from + i)));
  return {axis};
}

struct SweepSpec {
  std::vector<YamlValue> fixed;   // the base file's values, then set's
  std::size_t base_count = 0;     // how many of `fixed` come from the base file
  std::vector<AxisGroup> groups;  // in sweep order, the first changing slowest
};

SweepSpec read_sweep_file(const std::string& path, std::size_t max_runs) {
  const std::vector<YamlValue> values = read_yaml_file(path);
  SweepSpec spec;
  std::vector<YamlValue> base, set;
  AxisGroup zip;
  std::map<std::string, YamlValue> windows, seeds;
  for (const YamlValue& v : values) {
    const std::string& k = v.key();
    if (k == "base") {
      const std::string file = v.as_path();
      std::error_code ec;  // a name too long for the file system is no such file, not a crash
      if (!fs::is_regular_file(file, ec)) v.fail("no such file: " + file);
      base = read_yaml_file(file);
    } else if (starts_with(k, "set.")) {
      set.push_back(v.derive(k.substr(4)));
    } else if (starts_with(k, "grid.")) {
      spec.groups.push_back({make_axis(v, k.substr(5))});
    } else if (starts_with(k, "zip.")) {
      zip.push_back(make_axis(v, k.substr(4)));
      if (zip.back().values.size() != zip.front().values.size())
        v.fail("has " + std::to_string(zip.back().values.size()) + " values, but " + zip.front().origin.key() +
               " has " + std::to_string(zip.front().values.size()) + " (zip axes move together)");
    } else if (k == "windows" || starts_with(k, "windows.")) {
      windows.emplace(k, v);
    } else if (k == "seeds" || starts_with(k, "seeds.")) {
      seeds.emplace(k, v);
    } else {
      v.fail(k == "grid" || k == "zip" || k == "set"
                 ? "expected a mapping of keys to values"
                 : "unknown sweep key (valid: base, set, grid, zip, windows, seeds)");
    }
  }
  if (!zip.empty()) spec.groups.push_back(std::move(zip));
  if (!windows.empty()) spec.groups.push_back(make_windows(windows, windows.begin()->second, max_runs));
  if (!seeds.empty()) spec.groups.push_back(make_seeds(seeds, max_runs));
  if (spec.groups.empty())
    throw_input_error(path, 0, "", "no axis: a sweep needs at least one of grid, zip, windows or seeds");

  std::map<std::string, const YamlValue*> swept;
  for (const AxisGroup& g : spec.groups)
    for (const Axis& a : g)
      if (!swept.emplace(a.key, &a.origin).second)
        a.origin.fail(a.key + " is swept twice (also at line " + std::to_string(swept.at(a.key)->line()) + ")");
  // The axis would win without a word: the fixed value would be silently ignored.
  for (const YamlValue& v : set)
    if (swept.count(v.key()))
      v.fail("is fixed by set but also swept (at line " + std::to_string(swept.at(v.key())->line()) + ")");
  spec.base_count = base.size();
  spec.fixed = std::move(base);
  spec.fixed.insert(spec.fixed.end(), set.begin(), set.end());
  return spec;
}

// ---- Resolving one run ----------------------------------------------------------------------

// The policy.* keys (as Params documents them: "policy.depth", "policy.type_gpu_limit") that
// each registered policy reads.
std::map<std::string, std::vector<std::string>> keys_of_policies() {
  std::map<std::string, std::vector<std::string>> out;
  for (const KeySection& s : policy_key_sections()) {
    std::vector<std::string>& keys = out[s.name];  // a policy with no keys too
    for (const Params::Doc& d : s.keys) keys.push_back(d.key);
  }
  return out;
}

bool policy_reads(const std::vector<std::string>& keys, const std::string& key) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return key == k || starts_with(key, k + "."); });
}

// The sweep file's own policy.* values (set and axes, from index `first`) that the run's policy
// does not read: they were written for the sweep's other policies, and are left out of this run.
std::vector<std::size_t> keys_for_other_policies(const std::vector<YamlValue>& values, std::size_t first,
                                                 const RunConfig& config,
                                                 const std::map<std::string, std::vector<std::string>>& keys) {
  std::vector<std::size_t> out;
  const auto own = keys.find(config.policy_name);
  if (own == keys.end()) return out;  // an unknown policy: resolve_run names the valid ones
  for (std::size_t i = first; i < values.size(); ++i) {
    const std::string& k = values[i].key();
    if (starts_with(k, "policy.") && k != "policy.name" && !policy_reads(own->second, k)) out.push_back(i);
  }
  return out;
}


// The merge reads every run's summary.csv; the console table of parallel runs would interleave.
std::string sweep_outputs(const std::string& outputs) {
  std::string out;
  bool summary = false;
  for (const std::string& o : split_commas(outputs)) {
    if (o == "console") continue;
    summary |= o == "summary";
    out += (out.empty() ? "" : ",") + o;
  }
  return summary ? out : out + (out.empty() ? "" : ",") + "summary";
}

// The text the run id hashes: key=value lines, with paths to existing files relative to the
// sweep file's folder (values read from files are paths joined to that file's folder, so they
// hold a '/'; a policy name does not).
std::string identity(const std::vector<std::pair<std::string, std::string>>& resolved, const fs::path& sweep_dir) {
  std::string text;
  for (const auto& [key, value] : resolved) {
    std::string v = value;
    std::error_code ec;
    if (v.find('/') != std::string::npos && fs::exists(v, ec)) {
      const fs::path rel = fs::weakly_canonical(v, ec).lexically_relative(sweep_dir);
      if (!ec && !rel.empty()) v = rel.generic_string();
    }
    text += key + "=" + v + "\n";
  }
  return text;
}

std::string workload_key(const RunConfig& c) {
  std::string key = c.workload_source + "\n";
  for (const auto& [k, v] : describe(c))
    if (starts_with(k, "workload.")) key += k + "=" + v + "\n";
  // A trace does not depend on the cluster or the seed; anything generated may.
  if (c.workload_source != "acmetrace") key += "cluster=" + c.cluster + "\nseed=" + std::to_string(c.seed) + "\n";
  return key;
}

std::string hex12(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, 12);
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

// What the expansion of one sweep shares between its runs.
struct Expansion {
  Expansion(const SweepSpec& s, fs::path dir) : spec(s), sweep_dir(std::move(dir)) {}
  const SweepSpec& spec;
  fs::path sweep_dir;  // for run ids
  std::map<std::string, std::vector<std::string>> policy_keys = keys_of_policies();
  std::map<std::string, std::shared_ptr<const ClusterSpec>> clusters;
  std::map<std::string, YamlValue> left_out;  // the sweep file's policy.* values left out of some run
  std::set<std::string> kept;                 // ... and those some run kept
  std::set<std::string> policies;
};

// Run `i` of the sweep, in sweep order. Sets `left_out_any` when a value of the sweep file was
// left out of it because the run's policy does not read it.
SweepRun expand_run(Expansion& x, std::size_t i, bool& left_out_any) {
  const SweepSpec& spec = x.spec;
  std::vector<YamlValue> values = spec.fixed;
  std::vector<std::size_t> digit(spec.groups.size());
  for (std::size_t g = spec.groups.size(), rest = i; g-- > 0;) {
    digit[g] = rest % spec.groups[g].front().values.size();
    rest /= spec.groups[g].front().values.size();
  }
  SweepRun run;
  std::vector<std::optional<std::size_t>> column_of(values.size());  // each value's swept column
  for (std::size_t g = 0; g < spec.groups.size(); ++g)
    for (const Axis& a : spec.groups[g]) {
      const YamlValue& v = a.values[digit[g]];
      run.swept.push_back(v.is_null() ? "" : v.as_string());  // null: the key is not set
      if (v.is_null()) continue;
      values.push_back(v);
      column_of.push_back(run.swept.size() - 1);
    }
  run.config = make_run_config(values);
  const std::vector<std::size_t> drop = keys_for_other_policies(values, spec.base_count, run.config, x.policy_keys);
  for (std::size_t d = drop.size(); d-- > 0;) {
    x.left_out.emplace(values[drop[d]].key(), values[drop[d]]);
    if (column_of[drop[d]]) run.swept[*column_of[drop[d]]] = "";
    values.erase(values.begin() + static_cast<std::ptrdiff_t>(drop[d]));
  }
  left_out_any = !drop.empty();
  if (left_out_any) run.config = make_run_config(values);
  x.policies.insert(run.config.policy_name);
  for (std::size_t k = spec.base_count; k < values.size(); ++k) x.kept.insert(values[k].key());

  run.config.outputs = sweep_outputs(run.config.outputs);
  auto& cluster = x.clusters[run.config.cluster];
  if (!cluster) cluster = std::make_shared<const ClusterSpec>(load_cluster_spec(run.config.cluster));
  run.cluster = cluster;
  run.resolved = resolve_run(run.config, *run.cluster);
  run.workload_key = workload_key(run.config);
  run.id = hex12(fnv1a64(identity(run.resolved, x.sweep_dir)));
  return run;
}

}  // namespace

Sweep load_sweep(const std::string& path, std::size_t max_runs) {
  const SweepSpec spec = read_sweep_file(path, max_runs);
  Sweep sweep;
  sweep.file = path;
  for (const AxisGroup& g : spec.groups)
    for (const Axis& a : g) sweep.swept_keys.push_back(a.key);

  std::size_t total = 1;
  for (const AxisGroup& g : spec.groups) {
    total *= g.front().values.size();
    if (total > max_runs) throw_input_error(path, 0, "", "more than " + std::to_string(max_runs) + " runs");
  }
  std::error_code ec;
  Expansion x(spec, fs::weakly_canonical(fs::absolute(path).parent_path(), ec));
  std::map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < total; ++i) {
    bool left_out_any = false;
    SweepRun run = expand_run(x, i, left_out_any);
    if (auto [it, fresh] = ids.emplace(run.id, sweep.runs.size()); !fresh) {
      if (left_out_any) continue;  // an earlier run's twin once its policy's keys are left out: run once
      throw_input_error(path, 0, "",
                        "runs " + std::to_string(it->second) + " and " + std::to_string(sweep.runs.size()) +
                            " have the same configuration (run id " + run.id + "): is a value repeated in an axis?");
    }
    run.index = sweep.runs.size();
    sweep.runs.push_back(std::move(run));
  }
  for (const auto& [key, value] : x.left_out)
    if (!x.kept.count(key)) {
      std::string valid;
      for (const std::string& p : x.policies) {
        std::string keys;
        for (const std::string& k : x.policy_keys[p]) keys += (keys.empty() ? "" : ", ") + k;
        valid += (valid.empty() ? "" : "; ") + p + ": " + (keys.empty() ? "none" : keys);
      }
      value.fail("not a key of any policy this sweep runs (valid: " + valid + ")");
    }
  return sweep;
}

}  // namespace acme
