// The keys of every plugin, as its own code asks for them (io/params.h): each plugin is built
// once with no settings and its questions are its keys, defaults and docs. `acmesim list`,
// `acmesim run --help` and the tests of configs/README.md and of listed defaults read this list;
// the validator is the same code (Params::check_all_used), so none of them can drift apart.
#pragma once

#include <string>
#include <vector>

#include "io/params.h"

namespace acme {

struct KeySection {
  std::string name;   // a policy's name, or the keys' prefix ("network")
  std::string title;  // e.g. "Network model (network.*)"
  std::vector<Params::Doc> keys;
};

// The policies' keys, one section a registered policy (its title: "name  description").
std::vector<KeySection> policy_key_sections();
// Every other plugin: estimates, the network model, the model features (io/feature_registry.h),
// evaluation, failures, power, capacity, the trace cache.
std::vector<KeySection> plugin_key_sections();
// The plugin keys as `acmesim run --help` prints them after the run configuration's own.
std::string plugin_keys_help();

}  // namespace acme
