#include "app/sweep.h"

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

#include "app/app.h"
#include "app/wall_clock.h"
#include "io/csv.h"
#include "io/csv_table.h"
#include "sim/error.h"
#include "sim/log.h"
#include "workloads/registry.h"
#include "io/cluster_file.h"

namespace acme {
namespace fs = std::filesystem;

namespace {

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
  ProgressBar(std::size_t total, bool draw) : total_(total), draw_(draw), t0_(WallClock::now()) {}

  void run_ended(const SweepRun& run, const std::optional<std::string>& error) {
    std::lock_guard lock(mu_);
    ++done_;
    if (error) {
      ++failed_;
      clear();
      log::warn("run {} ({}) failed: {}", run.index, run.id, *error);
    }
    const auto now = WallClock::now();
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
  WallClock::time_point t0_, last_{};
};

// Workloads loaded on first use and dropped after their last run; the runs of one workload are
// next to each other in the order the workers take them, so few are alive at once.
class WorkloadCache {
 public:
  using Ptr = std::shared_ptr<const Workload>;
  WorkloadCache(const Sweep& sweep, std::span<const std::size_t> order) {
    for (std::size_t i : order) ++entries_[sweep.runs[i].workload_key].runs_left;
  }

  // The run's workload, loaded by the first caller (reading on `threads`) while the others wait;
  // rethrows its error.
  Ptr acquire(const SweepRun& run, unsigned threads) {
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
      RunConfig config = run.config;
      config.threads = threads;
      promise.set_value(std::make_shared<const Workload>(load_workload(config, *run.cluster)));
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

// One run into <id>.partial, renamed to <id> when every output is written, on `threads` (its
// share of the cores). Returns the error of a run that failed, after leaving it in <id>.failed.
std::optional<std::string> attempt(const SweepRun& run, const fs::path& out_dir, WorkloadCache& cache,
                                   unsigned threads) {
  const fs::path final_dir = run_dir(out_dir, run);
  const fs::path partial = with_suffix(final_dir, ".partial"), failed = with_suffix(final_dir, ".failed");
  fs::remove_all(partial);
  fs::remove(failed);
  std::string error;
  try {
    const auto workload = cache.acquire(run, threads);
    RunConfig config = run.config;
    config.threads = threads;
    execute_run(config, *run.cluster, *workload, partial, false);
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
  const auto t0 = WallClock::now();
  const std::vector<std::size_t> order = grouped(sweep, todo);
  fs::create_directories(out_dir / "runs");
  WorkloadCache cache(sweep, order);
  ProgressBar bar(order.size(), options.progress);
  std::atomic<std::size_t> next{0}, failed{0};
  std::mutex fatal_mu;
  std::exception_ptr fatal;  // a problem outside any run (the output folder cannot be written)

  unsigned workers = options.workers ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, std::max<std::size_t>(order.size(), 1)));
  // Each run reads and writes on its share of the cores: workers already use them all.
  const unsigned threads_per_run = std::max(1u, usable_cores() / workers);
  auto work = [&] {
    for (std::size_t k; (k = next++) < order.size();) {
      const SweepRun& run = sweep.runs[order[k]];
      try {
        const auto error = attempt(run, out_dir, cache, threads_per_run);
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
