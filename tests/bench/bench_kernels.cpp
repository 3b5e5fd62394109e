// Google Benchmark for the kernels: the event queue, placement, the trace parser, the generator.
#include <benchmark/benchmark.h>

#include <string>

#include "policies/registry.h"
#include "sim/cluster.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/simulation.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/synthetic.h"

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

// Parsing AcmeTrace rows (Seren schema), per row.
void BM_TraceParse(benchmark::State& state) {
  std::string text = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
  for (int i = 0; i < 10000; ++i)
    text += std::to_string(5778432 + i) +
            ",u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 "
            "00:20:51+08:00,117,32,936.0\n";
  for (auto _ : state) benchmark::DoNotOptimize(read_acme_trace_text(text, "bench.csv", {}));
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_TraceParse);

// Generating a day of synthetic Seren and replaying it under FIFO.
void BM_GenerateAndReplayDay(benchmark::State& state) {
  const SyntheticModel m = load_synthetic_model(ACMESIM_SOURCE_DIR "/configs/workloads/seren.yaml");
  const ClusterSpec c = cluster_of(286);
  for (auto _ : state) {
    const Workload w = generate_workload(m, Time::seconds(1677628800), Time::seconds(1677628800 + 86400), 1.0, 1, 8);
    Simulation sim(w, c, make_policy("fifo"), ReplayMode::Policy);
    sim.run();
    state.SetItemsProcessed(static_cast<std::int64_t>(w.size()));
  }
}
BENCHMARK(BM_GenerateAndReplayDay)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace acme

BENCHMARK_MAIN();
