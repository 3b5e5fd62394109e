// The sweep and compare commands (declared in app.h).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "io/csv.h"
#include "app/app.h"
#include "app/compare.h"
#include "io/csv_table.h"
#include "sim/error.h"
#include "sim/log.h"
#include "app/process_group.h"
#include "app/sweep.h"
#include "app/wall_clock.h"

namespace acme {
namespace {

// Worker threads for one process: the cores it may run on if it was given a share of the machine
// (taskset, Slurm's cpusets, mpirun's binding), else the machine's cores over its processes.
unsigned default_workers(int processes_on_machine) {
  const unsigned online = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const unsigned allowed = static_cast<unsigned>(CPU_COUNT(&set));
    if (allowed > 0 && allowed < online) return allowed;
  }
  return std::max(1u, online / static_cast<unsigned>(std::max(1, processes_on_machine)));
}

// The runs this process runs: its share of the unfinished runs among the group's processes, or
// with --shard its shard's share of every run, less the finished ones.
std::vector<std::size_t> runs_of_this_process(const SweepArgs& args, const Sweep& sweep,
                                              const std::vector<std::size_t>& todo, ProcessGroup& group) {
  if (!args.shard) return share_of(sweep, todo, group.rank(), group.size());
  if (group.size() > 1)
    throw InputError("--shard " + std::to_string(args.shard->first) + "/" + std::to_string(args.shard->second) +
                     " under an MPI launcher of " + std::to_string(group.size()) +
                     " processes: the ranks split the sweep already; drop --shard or the launcher");
  std::vector<std::size_t> every(sweep.runs.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  std::vector<std::size_t> mine;
  for (std::size_t i : share_of(sweep, every, args.shard->first, args.shard->second))
    if (std::binary_search(todo.begin(), todo.end(), i)) mine.push_back(i);
  return mine;
}

int merge_command(const SweepArgs& args, const Sweep& sweep) {
  const auto t0 = WallClock::now();
  const MergeResult merged = merge_sweep(sweep, args.out_dir);
  log::info("{} runs ok, {} failed, {} missing; merged in {:.3f} s; {}", merged.ok, merged.failed, merged.missing,
            seconds_since(t0), (std::filesystem::path(args.out_dir) / "summary.csv").string());
  return merged.failed + merged.missing > 0 ? 1 : 0;
}

int run_sweep_command(const SweepArgs& args, ProcessGroup& group) {
  const auto t0 = WallClock::now();
  Sweep sweep = load_sweep(args.file);
  if (!args.cache)
    for (SweepRun& run : sweep.runs) run.config.cache_params.push_back(yaml_override("cache.enabled=false"));
  const double expand_s = seconds_since(t0);
  const std::filesystem::path out = args.out_dir;
  create_output_folder(out);
  std::filesystem::create_directories(out / "runs");
  if (args.merge_only) return merge_command(args, sweep);
  const std::vector<std::size_t> todo = unfinished_runs(sweep, out);
  group.barrier();  // every process has listed the unfinished runs before any run starts
  const std::vector<std::size_t> mine = runs_of_this_process(args, sweep, todo, group);
  const unsigned workers = args.jobs ? args.jobs : default_workers(group.local_size());
  if (args.shard)
    log::info("{}: shard {}/{}: {} runs to run x {} worker{}; `--merge` writes summary.csv when every shard is done",
              args.file, args.shard->first, args.shard->second, mine.size(), workers, workers == 1 ? "" : "s");
  else if (group.rank() == 0)
    log::info("{}: {} runs, {} already finished; {} to run on {} process{} x {} worker{}", args.file, sweep.runs.size(),
              sweep.runs.size() - todo.size(), todo.size(), group.size(), group.size() == 1 ? "" : "es", workers,
              workers == 1 ? "" : "s");
  const bool bar = args.progress && group.rank() == 0 && isatty(STDERR_FILENO);
  const RunnerResult ran = run_sweep_runs(sweep, mine, out, RunnerOptions{workers, bar});
  const std::size_t failed = group.sum(ran.failed);  // also waits for every process to finish
  if (args.shard) {
    log::info("shard {}/{}: {} runs ok, {} failed, in {:.2f} s", args.shard->first, args.shard->second, ran.finished,
              ran.failed, ran.seconds);
  } else if (group.rank() == 0) {
    const auto t_merge = WallClock::now();
    const MergeResult merged = merge_sweep(sweep, out);
    log::info("{} runs ok, {} failed, {} missing; expanded and checked in {:.3f} s, ran in {:.2f} s, merged in "
              "{:.3f} s; {}",
              merged.ok, merged.failed, merged.missing, expand_s, ran.seconds, seconds_since(t_merge),
              (out / "summary.csv").string());
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  ProcessGroup group;
  if (group.size() == 1) return run_sweep_command(args, group);
  try {
    return run_sweep_command(args, group);
  } catch (const std::exception& e) {
    group.abort(e.what(), dynamic_cast<const InputError*>(&e) ? 2 : 1);  // the others may be waiting for us
  }
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto bad = [&] { return InputError("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'"); };
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  int i = -1, n = 0;
  const char* end = text.data() + text.size();
  const auto [pi, ei] = std::from_chars(text.data(), text.data() + slash, i);
  const auto [pn, en] = std::from_chars(text.data() + slash + 1, end, n);
  if (ei != std::errc{} || en != std::errc{} || pi != text.data() + slash || pn != end || i < 0 || n < 1 || i >= n)
    throw bad();
  return {i, n};
}

int compare_command(const CompareArgs& args) {
  std::filesystem::path path = args.dir;
  if (std::filesystem::is_directory(path)) path /= "summary.csv";
  const CsvTable table = read_csv(path);
  const CompareOptions options{args.by, args.baseline, args.metrics};
  std::fputs(format_comparison(compare_runs(table, options), options).c_str(), stdout);
  return 0;
}

}  // namespace acme
