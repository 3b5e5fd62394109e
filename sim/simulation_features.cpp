// The Simulation's model features (sim/feature.h): adding them, their beginning, and what they
// may do to the run (FeatureControl).
#include <bit>
#include <stdexcept>

#include "sim/simulation.h"

namespace acme {

class Simulation::Control final : public FeatureControl {
 public:
  // `timed`: the feature's place among those with Feature::kTimed (its events' tag), if it has it.
  Control(Simulation& sim, std::optional<std::uint32_t> timed) : sim_(sim), timed_(timed) {}
  Time now() const override { return sim_.now_; }
  const Cluster& cluster() const override { return sim_.cluster_; }
  const Topology& topology() const override { return sim_.topology_; }
  void at(Time t, std::uint32_t id) override {
    if (t < sim_.now_) throw std::logic_error("feature bug: FeatureControl::at a time already past");
    if (!timed_) throw std::logic_error("feature bug: FeatureControl::at from a feature without Feature::kTimed");
    sim_.events_.push(t, EventKind::FeatureTimed, id, *timed_);
  }
  void hold(const std::vector<int>& nodes, Vacate how) override { sim_.hold_nodes(nodes, how); }
  void release(const std::vector<int>& nodes) override { sim_.release_nodes(nodes); }
  std::optional<std::size_t> take_switch_down(int sw) override { return sim_.switch_down(sw); }
  void bring_switch_up(std::size_t fault) override { sim_.switch_up(fault); }
  void set_network_factor(JobId job, double factor, bool retime) override {
    sim_.set_network_factor(job, factor, retime);
  }
  const Placement& placement_of(JobId job) const override { return sim_.placement_of(job); }
  void set_clock(double clock) override { sim_.set_clock(clock); }
  void set_idle_share(JobType t, double share) override { sim_.idle_share_[static_cast<std::size_t>(t)] = share; }

 private:
  Simulation& sim_;
  std::optional<std::uint32_t> timed_;
};

void Simulation::add_feature(std::unique_ptr<Feature> feature) {
  if (began_) throw std::logic_error("Simulation::add_feature after the first step");
  if (!feature) return;  // off (a factory's none)
  Feature* f = feature.get();
  if (const FailureModel* m = f->failure_model()) {
    if (failures_) throw std::logic_error("two features give the run a failure model");
    set_failures(*m);
  }
  f->attached(topology_);
  const unsigned hooks = f->hooks();
  if (hooks & Feature::kPlaced) on_placed_.push_back(f);
  if (hooks & Feature::kJobsAdded) on_jobs_added_.push_back(f);
  if (hooks & Feature::kTimed) on_timed_.push_back(f);
  if (hooks & Feature::kStepped) on_stepped_.push_back(f);
  if (hooks & Feature::kStepping) on_stepping_.push_back(f);
  if (hooks & Feature::kEnded) on_ended_.push_back(f);
  if (hooks & Feature::kHeld) on_held_.push_back(f);
  if (hooks & Feature::kRouted) on_routed_.push_back(f);
  if (hooks & Feature::kTrained) on_trained_.push_back(f);
  if (hooks & Feature::kPaced) {
    on_paced_.push_back(f);
    // A feature that only stops runs (time limits) slows none: it need name no cause.
    if (f->waste_causes() != 0) pace_cause_ = static_cast<WasteCause>(std::countr_zero(f->waste_causes()));
  }
  causes_listed_ |= f->waste_causes();
  if (!first_launches_) first_launches_ = f->first_launches();
  features_.push_back(std::move(feature));
}

void Simulation::begin_features() {
  began_ = true;
  std::uint32_t timed = 0;
  for (const auto& f : features_) {
    const bool has = f->hooks() & Feature::kTimed;
    controls_.push_back(std::make_unique<Control>(*this, has ? std::optional(timed++) : std::nullopt));
    f->begin({workload_, growth_, feed_ ? status_.capacity() : workload_.size(), *controls_.back()});
  }
}

std::optional<std::size_t> Simulation::switch_down(int sw) {
  for (Feature* f : on_routed_)
    if (const auto fault = f->switch_down(sw)) return fault;
  return std::nullopt;
}

void Simulation::switch_up(std::size_t fault) {
  for (Feature* f : on_routed_) f->switch_up(fault);
}

}  // namespace acme
