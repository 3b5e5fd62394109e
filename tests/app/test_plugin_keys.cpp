// The plugin keys of app/plugin_keys.h: documented, and listed with the defaults runs use.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "app/app.h"
#include "app/plugin_keys.h"

namespace acme::test {
namespace {

// A plugin compiled only into the tests (its title says TEST ONLY) is documented in its own file.
bool test_only(const KeySection& s) { return s.title.find("TEST ONLY") != std::string::npos; }

std::vector<KeySection> every_section() {
  std::vector<KeySection> all = policy_key_sections();
  for (KeySection& s : plugin_key_sections()) all.push_back(std::move(s));
  std::erase_if(all, test_only);
  return all;
}

}  // namespace

TEST_CASE("Every key of every plugin is documented in configs/README.md", "[config][list]") {
  const std::string readme = read_file(source_dir() / "configs/README.md");
  std::size_t keys = 0;
  for (const KeySection& s : every_section())
    for (const Params::Doc& d : s.keys) {
      INFO(s.title << ": " << d.key);
      // A table key is documented as `prefix.key.<Type>` or `.<name>`: what precedes ".<" must be there.
      CHECK(readme.find("`" + d.key.substr(0, d.key.find(".<"))) != std::string::npos);
      ++keys;
    }
  CHECK(keys > 50);  // every policy's, estimate.*, network.*, launch.*, eval.*, failures.*
}

TEST_CASE("The default `acmesim list` gives a key is the value a run records in run.json", "[config][list]") {
  // One short run a policy, with failures, the launch latency, network contention, a capacity
  // event, the power model, slow nodes and time limits on (else their keys are not recorded) and nothing else set: every
  // key the run records must hold the default listed for it.
  const auto dir = temp_dir("listed-defaults");
  const std::string config = (dir / "bare.yaml").string();
  std::ofstream(config) << "cluster: " << (source_dir() / "configs/clusters/kalos.yaml").string()
                        << "\nworkload:\n  model: " << (source_dir() / "configs/workloads/kalos.yaml").string()
                        << "\n  from: 2023-06-01\n  to: 2023-06-02\nfailures:\n  enabled: true\nlaunch:\n  gpu_median_s: 1\n"
                        << "network:\n  contention: true\ncapacity:\n  events: add 1 from 1h\npower:\n  enabled: true\n"
                        << "stragglers:\n  enabled: true\ntime_limits:\n  enforced: true\n"
                        << "outputs: run_json\n";
  const std::vector<KeySection> plugins = plugin_key_sections();
  std::size_t compared = 0;
  for (const KeySection& policy : policy_key_sections()) {
    const std::string& name = policy.name;
    RunArgs args;
    args.config = config;
    args.overrides = {"policy.name=" + name};
    args.out_dir = (dir / name).string();
    args.progress = false;
    REQUIRE(run_command(args) == 0);
    std::ifstream in(dir / name / "run.json");
    const nlohmann::json recorded = nlohmann::json::parse(in).at("config");
    std::vector<Params::Doc> keys = policy.keys;
    for (const KeySection& s : plugins)
      if (s.name != "cache" && !test_only(s)) keys.insert(keys.end(), s.keys.begin(), s.keys.end());  // changes no result: not recorded
    for (const Params::Doc& d : keys) {
      if (d.key == "failures.enabled" || d.key == "launch.gpu_median_s" || d.key == "network.contention" ||
          d.key == "capacity.events" || d.key == "power.enabled" || d.key == "stragglers.enabled" ||
          d.key == "time_limits.enforced")
        continue;  // set here
      INFO(name << ": " << d.key);
      REQUIRE(recorded.contains(d.key));
      CHECK(recorded.at(d.key).get<std::string>() == d.fallback);
      ++compared;
    }
  }
  CHECK(compared > 200);
}

}  // namespace acme::test
