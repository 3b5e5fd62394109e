// Failures as a model feature (sim/feature.h): the keys failures.* of a run, the failure table
// file they name (configs/failures/acme.yaml), and the feature that owns the model
// (sim/failures.h: the draws, checkpoints, restart phases, recovery and repair) and gives it to
// the core (Feature::failure_model), whose stops from the last checkpoint and recoveries read it,
// and the ledger of where its training jobs' time went (features/training_ledger.h), which the
// core tells it of (Feature::kTrained) and its output reads (training.csv,
// features/training_output.cpp). Off unless failures.enabled; off, its keys are read and checked
// but not recorded.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "io/params.h"
#include "sim/failures.h"
#include "features/training_ledger.h"
#include "sim/feature.h"

namespace acme {

// Reads failures.* from `params` (in a fixed order: run.json lists them so); the table from
// failures.table, else `default_table`, only when failures.enabled or `table_when_off` (listing
// the keys: their defaults are the table's). The keys are read and checked either way. Throws
// InputError naming the key, or the file, line and key.
FailureSettings read_failure_settings(Params& params, const std::string& default_table, bool table_when_off = false);

// The model of those settings.
inline FailureModel load_failure_model(Params& params, const std::string& default_table) {
  return FailureModel(read_failure_settings(params, default_table));
}

// The feature of `model` (none when it is not enabled), for a run's Simulation
// (Simulation::add_feature): what the run builder makes of failures.*, and what tests and
// experiments add with a model of their own.
std::unique_ptr<Feature> failures_feature(FailureModel model);

// The ledger of the failures feature among a run's `features`, complete once the run ended; null
// without it.
const TrainingLedger* training_ledger(std::span<const Feature* const> features);

}  // namespace acme
