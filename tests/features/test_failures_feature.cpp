// Failures as a model feature (features/failures.h): the run builder makes it only with
// failures.enabled and records its keys only then; listed, its defaults are the table's; the core
// takes its model once (a second is a bug); a model that is off adds nothing; and its training
// ledger sums the parts the core tells it of, worked out by hand.
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

TEST_CASE("The failures feature's ledger sums each run's parts and splits the time between runs", "[failures]") {
  TrainingLedger ledger;
  const JobId job = 3;
  const Time detection = Time::seconds(120);
  TrainingTimes run;
  run.stall = 40;
  run.lost = 300;
  ledger.add(job, run);  // failed at 1,000 s: 40 s of saves, 300 s lost
  ledger.step(job, TrainingStep::Failed, Time::seconds(1000), detection);
  ledger.step(job, TrainingStep::Recovered, Time::seconds(1500), detection);  // 120 s detection, 380 s diagnosis
  ledger.step(job, TrainingStep::Placed, Time::seconds(1700), detection);     // waited 200 s
  TrainingTimes second;
  second.launch = 15;
  second.comm_init = 30;
  ledger.add(job, second);  // preempted at 5,000 s
  ledger.step(job, TrainingStep::Requeued, Time::seconds(5000), detection);
  ledger.step(job, TrainingStep::Placed, Time::seconds(5050), detection);  // waited 50 s more
  ledger.step(job, TrainingStep::Failed, Time::seconds(6000), detection);
  ledger.step(job, TrainingStep::Recovered, Time::seconds(6060), detection);  // cut short: 60 s of detection
  const TrainingTimes* t = ledger.find(job);
  REQUIRE(t);
  CHECK(t->stall == 40);
  CHECK(t->lost == 300);
  CHECK(t->launch == 15);
  CHECK(t->comm_init == 30);
  CHECK(t->detect == 120 + 60);
  CHECK(t->diagnose == 380);
  CHECK(t->wait == 200 + 50);
  CHECK(ledger.find(job + 1) == nullptr);
  CHECK(ledger.jobs() == std::vector<JobId>{job});
}

TEST_CASE("With failures on, a run's training ledger is the failures feature's", "[failures]") {
  const Workload w = one_job(JobType::Pretrain, 8, 1, 3600);
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  std::vector<const Feature*> none;
  CHECK(training_ledger(none) == nullptr);
  sim.add_feature(failures_feature(model({})));
  sim.run();
  CHECK(ledger_of(sim).jobs() == std::vector<JobId>{0});  // a Pretrain job: its one run told
}

}  // namespace acme::test
