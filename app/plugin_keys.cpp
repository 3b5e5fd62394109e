#include "app/plugin_keys.h"

#include "policies/registry.h"
#include "app/make_simulation.h"
#include "io/feature_registry.h"
#include "workloads/estimates.h"
#include "workloads/trace_cache.h"

namespace acme {

std::vector<KeySection> policy_key_sections() {
  std::vector<KeySection> out;
  for (const PolicyEntry& e : policy_table()) {
    Params params("policy", {});
    e.make(params);
    out.push_back({std::string(e.name), std::string(e.name) + "  " + std::string(e.description), params.docs()});
  }
  return out;
}

std::vector<KeySection> plugin_key_sections() {
  std::vector<KeySection> out;
  Params estimates("estimate", {});
  make_estimates(Workload{}, estimates, 0);
  out.push_back(
      {"estimate", "Run-time estimates (estimate.*), seen by policies instead of true run times", estimates.docs()});
  FeatureSetup listing;  // no cluster: only the keys are read
  listing.configs = configs_dir();
  for (const FeatureEntry& e : feature_table()) {  // the model features, as registered
    Params keys(std::string(e.name), {});
    e.make(keys, listing);
    out.push_back({std::string(e.name), std::string(e.title), keys.docs()});
  }
  Params cache("cache", {});
  read_trace_cache_settings(cache);
  out.push_back({"cache", "Parsed-trace cache (cache.*; not recorded: it changes no result)", cache.docs()});
  return out;
}

std::string plugin_keys_help() {
  std::string text = "\nPlugin keys (policy.* depend on policy.name: acmesim list):\n";
  for (const KeySection& s : plugin_key_sections())
    for (const Params::Doc& d : s.keys) text += "  " + d.key + " [" + d.fallback + "]\n      " + d.doc + "\n";
  return text;
}

}  // namespace acme
