#include "app/plugin_keys.h"

#include "policies/registry.h"
#include "app/make_simulation.h"
#include "features/failures.h"
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
  for (const FeatureEntry& e : feature_table()) {  // the model features, as registered
    Params keys(std::string(e.name), {});
    e.make(keys, FeatureSetup{});
    out.push_back({std::string(e.name), std::string(e.title), keys.docs()});
  }
  // On, so that the defaults listed are the table's, which a run with failures on uses.
  Params failures("failures", {yaml_override("failures.enabled=true")});
  load_failure_model(failures, default_failure_table());
  out.push_back({"failures", "Injected failures (failures.*)", failures.docs()});
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
