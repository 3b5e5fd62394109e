// Failures as a model feature (features/failures.h): the run builder makes it only with
// failures.enabled and records its keys only then; listed, its defaults are the table's; the core
// takes its model once (a second is a bug); and a model that is off adds nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/make_simulation.h"
#include "app/plugin_keys.h"
#include "features/failures.h"
#include "harness.h"
#include "io/cluster_file.h"
#include "io/yaml_util.h"
#include "sim/failure_fixtures.h"

namespace acme::test {
namespace {

RunConfig config_with(const std::vector<std::string>& settings) {
  return load_run_config((source_dir() / "configs" / "seren.yaml").string(), settings);
}

// The features of a run built from `settings` that give a failure model, and its recorded keys.
std::pair<int, std::vector<std::pair<std::string, std::string>>> built(const std::vector<std::string>& settings) {
  const RunConfig config = config_with(settings);
  RunPlugins p = build_plugins(config, load_cluster_spec(config.cluster));
  const auto n = std::count_if(p.features.begin(), p.features.end(), [](const auto& f) { return f->failure_model(); });
  return {static_cast<int>(n), p.described};
}

std::string value_of(const std::vector<std::pair<std::string, std::string>>& keys, const std::string& key) {
  for (const auto& [k, v] : keys)
    if (k == key) return v;
  return "(none)";
}

}  // namespace

TEST_CASE("Failures are a feature the run builder makes only when enabled, its keys recorded only then",
          "[failures]") {
  const auto [off, off_keys] = built({});
  CHECK(off == 0);
  CHECK(value_of(off_keys, "failures.enabled") == "(none)");

  const auto [on, on_keys] = built({"failures.enabled=true", "failures.recovery=automatic", "stragglers.enabled=true",
                                      "power.enabled=true"});
  CHECK(on == 1);
  CHECK(value_of(on_keys, "failures.enabled") == "true");
  // The table's automatic detection, 2 minutes (configs/failures/acme.yaml), as the key's default.
  CHECK(value_of(on_keys, "failures.detect_s") == "120");
  // Recorded after the slow nodes' keys and before power's (FeatureEntry::order 25).
  const auto at = [&](const std::string& key) {
    return std::find_if(on_keys.begin(), on_keys.end(), [&](const auto& kv) { return kv.first == key; });
  };
  CHECK(at("stragglers.enabled") < at("failures.enabled"));
  REQUIRE(at("power.enabled") != on_keys.end());
  CHECK(at("failures.warmup_s") < at("power.enabled"));

  // A key the feature does not have is an error naming it, on or off.
  CHECK_THROWS_WITH(built({"failures.detect_min=3"}), Catch::Contains("failures.detect_min"));
}

TEST_CASE("Listed, the failure keys' defaults are the shipped table's", "[failures]") {
  const std::vector<KeySection> sections = plugin_key_sections();
  const auto s = std::find_if(sections.begin(), sections.end(), [](const KeySection& k) { return k.name == "failures"; });
  REQUIRE(s != sections.end());
  const auto detect = std::find_if(s->keys.begin(), s->keys.end(), [](const Params::Doc& d) { return d.key == "failures.detect_s"; });
  REQUIRE(detect != s->keys.end());
  CHECK(detect->fallback == "1800");  // manual recovery: 30 minutes
}

TEST_CASE("The core takes one failure model from its features, and one that is off adds nothing", "[failures]") {
  const Workload w = one_job(JobType::Pretrain, 8, 1, 3600);
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(failures_feature(model({"failures.enabled=false"})));  // off: none
  CHECK(sim.features().empty());
  sim.add_feature(failures_feature(model({})));
  CHECK(sim.features().size() == 1);
  CHECK_THROWS_AS(sim.add_feature(failures_feature(model({}))), std::logic_error);
}

}  // namespace acme::test
