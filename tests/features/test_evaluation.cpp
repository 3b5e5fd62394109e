#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "harness.h"
#include "app/app.h"
#include "features/evaluation.h"
#include "io/sinks.h"

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

// Shares with round numbers: remote load 10%, preprocessing 20%, metric 20%, inference 50%.
constexpr EvalShares kRoundShares{0.1, 0.2, 0.2, 0.0};

// The decoupled model of the cluster-level tests: fetch 1 s (8 Gb at 8 Gb/s), load from host
// memory 1 s, one metric worker, evaluations packed onto at most one node of 2 GPUs.
EvalPacking round_packing() {
  EvalPacking p;
  p.model = three_trials();
  p.nodes = 1;
  p.gpus_per_node = 2;
  p.metric_cpus = 8;
  p.cpus_per_node = 64;
  return p;
}

// An evaluation of three COMPLETED one-GPU trials and a FAILED one, submitted 2 s apart, a lone
// trial 94 s later (another evaluation), and a Pretrain job.
Workload two_evaluations() {
  Workload w;
  const Time t0 = kGoldenBase;
  w.add("pre", JobRequest{t0, 4, 1, 16, JobType::Pretrain, 0}, profile(2000));
  w.add("a", JobRequest{t0, 1, 1, 16, JobType::Eval, 0}, profile(200));
  w.add("b", JobRequest{t0 + Time::seconds(2), 1, 1, 16, JobType::Eval, 0}, profile(100));
  w.add("c", JobRequest{t0 + Time::seconds(4), 1, 1, 16, JobType::Eval, 0}, profile(100));
  w.add("fail", JobRequest{t0 + Time::seconds(6), 1, 1, 16, JobType::Eval, 0}, profile(300, JobState::Failed));
  w.add("late", JobRequest{t0 + Time::seconds(100), 1, 1, 16, JobType::Eval, 0}, profile(100));
  return w;
}

TEST_CASE("Eval GPU jobs submitted close together are one evaluation", "[evaluation]") {
  const EvaluationIndex index = group_evaluations(two_evaluations(), Time::seconds(10));
  const auto none = EvaluationIndex::kNone;
  CHECK(index.of_job == std::vector<std::uint32_t>{none, 0, 0, 0, 0, 1});
  CHECK(index.trials == std::vector<std::uint32_t>{4, 1});
  // With a gap of 1 s every trial is an evaluation of its own.
  CHECK(group_evaluations(two_evaluations(), Time::seconds(1)).trials.size() == 5);
}

TEST_CASE("Eval GPU jobs out of submit order are grouped in submit order", "[evaluation]") {
  // two_evaluations()'s jobs with the late trial first in the workload: grouping starts in the
  // jobs' own order, finds the next trial submitted earlier, and begins again sorted.
  const Workload in_order = two_evaluations();
  Workload w;
  for (const JobId j : {0u, 5u, 1u, 2u, 3u, 4u})
    w.add(in_order.names[j], in_order.requests[j], in_order.profiles[j]);
  const EvaluationIndex index = group_evaluations(w, Time::seconds(10));
  const auto none = EvaluationIndex::kNone;
  CHECK(index.of_job == std::vector<std::uint32_t>{none, 1, 0, 0, 0, 0});
  CHECK(index.trials == std::vector<std::uint32_t>{4, 1});
}

