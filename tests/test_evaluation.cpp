#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "harness.h"
#include "workloads/evaluation.h"

namespace acme::test {
namespace {

// Three datasets on one node of two GPUs; round numbers so both schedules can be checked by hand.
// model 1 GB = 8 Gb; storage 8 Gb/s: 1 s for a lone loader, 2 s for two at once; PCIe 8 Gb/s: 1 s.
EvalCatalogue three_trials() {
  EvalCatalogue c;
  c.model_gb = 1;
  c.storage_gbps = 8;
  c.pcie_gbps = 8;
  c.metric_workers_per_node = 1;
  c.split_min_s = 60;
  c.datasets = {{"a", 10, 100, 50}, {"b", 10, 40, 20}, {"c", 0, 30, 10}};
  return c;
}

EvalCatalogue shipped() { return load_eval_catalogue((source_dir() / "configs/eval/llm7b_63.yaml").string()); }

JobProfile profile(std::int64_t run, JobState state = JobState::Completed) {
  JobProfile p;
  p.run = Time::seconds(run);
  p.final_state = state;
  return p;
}

Workload mixed_workload() {
  Workload w;
  const Time t0 = kGoldenBase;
  w.add("pre", JobRequest{t0, 4, 1, 64, JobType::Pretrain, 0}, profile(2000));
  w.add("e1", JobRequest{t0 + Time::seconds(10), 1, 1, 16, JobType::Eval, 0}, profile(1000));
  w.add("e8", JobRequest{t0 + Time::seconds(20), 8, 1, 64, JobType::Eval, 0}, profile(500));
  w.add("efail", JobRequest{t0 + Time::seconds(30), 1, 1, 16, JobType::Eval, 0}, profile(300, JobState::Failed));
  w.add("cpu", JobRequest{t0 + Time::seconds(40), 0, 1, 4, JobType::CPU, 0}, profile(100));
  return w;
}

}  // namespace

TEST_CASE("A hand-checked three-trial evaluation has the expected coupled makespan", "[evaluation]") {
  // t=0: a on GPU 0 and b on GPU 1 load together at 4 Gb/s each: both loaded at 2.
  // a: preprocess 2-12, infer 12-112, metric 112-162.  b: preprocess 2-12, infer 12-52, metric 52-72.
  // c starts on GPU 1 at 72, loads alone at 8 Gb/s 72-73, infers 73-103, metric 103-113.
  // Makespan 162; GPUs held 162 + 72 + 41 = 275 s, of which 170 inferring.
  const EvalSchedule s = evaluate(three_trials(), 1, 2, EvalMode::Coupled);
  CHECK(s.makespan_s == Approx(162).margin(1e-9));
  CHECK(s.gpu_held_s == Approx(275).margin(1e-9));
  CHECK(s.gpu_infer_s == Approx(170).margin(1e-9));
  CHECK(s.gpu_idle_s() == Approx(105).margin(1e-9));
  for (const EvalSpan& x : s.spans)
    if (x.dataset == 2 && x.phase == EvalPhase::RemoteLoad) {
      CHECK(x.gpu == 1);
      CHECK(x.start == Approx(72).margin(1e-9));
      CHECK(x.end == Approx(73).margin(1e-9));
    }
}

TEST_CASE("A hand-checked three-trial evaluation has the expected decoupled makespan", "[evaluation]") {
  // The node fetches the model alone: 0-1. GPU work a 110, b 50, c 30; target max(190 / 2, 60) = 95,
  // so a splits into two pieces of 55 (preprocess 5, infer 50, metric 25). LPT: a0 -> GPU 0,
  // a1 -> GPU 1, b -> GPU 0 (tie), c -> GPU 1. Both GPUs load from host memory 1-2.
  // GPU 0: a0 2-57, b 57-107 (held 1-107). GPU 1: a1 2-57, c 57-87 (held 1-87).
  // One metric worker, first come first served: a0 57-82, a1 82-107, c 107-117, b 117-137.
  const EvalSchedule s = evaluate(three_trials(), 1, 2, EvalMode::Decoupled);
  CHECK(s.makespan_s == Approx(137).margin(1e-9));
  CHECK(s.gpu_held_s == Approx(106 + 86).margin(1e-9));
  CHECK(s.gpu_infer_s == Approx(170).margin(1e-9));
  CHECK(s.gpu_idle_s() == Approx(22).margin(1e-9));
  std::vector<double> metric_ends;
  for (const EvalSpan& x : s.spans)
    if (x.phase == EvalPhase::Metric) metric_ends.push_back(x.end);
  CHECK(metric_ends == std::vector<double>{82, 107, 117, 137});
}

TEST_CASE("A decoupled evaluation never holds GPUs during metric computation", "[evaluation]") {
  for (int nodes : {1, 4}) {
    INFO("nodes " << nodes);
    const EvalCatalogue c = shipped();
    const EvalSchedule s = evaluate(c, nodes, 8, EvalMode::Decoupled);
    std::vector<double> first(static_cast<std::size_t>(nodes * 8), 1e300), last(first.size(), 0), busy(first.size(), 0);
    double metric = 0;
    for (const EvalSpan& x : s.spans) {
      if (x.phase == EvalPhase::Metric || x.phase == EvalPhase::Fetch) {
        CHECK(x.gpu == -1);
        metric += x.phase == EvalPhase::Metric ? x.end - x.start : 0;
        continue;
      }
      REQUIRE(x.gpu >= 0);
      const auto g = static_cast<std::size_t>(x.gpu);
      first[g] = std::min(first[g], x.start);
      last[g] = std::max(last[g], x.end);
      busy[g] += x.end - x.start;
    }
    // Each GPU is held from its first phase to its last with no gap: nothing it waits for.
    double held = 0;
    for (std::size_t g = 0; g < first.size(); ++g)
      if (last[g] > 0) {
        CHECK(busy[g] == Approx(last[g] - first[g]));
        held += last[g] - first[g];
      }
    CHECK(held == Approx(s.gpu_held_s));
    double metric_total = 0;
    for (const EvalDataset& d : c.datasets) metric_total += d.metric_s;
    CHECK(metric == Approx(metric_total));
  }
}

TEST_CASE("The 7B, 63-dataset evaluation reproduces the paper's makespan reductions", "[evaluation]") {
  const EvalCatalogue c = shipped();
  REQUIRE(c.datasets.size() == 63);
  const double one = evaluate(c, 1, 8, EvalMode::Coupled).makespan_s / evaluate(c, 1, 8, EvalMode::Decoupled).makespan_s;
  const double four = evaluate(c, 4, 8, EvalMode::Coupled).makespan_s / evaluate(c, 4, 8, EvalMode::Decoupled).makespan_s;
  CHECK(std::abs(one - 1.3) <= 0.15);
  CHECK(std::abs(four - 1.8) <= 0.15);
  // The profile the catalogue was calibrated to: loading + preprocessing 29.5%, metric 19%.
  const EvalShares s = shares_of(c, 8);
  CHECK(s.remote_load + s.preprocess == Approx(0.295).margin(0.01));
  CHECK(s.metric == Approx(0.19).margin(0.01));
  CHECK(1 - s.idle() == Approx(0.5).margin(0.03));
}

TEST_CASE("The compiled default shares are those of the shipped catalogue", "[evaluation]") {
  const EvalShares s = shares_of(shipped(), 8);
  CHECK(s.remote_load == Approx(kDefaultEvalShares.remote_load).margin(5e-5));
  CHECK(s.preprocess == Approx(kDefaultEvalShares.preprocess).margin(5e-5));
  CHECK(s.metric == Approx(kDefaultEvalShares.metric).margin(5e-5));
  CHECK(s.local_load == Approx(kDefaultEvalShares.local_load).margin(5e-5));
}

TEST_CASE("Decoupled evaluation in a replay conserves GPU-seconds and moves metrics off the GPUs", "[evaluation]") {
  const Workload base = mixed_workload();
  const Workload w = transform_evaluation(base, EvalMode::Decoupled, kDefaultEvalShares, 8);
  // One metric job after each COMPLETED Eval GPU job, right after it, with no GPU.
  REQUIRE(w.size() == base.size() + 2);
  CHECK(w.names[2] == "e1#metric");
  CHECK(w.requests[2].gpu_num == 0);
  CHECK(w.requests[2].type == JobType::Eval);
  CHECK(w.requests[2].submit == w.requests[1].submit);
  CHECK(w.profiles[2].run.sec() == static_cast<std::int64_t>(std::ceil(1000 * kDefaultEvalShares.metric)));
  const double factor = 1 - kDefaultEvalShares.remote_load - kDefaultEvalShares.metric + kDefaultEvalShares.local_load;
  CHECK(w.profiles[1].run.sec() == static_cast<std::int64_t>(std::ceil(1000 * factor)));
  CHECK(w.names[5] == "efail");
  CHECK(w.profiles[0].run.sec() == 2000);

  Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
  sim.run();
  const Conservation c = sim.check_conservation();  // throws if GPU-seconds do not add up
  CHECK(c.job_gpu_seconds == c.integral_gpu_seconds);
  std::int64_t metric_gpu_s = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w.requests[i].gpu_num == 0) metric_gpu_s += sim.outcomes()[i].gpu_seconds;
  CHECK(metric_gpu_s == 0);
}

