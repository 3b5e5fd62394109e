#include "sim/app/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "sim/app/app.h"
#include "sim/io/csv.h"
#include "sim/io/csv_table.h"
#include "sim/error.h"
#include "sim/log.h"
#include "workloads/registry.h"
#include "sim/io/cluster_file.h"

namespace acme {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

// "+08:00" at the end of a timestamp, in seconds; 0 for a date or "Z".
int utc_offset_of(const std::string& text) {
  if (text.size() < 6) return 0;
  const std::string tail = text.substr(text.size() - 6);
  if ((tail[0] != '+' && tail[0] != '-') || tail[3] != ':') return 0;
  const int seconds = std::stoi(tail.substr(1, 2)) * 3600 + std::stoi(tail.substr(4, 2)) * 60;
  return tail[0] == '-' ? -seconds : seconds;
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
  const int offset = utc_offset_of(from_v.as_string());
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
  spec.fixed = std::move(base);
  spec.fixed.insert(spec.fixed.end(), set.begin(), set.end());
  return spec;
}

// ---- Resolving one run ----------------------------------------------------------------------


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

// ---- Running --------------------------------------------------------------------------------

// `todo` with the runs of one workload next to each other, workloads in order of first use.
std::vector<std::size_t> grouped(const Sweep& sweep, std::span<const std::size_t> todo) {
  std::map<std::string, std::size_t> first;
  for (const SweepRun& r : sweep.runs) first.emplace(r.workload_key, r.index);
  std::vector<std::size_t> out(todo.begin(), todo.end());
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return first.at(sweep.runs[a].workload_key) < first.at(sweep.runs[b].workload_key);
  });
  return out;
}

std::string format_duration(double s) {
  const long long t = static_cast<long long>(s + 0.5);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lld:%02lld", t / 60, t % 60);
  return buf;
}

// Runs done, failed and the time left, on one stderr line; failures as lines of their own.
class ProgressBar {
 public:
  ProgressBar(std::size_t total, bool draw) : total_(total), draw_(draw), t0_(Clock::now()) {}

  void run_ended(const SweepRun& run, const std::optional<std::string>& error) {
    std::lock_guard lock(mu_);
    ++done_;
    if (error) {
      ++failed_;
      clear();
      log::warn("run {} ({}) failed: {}", run.index, run.id, *error);
    }
    const auto now = Clock::now();
    if (draw_ && (done_ == total_ || now - last_ > std::chrono::milliseconds(100))) {
      last_ = now;
      const double elapsed = seconds_since(t0_);
      const double left = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
      constexpr int kWidth = 30;
      const int filled = static_cast<int>(kWidth * done_ / std::max<std::size_t>(total_, 1));
      std::fprintf(stderr, "\r  [%s%s] %zu/%zu runs, %zu failed, %s elapsed, %s left ",
                   std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), done_, total_,
                   failed_, format_duration(elapsed).c_str(), format_duration(left).c_str());
      drawn_ = true;
    }
  }
  void finish() {
    std::lock_guard lock(mu_);
    if (drawn_) std::fputc('\n', stderr);
    drawn_ = false;
  }

 private:
  void clear() {
    if (drawn_) std::fprintf(stderr, "\r%*s\r", 100, "");
  }
  std::mutex mu_;
  std::size_t total_, done_ = 0, failed_ = 0;
  bool draw_, drawn_ = false;
  Clock::time_point t0_, last_{};
};

// Workloads loaded on first use and dropped after their last run; the runs of one workload are
// next to each other in the order the workers take them, so few are alive at once.
class WorkloadCache {
 public:
  using Ptr = std::shared_ptr<const Workload>;
  WorkloadCache(const Sweep& sweep, std::span<const std::size_t> order) {
    for (std::size_t i : order) ++entries_[sweep.runs[i].workload_key].runs_left;
  }

