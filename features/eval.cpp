// Evaluation, coupled or decoupled: a model feature (sim/feature.h) whose model is
// features/evaluation.h. Its keys are eval.* (and the run's `eval` key, coupled or decoupled).
// Always on: coupled (as traced), each Eval job's GPUs sit idle for the catalogue's share of its
// compute (waste eval_idle, FeatureControl::set_idle_share); decoupled, it rewrites the workload
// before the run (rewrite: evaluations packed onto nodes, metrics in CPU-only jobs), so the run
// needs its whole workload first. With the evaluations output on, it gives the outputs each Eval
// job's evaluation (evaluations.csv): the rewrite's, or found in the workload (at the run's end
// when its jobs came as it went: hooks jobs_added, ended).
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "features/evaluation.h"
#include "io/config.h"
#include "io/feature_registry.h"

namespace acme {
namespace {

class EvalFeature final : public Feature {
 public:
  EvalFeature(EvalSettings settings, bool index) : s_(std::move(settings)), index_wanted_(index) {}
  // Only to find the evaluations of jobs that came as the run went, at its end.
  unsigned hooks() const override { return index_wanted_ && !s_.decoupled ? kJobsAdded | kEnded : 0u; }

  std::optional<Workload> rewrite(const Workload& workload) override {
    EvalSetup setup = apply_evaluation(workload, s_, index_wanted_);
    idle_share_ = setup.idle_share;
    index_ = std::move(setup.index);
    return std::move(setup.rewritten);
  }
  bool needs_whole_workload() const override { return s_.decoupled; }

  void begin(const FeatureRun& run) override {
    workload_ = &run.workload;
    run.control.set_idle_share(JobType::Eval, idle_share_);
  }
  void jobs_added() override { fed_ = true; }
  void ended(Time) override {
    if (fed_) index_ = apply_evaluation(*workload_, s_, true).index;  // every job is there now
  }
  const EvaluationIndex* evaluations() const override { return index_ ? &*index_ : nullptr; }

 private:
  const EvalSettings s_;
  const bool index_wanted_;  // the evaluations output is on
  double idle_share_ = 0;
  std::optional<EvaluationIndex> index_;
  const Workload* workload_ = nullptr;
  bool fed_ = false;  // jobs came as the run went: the index is made again at its end
};

std::unique_ptr<Feature> make_eval(Params& params, const FeatureSetup& setup) {
  const ClusterSpec cluster = setup.cluster ? *setup.cluster : ClusterSpec{};
  EvalSettings s =
      read_eval_settings(params, setup.eval_decoupled, cluster, (setup.configs / "eval" / "llm7b_63.yaml").string());
  bool index = false;
  for (const std::string& name : split_commas(setup.outputs)) index |= name == "evaluations";
  return std::make_unique<EvalFeature>(std::move(s), index);
}

// Before the other features: its keys are listed where they always were, after network.*.
const FeatureRegistrar kEval({"eval", "Evaluation (eval: coupled | decoupled, eval.*)", make_eval, 5});

}  // namespace
}  // namespace acme
