// Google Benchmark for the kernels: the event queue, placement, each policy's decisions, the trace
// parser and the trace cache, the CSV writer and the generator. scripts/bench.sh runs them with
// the whole replays.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "policies/registry.h"
#include "sim/cluster.h"
#include "io/captured_table.h"
#include "io/csv.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/simulation.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/trace_cache.h"
#include "workloads/estimates.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"

namespace acme {
namespace {

ClusterSpec cluster_of(int nodes) {
  ClusterSpec c;
  c.nodes = nodes;
  return c;
}

// Push and pop with a steady queue of `range(0)` events, as in a replay with that many running jobs.
void BM_EventQueue(benchmark::State& state) {
  EventQueue q;
  Rng rng(1);
  for (int i = 0; i < state.range(0); ++i)
    q.push(Time::seconds(static_cast<std::int64_t>(rng.next() % 100000)), EventKind::JobEnd, 0);
  for (auto _ : state) {
    const Event e = q.pop();
    q.push(e.time + Time::seconds(static_cast<std::int64_t>(rng.next() % 100000)), EventKind::JobEnd, e.job);
  }
}
BENCHMARK(BM_EventQueue)->Arg(1000)->Arg(100000);

// Placement (strategy range(2): 0 first fit, 1 best fit, 2 topology), allocation and release of
// a job of `range(1)` GPUs on `range(0)` nodes, every other one half busy.
void BM_Placement(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Cluster c(cluster_of(nodes));
  for (int n = 0; n < nodes; n += 2) c.allocate({{n, 4, 0}});
  JobRequest r;
  r.gpu_num = static_cast<std::int32_t>(state.range(1));
  r.node_num = std::max(1, r.gpu_num / 8);
  const auto strategy = static_cast<PlacementStrategy>(state.range(2));
  for (auto _ : state) {
    auto p = c.find_placement(r, strategy);
    c.allocate(*p);
    c.release(*p);
    benchmark::DoNotOptimize(p);
  }
  state.SetLabel(std::string(kPlacementNames[state.range(2)]));
}
BENCHMARK(BM_Placement)
    ->ArgsProduct({{302}, {1, 8, 1024}, {0, 1, 2}})
    ->ArgsProduct({{10000}, {8, 1024}, {0, 1, 2}});

// Parsing AcmeTrace rows (Seren schema), per row: 10,000 rows on one thread, and 100,000 on one
// and on two (wall time: the second thread is worth it only if it gets a core of its own).
void BM_TraceParse(benchmark::State& state) {
  const auto rows = static_cast<int>(state.range(0));
  std::string text = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
  for (int i = 0; i < rows; ++i)
    text += std::to_string(5778432 + i) + ",u" + std::to_string(5907 + i % 300) +
            ",1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 "
            "00:20:51+08:00,117,32,936.0\n";
  TraceOptions opt;
  opt.threads = static_cast<unsigned>(state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(read_acme_trace_text(text, "bench.csv", opt));
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_TraceParse)->Args({10000, 1})->Args({100000, 1})->Args({100000, 2})->UseRealTime();

// The same rows read from a file, per row: parsed (range(0) 0, cache.enabled false) or mapped from
// the warm trace cache (1; workloads/trace_cache.h).
void BM_TraceFile(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / ("acmesim-bench-trace-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "bench.csv").string();
  {
    std::ofstream out(path);
    out << "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
    for (int i = 0; i < 10000; ++i)
      out << 5778432 + i << ",u" << i % 300 << ",1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 "
          << "00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n";
  }
  TraceCacheSettings cache;
  cache.enabled = state.range(0) == 1;
  cache.dir = (dir / "cache").string();
  read_acme_trace_cached(path, {}, cache);  // builds the cache
  for (auto _ : state) benchmark::DoNotOptimize(read_acme_trace_cached(path, {}, cache));
  state.SetItemsProcessed(state.iterations() * 10000);
  state.SetLabel(cache.enabled ? "warm cache" : "parsed");
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TraceFile)->Arg(0)->Arg(1);

const SyntheticModel& seren_model() {
  static const SyntheticModel m = load_synthetic_model(ACMESIM_SOURCE_DIR "/configs/workloads/seren.yaml");
  return m;
}
constexpr Time kMarch1 = Time::seconds(1677628800);

// Generating a day of synthetic Seren, per job; wall time, since the jobs are drawn on a second
// thread (workloads/synthetic_stream.h).
void BM_GenerateDay(benchmark::State& state) {
  std::size_t jobs = 0;
  for (auto _ : state) {
    const Workload w = generate_workload(seren_model(), kMarch1, kMarch1 + Time::hours(24), 1.0, 1, 8);
    jobs += w.size();
    benchmark::DoNotOptimize(w.requests.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(jobs));
}
BENCHMARK(BM_GenerateDay)->Unit(benchmark::kMillisecond)->UseRealTime();

// Each policy's decisions: two days of synthetic Seren at twice the published load (a queue
// forms), replayed on Seren's 286 nodes, per job. The workload is made once, outside the timing.
void BM_PolicyReplay(benchmark::State& state, const char* policy) {
  static const Workload w = generate_workload(seren_model(), kMarch1, kMarch1 + Time::hours(48), 2.0, 1, 8);
  const ClusterSpec c = cluster_of(286);
  std::vector<Time> estimates;  // the default noisy estimates, for policies that read them
  if (make_policy(policy)->reads_estimates()) {
    Params params("estimate", {});
    estimates = make_estimates(w, params, 1);
  }
  for (auto _ : state) {
    Simulation sim(w, c, make_policy(policy), ReplayMode::Policy, estimates);
    sim.run();
    benchmark::DoNotOptimize(sim.jobs_ended());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(w.size()));
}
BENCHMARK_CAPTURE(BM_PolicyReplay, fifo, "fifo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyReplay, greedy, "greedy")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyReplay, priority, "priority")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyReplay, quota, "quota")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyReplay, backfill, "backfill")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyReplay, sjf, "sjf")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyReplay, srtf, "srtf")->Unit(benchmark::kMillisecond);

// One jobs.csv-like row of 19 cells (4 text, 13 integers, 1 real, 1 blank), per row, written to
// a file or captured typed (io/captured_table.h, what the Python module gets). The job id and
// the user come from vectors of names, as a workload's do; 400 users. Captured rows are expected
// (CsvWriter::expect_rows), as jobs.csv's are. The file is the process's own: ctest runs this
// binary twice at once (bench_smoke, and bench_script_smoke through scripts/bench.sh).
void BM_CsvRow(benchmark::State& state, bool captured) {
  const auto path = std::filesystem::temp_directory_path() / ("acmesim_bench_row." + std::to_string(getpid()) + ".csv");
  TableCapture capture;
  CsvWriter csv(path, captured ? &capture : nullptr);
  for (const char* h : {"job_id", "user", "type", "state", "gpu_num", "node_num", "cpu_num", "submit_s", "start_s",
                        "end_s", "queue_s", "run_s", "gpu_seconds", "preemptions", "wasted_gpu_seconds",
                        "leaves_spanned", "slowdown", "replay_delay_s", "reject_reason"})
    csv.text(h);
  csv.end_row();
  csv.expect_rows(static_cast<std::size_t>(state.max_iterations));
  std::vector<std::string> ids(1 << 16), users(400);
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = std::to_string(5778432 + k);
  for (std::size_t k = 0; k < users.size(); ++k) users[k] = "u" + std::to_string(4096 + 37 * k);
  std::int64_t i = 0;
  for (auto _ : state) {
    const auto k = static_cast<std::size_t>(i);
    csv.text(ids[k % ids.size()]).text(users[k * 7919 % users.size()]).text("Pretrain").text("COMPLETED");
    csv.integer(8).integer(1).integer(128);
    csv.integer(1677628893 + i).integer(1677628900 + i).integer(1677629000 + i).integer(7).integer(100);
    csv.integer(800).integer(0).integer(0).integer(1).real(1.0 + static_cast<double>(i % 7) / 100).blank().text("");
    csv.end_row();
    ++i;
  }
  csv.commit();
  std::filesystem::remove(path);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_CsvRow, file, false);
BENCHMARK_CAPTURE(BM_CsvRow, captured, true);

}  // namespace
}  // namespace acme

BENCHMARK_MAIN();