TEST_CASE("A decoupled evaluation on the cluster is packed by hand-checked numbers", "[evaluation]") {
  // Trials a, b, c: preprocess 40/20/20 s, inference 100/50/50 s, metric 40/20/20 s. GPU work
  // 140, 70, 70 on 2 GPUs: target max(280 / 2, 60) = 140, nothing split; LPT: GPU 0 runs a,
  // GPU 1 runs b then c. Fetch 0-1 s, local load 1-2 s; GPU 0: a 2-142; GPU 1: b 2-72, c 72-142.
  // Metric tasks on one worker by release: b 72-92, a 142-182, c 182-202. The packed job runs
  // 142 s on 2 GPUs (200 of 284 GPU-seconds inferring); the metric tail runs 60 s with two tasks
  // still running (16 cores). "fail" stays one job: 300 x 0.7 = 210 s. "late" alone on one GPU:
  // 1 + 1 + 20 + 50 = 72 s, then 20 s of metric.
  const Workload base = two_evaluations();
  const EvalRewrite r = decouple_evaluations(base, group_evaluations(base, Time::seconds(10)), kRoundShares,
                                             round_packing());
  const Workload& w = r.workload;
  REQUIRE(w.size() == 6);
  const std::vector<std::string> names = {"pre", "a#eval3", "a#metric", "fail", "late#eval1", "late#metric"};
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(w.names[static_cast<std::uint32_t>(i)] == names[i]);
  CHECK(w.requests[1].gpu_num == 2);
  CHECK(w.requests[1].cpu_num == 32);
  CHECK(w.requests[1].submit == kGoldenBase + Time::seconds(4));
  CHECK(w.profiles[1].run.sec() == 142);
  CHECK(w.profiles[1].idle_share == Approx(1 - 200.0 / 284));
  CHECK(w.requests[2].gpu_num == 0);
  CHECK(w.requests[2].cpu_num == 16);
  CHECK(w.profiles[2].run.sec() == 60);
  CHECK(w.after[2] == 1);
  CHECK(w.profiles[3].run.sec() == 210);
  CHECK(w.profiles[3].idle_share == Approx(0.2 / 0.7));
  CHECK(w.profiles[4].run.sec() == 72);
  CHECK(w.profiles[5].run.sec() == 20);
  CHECK(r.index.of_job == std::vector<std::uint32_t>{EvaluationIndex::kNone, 0, 0, 0, 1, 1});
  CHECK(r.index.trials == std::vector<std::uint32_t>{4, 1});

  // Replayed: the packed job 4-146 s, its metric tail 146-206, "fail" 6-216 (greedy, one node
  // with cores enough for every job at once).
  const ClusterSpec cluster = small_cluster(1, 8, 128);
  Simulation sim(w, cluster, make_policy("greedy"), ReplayMode::Policy);
  sim.run();
  const Conservation c = sim.check_conservation();
  const auto& o = sim.outcomes();
  const Time t0 = kGoldenBase;
  CHECK(o[1].end == t0 + Time::seconds(146));
  CHECK(submitted(w, o, 2) == t0 + Time::seconds(146));
  CHECK(o[2].end == t0 + Time::seconds(206));
  CHECK(o[3].end == t0 + Time::seconds(216));
  CHECK(o[2].gpu_seconds == 0);
  CHECK(o[5].gpu_seconds == 0);
  const auto idle = [&](std::size_t j) {
    return static_cast<std::int64_t>(static_cast<double>(o[j].gpu_seconds) * w.profiles[j].idle_share);
  };
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::EvalIdle)] == idle(1) + idle(4));
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::FailedJob)] == 210);

  // evaluations.csv: evaluation 0 runs from 4 s (the packed job's submission) to 216 s ("fail").
  const auto dir = temp_dir("evaluations_sink");
  const RunRecord record{w, cluster, ReplayMode::Policy, o, {}, c, sim.window_gpu_seconds(), &r.index};
  make_sink("evaluations", SinkSettings{dir})->finish(record);
  const std::vector<std::string> rows = lines_of(read_file(dir / "evaluations.csv"));
  const std::int64_t s0 = t0.sec();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == "evaluation,first_job,trials,jobs,jobs_completed,submit_s,end_s,makespan_s,gpu_seconds,wasted_gpu_seconds");
  CHECK(rows[1] == "0,a#eval3,4,3,2," + std::to_string(s0 + 4) + "," + std::to_string(s0 + 216) + ",212,494," +
                       std::to_string(idle(1) + 210));
  CHECK(rows[2] == "1,late#eval1,1,2,2," + std::to_string(s0 + 100) + "," + std::to_string(s0 + 192) + ",92,72," +
                       std::to_string(idle(4)));
}

TEST_CASE("A decoupled evaluation may be packed onto several nodes", "[evaluation]") {
  // Five trials of 100 s, nodes of 2 GPUs, at most 2 nodes: 4 GPUs, 2 per node. Work 70 s each,
  // target max(350 / 4, 60) = 87.5: nothing split; LPT puts two on GPU 0. Both nodes fetch at
  // once (2 s), load locally (1 s): GPU 0 is done at 2 + 1 + 70 + 70 = 143 s.
  Workload base;
  for (int k = 0; k < 5; ++k)
    base.add("t" + std::to_string(k), JobRequest{kGoldenBase + Time::seconds(k), 1, 1, 4, JobType::Eval, 0}, profile(100));
  EvalPacking packing = round_packing();
  packing.nodes = 2;
  const EvalRewrite r = decouple_evaluations(base, group_evaluations(base, Time::seconds(10)), kRoundShares, packing);
  REQUIRE(r.workload.size() == 2);
  CHECK(r.workload.names[0] == "t0#eval5");
  CHECK(r.workload.requests[0].gpu_num == 4);
  CHECK(r.workload.requests[0].node_num == 2);
  CHECK(r.workload.requests[0].cpu_num == 16);
  CHECK(r.workload.profiles[0].run.sec() == 143);
}

