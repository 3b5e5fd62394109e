// The Simulation's model features (sim/feature.h): adding them, and their beginning.
#include <bit>
#include <stdexcept>

#include "sim/simulation.h"

namespace acme {

void Simulation::add_feature(std::unique_ptr<Feature> feature) {
  if (began_) throw std::logic_error("Simulation::add_feature after the first step");
  Feature* f = feature.get();
  const unsigned hooks = f->hooks();
  if (hooks & Feature::kPlaced) on_placed_.push_back(f);
  if (hooks & Feature::kJobsAdded) on_jobs_added_.push_back(f);
  if (hooks & Feature::kPaced) {
    on_paced_.push_back(f);
    if (f->waste_causes() == 0) throw std::logic_error("a feature that paces runs names no cause of waste");
    pace_cause_ = static_cast<WasteCause>(std::countr_zero(f->waste_causes()));
  }
  causes_listed_ |= f->waste_causes();
  if (!first_launches_) first_launches_ = f->first_launches();
  if (!slowness_) slowness_ = f->slowness();
  features_.push_back(std::move(feature));
}

void Simulation::begin_features() {
  began_ = true;
  const FeatureRun run{workload_, growth_, feed_ ? status_.capacity() : workload_.size()};
  for (const auto& f : features_) f->begin(run);
}

}  // namespace acme
