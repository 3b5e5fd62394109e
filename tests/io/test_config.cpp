#include <catch2/catch.hpp>

#include <fstream>

#include "harness.h"
#include "io/config.h"
#include "sim/error.h"
#include "io/cluster_file.h"

namespace acme::test {
namespace {

std::string config_error(const std::string& path, std::vector<std::string> sets = {}) {
  try {
    load_run_config(path, sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("An unknown key is an error naming file, line and key, with the valid keys", "[config]") {
  const std::string path = (source_dir() / "tests/data/bad_key.yaml").string();
  const std::string e = config_error(path);
  CHECK(e.rfind(path + ":5: workload.modle: unknown key (valid keys: cluster, workload.source", 0) == 0);
}

TEST_CASE("A command-line override wins over the file and resolves paths from the current directory", "[config]") {
  const std::string path = (source_dir() / "configs/seren.yaml").string();
  const std::vector<std::string> sets = {"policy.name=greedy", "workload.trace=x.csv", "seed=7"};
  const RunConfig c = load_run_config(path, sets);
  CHECK(c.policy_name == "greedy");
  CHECK(c.workload_trace == "x.csv");
  CHECK(c.workload_source == "acmetrace");
  CHECK(c.seed == 7);
  CHECK(c.cluster == (source_dir() / "configs/clusters/seren.yaml").lexically_normal().string());
  CHECK(c.where("seed") == "--set");
}

TEST_CASE("A window belongs to the workload named with it", "[config]") {
  // configs/seren.yaml's March window is for its synthetic month: a trace named by --set replays
  // whole, unless --set gives a window too; a file that names a trace keeps its own window.
  const std::string seren = (source_dir() / "configs/seren.yaml").string();
  const RunConfig whole = load_run_config(seren, std::vector<std::string>{"workload.trace=x.csv"});
  CHECK(!whole.workload_from);
  CHECK(!whole.workload_to);
  const RunConfig april = load_run_config(seren, std::vector<std::string>{"workload.from=2023-04-01", "workload.trace=x.csv"});
  CHECK(april.workload_from == parse_timestamp("2023-04-01"));
  CHECK(!april.workload_to);
  const RunConfig synthetic = load_run_config(seren, std::vector<std::string>{"seed=2"});
  CHECK(synthetic.workload_from);
  CHECK(synthetic.workload_to);
  const auto dir = temp_dir("config-window");
  const std::string own = (dir / "trace_window.yaml").string();
  std::ofstream(own) << "cluster: " << (source_dir() / "configs/clusters/seren.yaml").string() << "\nworkload:\n  trace: x.csv\n  from: 2023-05-01\n  to: 2023-06-01\n";
  const RunConfig kept = load_run_config(own, std::vector<std::string>{"seed=3"});
  CHECK(kept.workload_from == parse_timestamp("2023-05-01"));
  CHECK(kept.workload_to == parse_timestamp("2023-06-01"));
  const RunConfig other = load_run_config(own, std::vector<std::string>{"workload.trace=y.csv"});
  CHECK(!other.workload_from);
}

TEST_CASE("Bad values name the key and say what is expected", "[config]") {
  const std::string path = (source_dir() / "configs/seren.yaml").string();
  CHECK(config_error(path, {"replay=sometimes"}) == "--set: replay: expected recorded or policy, got 'sometimes'");
  CHECK(config_error(path, {"seed=-1"}).find("--set: seed: must be between 0 and") == 0);
  CHECK(config_error(path, {"metrics.interval_s=0"}).find("--set: metrics.interval_s: must be between 1") == 0);
  CHECK(config_error(path, {"outputs=jobs,plots"}) ==
        "--set: outputs: unknown output 'plots' (valid: jobs, timeseries, summary, waste, run_json, evaluations, users, training, console)");
  CHECK(config_error(path, {"workload.to=2023-02-01"}) == "--set: workload.to: must be later than workload.from");
  CHECK(config_error(path, {"nonsense"}) == "--set: expected key=value, got 'nonsense'");
  CHECK(config_error("/no/such.yaml") == "/no/such.yaml: no such file");
}

TEST_CASE("Every configuration key is documented in configs/README.md", "[config]") {
  const std::string readme = read_file(source_dir() / "configs/README.md");
  for (const auto& f : run_config_fields()) CHECK(readme.find("`" + std::string(f.key) + "`") != std::string::npos);
  for (const auto& f : cluster_spec_fields()) CHECK(readme.find("`" + std::string(f.key) + "`") != std::string::npos);
}

}  // namespace acme::test