  // The run's workload, loaded by the first caller while the others wait; rethrows its error.
  Ptr acquire(const SweepRun& run) {
    std::unique_lock lock(mu_);
    Entry& e = entries_.at(run.workload_key);
    if (e.future.valid()) {
      auto f = e.future;
      lock.unlock();
      return f.get();
    }
    std::promise<Ptr> promise;
    e.future = promise.get_future().share();
    auto f = e.future;
    lock.unlock();
    try {
      promise.set_value(std::make_shared<const Workload>(load_workload(run.config, *run.cluster)));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    return f.get();
  }

  void release(const SweepRun& run) {
    std::lock_guard lock(mu_);
    Entry& e = entries_.at(run.workload_key);
    if (--e.runs_left == 0) e.future = {};
  }

 private:
  struct Entry {
    std::shared_future<Ptr> future;
    std::size_t runs_left = 0;
  };
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

fs::path with_suffix(fs::path p, const char* suffix) {
  p += suffix;
  return p;
}

// One run into <id>.partial, renamed to <id> when every output is written. Returns the error of
// a run that failed, after leaving it in <id>.failed.
std::optional<std::string> attempt(const SweepRun& run, const fs::path& out_dir, WorkloadCache& cache) {
  const fs::path final_dir = run_dir(out_dir, run);
  const fs::path partial = with_suffix(final_dir, ".partial"), failed = with_suffix(final_dir, ".failed");
  fs::remove_all(partial);
  fs::remove(failed);
  std::string error;
  try {
    const auto workload = cache.acquire(run);
    execute_run(run.config, *run.cluster, *workload, partial, false);
    fs::rename(partial, final_dir);
    return std::nullopt;
  } catch (const std::logic_error& e) {
    error = std::string("internal error: ") + e.what();
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::error_code ignored;
  fs::remove_all(partial, ignored);
  OutputFile file(failed);
  file.write(error + "\n");
  file.commit();
  return error;
}

// ---- Merging --------------------------------------------------------------------------------

std::string read_text(const fs::path& p) {
  std::string text;
  if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

struct RunState {
  std::string status;  // ok, failed or missing
  std::string error;
};

RunState state_of(const SweepRun& run, const fs::path& out_dir) {
  const fs::path dir = run_dir(out_dir, run);
  if (fs::is_directory(dir)) return {"ok", ""};
  const fs::path failed = with_suffix(dir, ".failed");
  if (fs::exists(failed)) return {"failed", read_text(failed)};
  return {"missing", "not run yet"};
}

// One merged file: the swept keys, run_id, status and error, then the union of the runs' columns.
void merge_file(const Sweep& sweep, const std::vector<RunState>& states, const fs::path& out_dir,
                const std::string& name) {
  std::vector<std::optional<CsvTable>> tables(sweep.runs.size());
  std::vector<std::string> rest;
  std::set<std::string> seen(sweep.swept_keys.begin(), sweep.swept_keys.end());
  seen.insert({"run_id", "status", "error"});
  auto add_column = [&](const std::string& c) {
    if (seen.insert(c).second) rest.push_back(c);
  };
  for (const SweepRun& run : sweep.runs) {
    if (states[run.index].status == "ok") {
      tables[run.index] = read_csv(run_dir(out_dir, run) / name);
      for (const std::string& c : tables[run.index]->header) add_column(c);
    } else {
      for (const auto& kv : run.resolved) add_column(kv.first);
    }
  }

  CsvWriter csv(out_dir / name);
  for (const std::string& k : sweep.swept_keys) csv.text(k);
  csv.text("run_id").text("status").text("error");
  for (const std::string& c : rest) csv.text(c);
  csv.end_row();
  for (const SweepRun& run : sweep.runs) {
    auto resolved = [&](const std::string& key) -> std::string {
      for (const auto& [k, v] : run.resolved)
        if (k == key) return v;
      return "";
    };
    auto head = [&] {
      for (const std::string& v : run.swept) csv.text(v);
      csv.text(run.id).text(states[run.index].status).text(states[run.index].error);
    };
    if (!tables[run.index]) {
      head();
      for (const std::string& c : rest) csv.text(resolved(c));
      csv.end_row();
      continue;
    }
    const CsvTable& t = *tables[run.index];
    std::vector<std::optional<std::size_t>> where;
    for (const std::string& c : rest) where.push_back(t.column(c));
    for (const auto& row : t.rows) {
      head();
      for (const auto& w : where) csv.text(w ? row[*w] : std::string());
      csv.end_row();
    }
  }
  csv.commit();
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
  const fs::path sweep_dir = fs::weakly_canonical(fs::absolute(path).parent_path(), ec);
  std::map<std::string, std::shared_ptr<const ClusterSpec>> clusters;
  std::map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < total; ++i) {
    std::vector<YamlValue> values = spec.fixed;
    std::size_t rest = i;
    std::vector<std::size_t> digit(spec.groups.size());
    for (std::size_t g = spec.groups.size(); g-- > 0;) {
      digit[g] = rest % spec.groups[g].front().values.size();
      rest /= spec.groups[g].front().values.size();
    }
    SweepRun run;
    run.index = i;
    for (std::size_t g = 0; g < spec.groups.size(); ++g)
      for (const Axis& a : spec.groups[g]) {
        values.push_back(a.values[digit[g]]);
        run.swept.push_back(values.back().as_string());
      }

    run.config = make_run_config(values);
    run.config.outputs = sweep_outputs(run.config.outputs);
    auto& cluster = clusters[run.config.cluster];
    if (!cluster) cluster = std::make_shared<const ClusterSpec>(load_cluster_spec(run.config.cluster));
    run.cluster = cluster;
    run.resolved = resolve_run(run.config, *run.cluster);
    run.workload_key = workload_key(run.config);
    run.id = hex12(fnv1a64(identity(run.resolved, sweep_dir)));
    if (auto [it, fresh] = ids.emplace(run.id, i); !fresh)
      throw_input_error(path, 0, "",
                        "runs " + std::to_string(it->second) + " and " + std::to_string(i) +
                            " have the same configuration (run id " + run.id + "): is a value repeated in an axis?");
    sweep.runs.push_back(std::move(run));
  }
  return sweep;
}

fs::path run_dir(const fs::path& out_dir, const SweepRun& run) { return out_dir / "runs" / run.id; }

std::vector<std::size_t> unfinished_runs(const Sweep& sweep, const fs::path& out_dir) {
  std::vector<std::size_t> out;
  for (const SweepRun& r : sweep.runs)
    if (!fs::is_directory(run_dir(out_dir, r))) out.push_back(r.index);
  return out;
}

std::vector<std::size_t> share_of(const Sweep& sweep, std::span<const std::size_t> todo, int process,
                                  int processes) {
  const std::vector<std::size_t> order = grouped(sweep, todo);
  const std::size_t n = order.size(), k = static_cast<std::size_t>(processes), p = static_cast<std::size_t>(process);
  const std::size_t begin = p * (n / k) + std::min(p, n % k);
  const std::size_t end = begin + n / k + (p < n % k ? 1 : 0);
  return {order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end)};
}

RunnerResult run_sweep_runs(const Sweep& sweep, std::span<const std::size_t> todo, const fs::path& out_dir,
                            const RunnerOptions& options) {
  const auto t0 = Clock::now();
  const std::vector<std::size_t> order = grouped(sweep, todo);
  fs::create_directories(out_dir / "runs");
  WorkloadCache cache(sweep, order);
  ProgressBar bar(order.size(), options.progress);
  std::atomic<std::size_t> next{0}, failed{0};
  std::mutex fatal_mu;
  std::exception_ptr fatal;  // a problem outside any run (the output folder cannot be written)

  auto work = [&] {
    for (std::size_t k; (k = next++) < order.size();) {
      const SweepRun& run = sweep.runs[order[k]];
      try {
        const auto error = attempt(run, out_dir, cache);
        cache.release(run);
        failed += error.has_value();
        bar.run_ended(run, error);
      } catch (...) {
        std::lock_guard lock(fatal_mu);
        if (!fatal) fatal = std::current_exception();
        next = order.size();
      }
    }
  };
  unsigned workers = options.workers ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, std::max<std::size_t>(order.size(), 1)));
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  bar.finish();
  if (fatal) std::rethrow_exception(fatal);
  return {order.size() - failed, failed, seconds_since(t0)};
}

MergeResult merge_sweep(const Sweep& sweep, const fs::path& out_dir) {
  fs::create_directories(out_dir / "runs");
  for (const auto& entry : fs::directory_iterator(out_dir / "runs"))
    if (entry.path().extension() == ".partial") fs::remove_all(entry.path());
  std::vector<RunState> states;
  MergeResult result;
  for (const SweepRun& run : sweep.runs) {
    states.push_back(state_of(run, out_dir));
    const std::string& s = states.back().status;
    ++(s == "ok" ? result.ok : s == "failed" ? result.failed : result.missing);
  }
  merge_file(sweep, states, out_dir, "summary.csv");
  merge_file(sweep, states, out_dir, "summary_by_type.csv");
  return result;
}

MergeResult run_sweep(const Sweep& sweep, const fs::path& out_dir, const RunnerOptions& options) {
  const std::vector<std::size_t> todo = unfinished_runs(sweep, out_dir);
  run_sweep_runs(sweep, todo, out_dir, options);
  return merge_sweep(sweep, out_dir);
}

}  // namespace acme