TEST_CASE("Coupled evaluation reports its idle GPU-time as eval_idle waste", "[evaluation]") {
  const Workload base = mixed_workload();
  const Workload& w = base;
  const double idle = eval_idle_share(EvalMode::Coupled, kDefaultEvalShares);
  CHECK(idle == Approx(kDefaultEvalShares.idle()));
  Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
  sim.set_idle_share(JobType::Eval, idle);
  sim.run();
  const Conservation c = sim.check_conservation();
  // e1: 1 GPU x 1000 s, e8: 8 GPUs x 500 s; efail FAILED counts as failed_job instead.
  const auto expected = static_cast<std::int64_t>(1000.0 * idle) + static_cast<std::int64_t>(4000.0 * idle);
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::EvalIdle)] == expected);
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::FailedJob)] == 300);
}

TEST_CASE("A coupled run never copies the workload; a decoupled one does", "[evaluation]") {
  const Workload w = mixed_workload();
  Params off("eval", {yaml_override("eval.idle=false")});
  const EvalSetup coupled = apply_evaluation(w, false, off, 8);
  CHECK_FALSE(coupled.rewritten.has_value());
  CHECK(coupled.idle_share == 0);
  Params on("eval", {});
  const EvalSetup decoupled = apply_evaluation(w, true, on, 8);
  REQUIRE(decoupled.rewritten.has_value());
  CHECK(decoupled.rewritten->size() == w.size() + 2);
  CHECK(decoupled.idle_share == Approx(eval_idle_share(EvalMode::Decoupled, kDefaultEvalShares)));
}

}  // namespace acme::test