// Sets Eval's idle share at the run's beginning, as the evaluation feature (features/eval.cpp) does.
class EvalIdleShare final : public Feature {
 public:
  explicit EvalIdleShare(double share) : share_(share) {}
  unsigned hooks() const override { return 0; }
  void begin(const FeatureRun& run) override { run.control.set_idle_share(JobType::Eval, share_); }

 private:
  double share_;
};

TEST_CASE("Coupled evaluation reports its idle GPU-time as eval_idle waste", "[evaluation]") {
  const Workload w = mixed_workload();
  const double idle = kRoundShares.idle();
  CHECK(idle == Approx(0.5));
  Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(std::make_unique<EvalIdleShare>(idle));
  sim.run();
  const Conservation c = sim.check_conservation();
  // e1: 1 GPU x 1000 s, e8: 8 GPUs x 500 s; efail FAILED counts as failed_job instead.
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::EvalIdle)] == 500 + 2000);
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::FailedJob)] == 300);
}

TEST_CASE("A coupled run never copies the workload; a decoupled one does", "[evaluation]") {
  const Workload w = two_evaluations();
  const std::string shipped_path = (source_dir() / "configs/eval/llm7b_63.yaml").string();
  const ClusterSpec cluster = small_cluster(1);
  Params off("eval", {yaml_override("eval.idle=false")});
  const EvalSetup coupled = apply_evaluation(w, read_eval_settings(off, false, cluster, shipped_path), false);
  CHECK_FALSE(coupled.rewritten.has_value());
  CHECK_FALSE(coupled.index.has_value());
  CHECK(coupled.idle_share == 0);
  Params indexed("eval", {});
  const EvalSetup with_index = apply_evaluation(w, read_eval_settings(indexed, false, cluster, shipped_path), true);
  CHECK_FALSE(with_index.rewritten.has_value());
  REQUIRE(with_index.index.has_value());
  CHECK(with_index.index->trials.size() == 2);
  CHECK(with_index.idle_share == Approx(kDefaultEvalShares.idle()));
  Params on("eval", {});
  const EvalSetup decoupled = apply_evaluation(w, read_eval_settings(on, true, cluster, shipped_path), false);
  REQUIRE(decoupled.rewritten.has_value());
  CHECK(decoupled.rewritten->size() == 6);
  CHECK(decoupled.idle_share == 0);  // each rewritten job carries its own
}

// Of an evaluations.csv row: its evaluation and its trials (the first and third columns).
std::string evaluation_and_trials(const std::string& row) {
  const std::size_t a = row.find(','), b = row.find(',', a + 1), c = row.find(',', b + 1);
  return row.substr(0, a) + "," + row.substr(b + 1, c - b - 1);
}

// Two days of Seren under fifo into `dir` with `settings`; returns evaluations.csv's rows.
std::vector<std::string> evaluations_of_seren(const std::filesystem::path& dir, std::vector<std::string> settings) {
  RunArgs args;
  args.config = (source_dir() / "configs/seren.yaml").string();
  args.overrides = {"policy.name=fifo", "workload.to=2023-03-03", "outputs=jobs,evaluations"};
  args.overrides.insert(args.overrides.end(), settings.begin(), settings.end());
  args.out_dir = dir.string();
  args.progress = false;
  REQUIRE(run_command(args) == 0);
  return lines_of(read_file(dir / "evaluations.csv"));
}

TEST_CASE("Through the run builder, the evaluation feature rewrites a decoupled run and indexes a fed one",
          "[evaluation]") {
  const auto dir = temp_dir("eval-feature");
  // Coupled under fifo, the jobs come as the run goes: the evaluations are found at its end.
  const std::vector<std::string> coupled = evaluations_of_seren(dir / "coupled", {});
  REQUIRE(coupled.size() > 100);
  CHECK(read_file(dir / "coupled" / "jobs.csv").find("#eval") == std::string::npos);
  // Decoupled, the run replays the rewritten workload: the same evaluations, each now a packed
  // job and its metric job.
  const std::vector<std::string> decoupled = evaluations_of_seren(dir / "decoupled", {"eval=decoupled"});
  CHECK(decoupled.size() == coupled.size());
  const std::string jobs = read_file(dir / "decoupled" / "jobs.csv");
  CHECK(jobs.find("#eval") != std::string::npos);
  CHECK(jobs.find("#metric") != std::string::npos);
  for (std::size_t i = 1; i < std::min(coupled.size(), decoupled.size()); ++i)
    CHECK(evaluation_and_trials(coupled[i]) == evaluation_and_trials(decoupled[i]));
}

}  // namespace acme::test
