// The registry of model features (sim/feature.h): each registers itself from its own file under
// features/ the way every plugin does (io/registry.h):
//
//   const FeatureRegistrar kRegistered({"launch", "Launch latency (launch.*): ...", make_launch, 10});
//
// Its name is its keys' prefix: the run configuration routes every key <name>.* to it
// (RunConfig::feature_params), the run builder (app/make_simulation.cpp) asks each registered
// feature to read its keys and adds those that are on to the Simulation, and `acmesim list`,
// `acmesim run --help`, the tests of configs/README.md's key tables and the validator
// (Params::check_all_used) read the keys it asks for. Nothing else names a feature.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "io/params.h"
#include "io/registry.h"
#include "sim/cluster_spec.h"
#include "sim/feature.h"
#include "sim/network.h"
#include "sim/outcome.h"

namespace acme {

// What a feature may need of its run besides its own keys.
struct FeatureSetup {
  ReplayMode replay = ReplayMode::Policy;
  std::uint64_t seed = 1;       // the run's seed
  unsigned threads = 1;         // threads the run may use (more than one: a feature may work ahead)
  const ClusterSpec* cluster = nullptr;  // null when only its keys are listed
  Time interval = Time::hours(1);        // the time series' interval (metrics.interval_s)
  const NetworkSettings* network = nullptr;  // the network model's keys (null when only listed)
  bool eval_decoupled = false;  // the run's `eval` key: evaluation jobs run decoupled
  std::string outputs;          // the run's `outputs` key (a feature may skip what feeds none)
  std::filesystem::path configs = "configs";  // the shipped configs/ folder (app/make_simulation.h)
};

struct FeatureEntry {
  std::string_view name;   // the prefix of its keys ("launch" for launch.*); unique
  std::string_view title;  // its section in `acmesim list`, e.g. "Launch latency (launch.*): ..."
  // Reads the feature's keys from `params` (prefix `name`), with their defaults; returns null
  // when the feature is off. Throws InputError for a bad value.
  std::unique_ptr<Feature> (*make)(Params& params, const FeatureSetup& setup);
  int order = 1000;  // where its keys are listed and recorded: by order, then by name
  // Its columns of each output, by FeatureOutput, for the docs (Feature::columns gives a run's).
  std::array<std::span<const FeatureColumn>, kFeatureOutputs> columns = {};
  static constexpr std::string_view kKind = "feature";
};

using FeatureRegistrar = Registrar<FeatureEntry>;

// Every registered feature, by order then name.
inline std::span<const FeatureEntry> feature_table() { return Registry<FeatureEntry>::table(); }

// The feature whose keys `key` is one of ("launch.sigma": launch's), or null.
inline const FeatureEntry* feature_of_key(std::string_view key) {
  for (const FeatureEntry& e : feature_table())
    if (key.size() > e.name.size() && key[e.name.size()] == '.' && key.substr(0, e.name.size()) == e.name) return &e;
  return nullptr;
}

}  // namespace acme
