// The catalogue of bad run configurations, cluster files and sweep files, each with its exact
// error: unknown keys, wrong types, missing files, zero or negative sizes, clusters too large to
// count, unknown policies, options that contradict each other (and would otherwise be ignored
// without a word), and sweep axes that are empty, unknown or fight a fixed value.
// Traces: test_bad_inputs.cpp.
#include <catch2/catch.hpp>

#include <fstream>

#include "harness.h"
#include "app/app.h"
#include "io/config.h"
#include "sim/error.h"
#include "app/sweep.h"
#include "workloads/registry.h"
#include "io/cluster_file.h"

namespace acme::test {
namespace {

namespace fs = std::filesystem;

std::string seren() { return (source_dir() / "configs/seren.yaml").string(); }

// The error of loading seren.yaml with `sets`, then (if that passes) of resolving the run's
// plugins on its cluster, as `acmesim run` does before it simulates.
std::string run_error(std::vector<std::string> sets) {
  return error_of([&] {
    const RunConfig c = load_run_config(seren(), sets);
    resolve_run(c, load_cluster_spec(c.cluster));
  });
}

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("Unknown keys and values of the wrong type name the key and where it was set", "[bad-configs]") {
  CHECK(run_error({"workload.form=2023-03-01"}).rfind("--set: workload.form: unknown key (valid keys: cluster,", 0) ==
        0);
  CHECK(run_error({"policy.name=fifo", "policy.dept=3"}) == "--set: policy.dept: not a key of policy fifo (valid: none)");
  CHECK(run_error({"seed=abc"}) == "--set: seed: expected a whole number, got 'abc'");
  CHECK(run_error({"workload.lenient=yes"}) == "--set: workload.lenient: expected true or false, got 'yes'");
  CHECK(run_error({"metrics.interval_s=[1, 2]"}) == "--set: metrics.interval_s: expected a single value");
  CHECK(run_error({"workload.from=tomorrow"}) ==
        "--set: workload.from: expected a date (2023-03-01, midnight UTC) or a timestamp with offset "
        "(2023-03-01 00:00:00+08:00), got 'tomorrow'");
  CHECK(run_error({"workload.load=lots"}) == "--set: workload.load: expected a number, got 'lots'");
  CHECK(run_error({"network.contention=true"}) ==
        "network.contention: needs network.slowdown: true (contention changes how much jobs slow down)");
  CHECK(run_error({"network.slowdown=true", "network.faults=spine 1 from 2d for 6h"}) ==
        "network.faults: needs network.contention: true (the routes that move around a fault)");
  CHECK(run_error({"network.slowdown=true", "network.contention=true", "network.faults=spine 1 at 3d"}) ==
        "--set: network.faults: 'spine 1 at 3d' is not 'WHAT from TIME [for TIME]' (times as 10d, 6h, 30m, 45s)");
  CHECK(run_error({"capacity.events=drain 280-290 from 1d for 2h"}) ==
        "--set: capacity.events: 'drain 280-290': nodes 280-290 are past the cluster's 286 nodes (0-285, added "
        "ones included)");
  CHECK(run_error({"capacity.events=add 4 from 1d; drain 280-289 from 1d for 2h"}) == "no error");
  CHECK(run_error({"capacity.events=drain 0-3 from 1d"}) == "--set: capacity.events: 'drain 0-3': a drain needs 'for TIME'");
  CHECK(run_error({"capacity.events=drain 0-3 from -1d for 1h"}) ==
        "--set: capacity.events: 'drain 0-3 from -1d for 1h' is not 'WHAT from TIME [for TIME]' (times as 10d, 6h, 30m, "
        "45s)");
  CHECK(run_error({"capacity.events=leaf 9 down from 1d for 1h"}) ==
        "--set: capacity.events: 'leaf 9 down': the cluster has leaf switches 0-8");
  CHECK(run_error({"capacity.events=remove 3 from 1d"}) ==
        "--set: capacity.events: 'remove 3': expected 'drain FIRST-LAST', 'add COUNT' or 'leaf NUMBER down'");
  CHECK(run_error({"capacity.events=leaf 3 from 1d for 1h"}) == "--set: capacity.events: 'leaf 3': expected 'leaf NUMBER down'");
  CHECK(run_error({"power.cap_kw=100"}) == "power.cap_kw: needs power.enabled: true (the cap acts on the modeled power)");
  CHECK(run_error({"capacity.drained_jobs=wait"}) ==
        "--set: capacity.drained_jobs: expected one of finish, kill, got 'wait'");
  // A job-type table names the types, and where the wrong one was set.
  CHECK(run_error({"policy.type_priority.Chat=1"}) ==
        "--set: policy.type_priority.Chat: not a job type (CPU, Eval, Pretrain, SFT, MLLM, Debug, Other)");
  CHECK(run_error({"policy.type_gpu_limit.eval=8"}) ==
        "--set: policy.type_gpu_limit.eval: not a job type (CPU, Eval, Pretrain, SFT, MLLM, Debug, Other)");
  CHECK(run_error({"launch.type_median_s.CPU=3"}) ==
        "--set: launch.type_median_s.CPU: not a GPU job type (Eval, Pretrain, SFT, MLLM, Debug, Other)");
  CHECK(run_error({"failures.checkpoint.Chat=1"}) ==
        "--set: failures.checkpoint.Chat: not a job type (CPU, Eval, Pretrain, SFT, MLLM, Debug, Other)");
  CHECK(run_error({"network.comm_share.Chat=0.5"}) ==
        "--set: network.comm_share.Chat: not a job type (CPU, Eval, Pretrain, SFT, MLLM, Debug, Other)");
  const auto dir = temp_dir("bad-config-types");
  const std::string cluster = (source_dir() / "configs/clusters/seren.yaml").string();
  const std::string scalar = write(dir / "scalar.yaml", "cluster: " + cluster + "\nworkload: 5\n");
  CHECK(error_of([&] { load_run_config(scalar, {}); }).rfind(scalar + ":2: workload: unknown key", 0) == 0);
  const std::string typo = write(dir / "typo.yaml", "cluster: " + cluster + "\nworkload:\n  model: " + (source_dir() / "configs/workloads/seren.yaml").string() +
                                                   "\n  from: 2023-03-01\n  to: 2023-03-02\npolicy:\n  name: acme\n  type_priority:\n    Chat: 1\n");
  CHECK(error_of([&] {
          const RunConfig c = load_run_config(typo, {});
          resolve_run(c, load_cluster_spec(c.cluster));
        }) == typo + ":9: policy.type_priority.Chat: not a job type (CPU, Eval, Pretrain, SFT, MLLM, Debug, Other)");
  const std::string list = write(dir / "list.yaml", "- a\n- b\n");
  CHECK(error_of([&] { load_run_config(list, {}); }) == list + ":1: expected a mapping of keys to values");
}

TEST_CASE("YAML aliases that multiply a mapping or put it inside itself are refused", "[bad-configs]") {
  const auto dir = temp_dir("bad-config-aliases");
  std::string bomb = "a0: &a0 {x: 1, y: 1}\n";
  for (int i = 1; i < 30; ++i)
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {p: *a" + std::to_string(i - 1) + ", q: *a" +
            std::to_string(i - 1) + "}\n";
  const std::string bombs = write(dir / "bomb.yaml", bomb);
  CHECK(error_of([&] { load_run_config(bombs, {}); }).find("more than 10000 keys (a mapping repeated through aliases?)") !=
        std::string::npos);
  const std::string cycle = write(dir / "cycle.yaml", "a: &a {x: 1}\nb: &b {p: *b}\n");
  const std::string error = error_of([&] { load_run_config(cycle, {}); });
  CHECK(error.rfind(cycle + ":2: b.p.p.p", 0) == 0);
  CHECK(error.find("mappings nested more than 32 deep (a mapping inside itself through an alias?)") != std::string::npos);
}

// What a configuration needs besides the keys a test is about: a cluster, a synthetic workload.
std::string rest_of_config() {
  return "cluster: " + (source_dir() / "configs/clusters/seren.yaml").string() + "\nworkload:\n  model: " +
         (source_dir() / "configs/workloads/seren.yaml").string() + "\n  from: 2023-03-01\n  to: 2023-03-02\n";
}

TEST_CASE("A key given twice, in one block or in two ways, is an error naming both lines", "[bad-configs]") {
  const auto dir = temp_dir("bad-config-duplicates");
  const std::string blocks = write(dir / "blocks.yaml", "policy:\n  name: fifo\nseed: 2\npolicy:\n  name: sjf\n");
  CHECK(error_of([&] { load_run_config(blocks, {}); }) == blocks + ":4: policy: given twice, at lines 1 and 4");
  const std::string leaf = write(dir / "leaf.yaml", "seed: 1\npolicy:\n  name: fifo\n  name: sjf\n");
  CHECK(error_of([&] { load_run_config(leaf, {}); }) == leaf + ":4: policy.name: given twice, at lines 3 and 4");
  const std::string dotted = write(dir / "dotted.yaml", "policy.name: fifo\npolicy:\n  name: sjf\n");
  CHECK(error_of([&] { load_run_config(dotted, {}); }) == dotted + ":3: policy.name: given twice, at lines 1 and 3");
  // --set after the file still replaces a key of it.
  const std::string once = write(dir / "once.yaml", "policy:\n  name: fifo\n" + rest_of_config());
  CHECK(load_run_config(once, std::vector<std::string>{"policy.name=sjf"}).policy_name == "sjf");
}

TEST_CASE("A tab in the indentation is named as one, on its line", "[bad-configs]") {
  const auto dir = temp_dir("bad-config-tabs");
  const std::string map_value = write(dir / "map_value.yaml", "seed: 1\npolicy:\n\tname: fifo\n");
  CHECK(error_of([&] { load_run_config(map_value, {}); }) ==
        map_value + ":3: a tab in the indentation (YAML indents with spaces only)");
  const std::string after_spaces = write(dir / "after_spaces.yaml", "policy:\n  name: fifo\n \t\nseed: 1\n");
  CHECK(error_of([&] { load_run_config(after_spaces, {}); }) ==
        after_spaces + ":3: a tab in the indentation (YAML indents with spaces only)");
  // A tab inside a line is no indentation.
  CHECK(load_run_config(write(dir / "inside.yaml", "seed:\t3\n" + rest_of_config()), {}).seed == 3);
}

TEST_CASE("Ranges print their bounds as written: whole numbers without decimals", "[bad-configs]") {
  CHECK(run_error({"policy.name=backfill", "policy.depth=-3"}) ==
        "--set: policy.depth: must be between 1 and 1000000000, got -3");
  CHECK(run_error({"metrics.interval_s=0"}) == "--set: metrics.interval_s: must be between 1 and 31536000, got 0");
  CHECK(run_error({"workload.load=-1"}) == "--set: workload.load: must be between 0.000001 and 1000000, got -1");
}

TEST_CASE("Missing files name the file and the key that points to it", "[bad-configs]") {
  CHECK(error_of([] { load_run_config("/no/such.yaml", {}); }) == "/no/such.yaml: no such file");
  CHECK(run_error({"cluster=/no/cluster.yaml"}) == "--set: cluster: no such file: /no/cluster.yaml");
  CHECK(run_error({"workload.model=/no/model.yaml"}) == "--set: workload.model: no such file: /no/model.yaml");
  const RunConfig c = load_run_config(seren(), std::vector<std::string>{"workload.trace=/no/trace.csv"});
  CHECK(error_of([&] { load_workload(c, load_cluster_spec(c.cluster)); }) ==
        "/no/trace.csv: cannot open the trace file");
  CHECK(run_error({"failures.enabled=true", "failures.table=/no/table.yaml"}) == "/no/table.yaml: no such file");
}

TEST_CASE("A failure table's fit factors and domains must name a reason of the table", "[bad-configs]") {
  const auto dir = temp_dir("bad-config-fit");
  std::ifstream in(source_dir() / "tests/data/failures_often.yaml");
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto table_error = [&](const std::string& fit_line, const std::string& more = "") {
    std::string text = good;
    const std::string fit = "  NodeFailure: [1, 1]";
    text.replace(text.find(fit), fit.size(), fit_line);
    text += more;
    const std::string path = write(dir / "t.yaml", text);
    return run_error({"failures.enabled=true", "failures.table=" + path});
  };
  const std::string t = (dir / "t.yaml").string();
  CHECK(table_error("  Gremlins: [1, 1]") == t + ": fit.Gremlins: not a reason of the table");
  CHECK(table_error("  NodeFailure: [1]") == t + ":19: fit.NodeFailure: expected [rate factor > 0, time factor > 0]");
  CHECK(table_error("  NodeFailure: [1, 0]") == t + ":19: fit.NodeFailure: expected [rate factor > 0, time factor > 0]");
  const std::string fit = "  NodeFailure: [1, 1]";
  CHECK(table_error(fit, "takes_down:\n  Gremlins: node\n") == t + ": takes_down.Gremlins: not a reason of the table");
  CHECK(table_error(fit, "takes_down:\n  NodeFailure: rack\n") ==
        t + ":32: takes_down.NodeFailure: expected job, gpu, nic, node or leaf");
}

TEST_CASE("Zero, negative and uncountable sizes are refused", "[bad-configs]") {
  const auto dir = temp_dir("bad-config-sizes");
  auto cluster_error = [&](const std::string& text) {
    const std::string path = write(dir / "c.yaml", "name: c\n" + text);
    return error_of([&] { load_cluster_spec(path); });
  };
  const std::string c = (dir / "c.yaml").string();
  CHECK(cluster_error("nodes: 0\n") == c + ":2: nodes: must be between 1 and 1000000, got 0");
  CHECK(cluster_error("nodes: -3\n") == c + ":2: nodes: must be between 1 and 1000000, got -3");
  CHECK(cluster_error("gpus_per_node: 0\n") == c + ":2: gpus_per_node: must be between 1 and 64, got 0");
  CHECK(cluster_error("cpus_per_node: 0\n") == c + ":2: cpus_per_node: must be between 1 and 1048576, got 0");
  CHECK(cluster_error("nodes_per_leaf: 0\n") == c + ":2: nodes_per_leaf: must be between 1 and 1048576, got 0");
  CHECK(cluster_error("nic_gbps: -1\n").rfind(c + ":2: nic_gbps: must be between 0.001 and", 0) == 0);
  CHECK(cluster_error("fabric: torus\n") == c + ":2: fabric: unknown fabric 'torus' (valid: fat_tree, rail_optimized)");
  CHECK(cluster_error("leaves_per_pod: -1\n") == c + ":2: leaves_per_pod: must be between 0 and 1048576, got -1");
  CHECK(cluster_error("pod_oversubscription: 0.5\n").rfind(c + ":2: pod_oversubscription: must be between 1", 0) == 0);
  CHECK(cluster_error("nodes: 200000\ngpus_per_node: 8\n") ==
        c + ":2: nodes: nodes x gpus_per_node is 1600000, more than the 1000000 a cluster may have");
  CHECK(cluster_error("cpus_per_node: 1048576\nnodes: 4096\n") ==
        c + ":3: nodes: nodes x cpus_per_node is 4294967296, more than the 2147483647 a cluster may have");
  CHECK(run_error({"metrics.interval_s=-5"}) == "--set: metrics.interval_s: must be between 1 and 31536000, got -5");
  CHECK(run_error({"workload.load=0"}).rfind("--set: workload.load: must be between 0.000001 and", 0) == 0);
  CHECK(run_error({"seed=-1"}).rfind("--set: seed: must be between 0 and", 0) == 0);
}

TEST_CASE("An unknown policy or placement is an error listing the valid names", "[bad-configs]") {
  CHECK(run_error({"policy.name=fido"}) == "--set: policy.name: unknown policy 'fido' (valid: " + policy_names() + ")");
  CHECK(run_error({"placement=random"}) == "--set: placement: expected first_fit, best_fit or topology, got 'random'");
  const RunConfig c = load_run_config(seren(), std::vector<std::string>{"workload.source=csv"});
  CHECK(error_of([&] { load_workload(c, load_cluster_spec(c.cluster)); }) ==
        "--set: workload.source: unknown source 'csv' (valid: auto, acmetrace, synthetic)");
}

TEST_CASE("Options that contradict each other are errors, not silently ignored", "[bad-configs]") {
  CHECK(run_error({"workload.from=2023-05-01", "workload.to=2023-04-01"}) ==
        "--set: workload.to: must be later than workload.from");
  CHECK(run_error({"workload.to=2023-03-01 00:00:00+08:00"}) == "--set: workload.to: must be later than workload.from");
  CHECK(run_error({"replay=recorded", "policy.name=sjf"}) ==
        "--set: policy.name: replay: recorded starts jobs at their recorded start (greedy when they do not fit), so "
        "policy 'sjf' would not be used (use replay: policy)");
  CHECK(run_error({"replay=recorded", "policy.name=greedy"}) == "no error");
  // A recorded replay asked for over the configuration's policy (acme, from the file) replaces it
  // with its own scheduler, greedy, and drops the policy's keys.
  CHECK(run_error({"replay=recorded"}) == "no error");
  const RunConfig recorded = load_run_config(seren(), std::vector<std::string>{"replay=recorded"});
  CHECK(recorded.policy_name == "greedy");
  CHECK(recorded.policy_params.empty());
  CHECK(recorded.unused_policy.rfind("acme (" + seren() + ":", 0) == 0);
  // Given by one source, the two contradict each other: the error names that source.
  CHECK(run_error({"replay=recorded", "policy.name=acme"}).rfind("--set: policy.name: replay: recorded", 0) == 0);
  CHECK(run_error({"workload.source=synthetic", "workload.trace=x.csv"}) ==
        "--set: workload.trace: workload.source is synthetic, which reads no trace (leave it auto to replay the "
        "trace)");
  CHECK(run_error({"workload.trace=x.csv", "workload.load=2"}) ==
        "--set: workload.load: scales synthetic arrivals only; a trace (workload.source acmetrace) is replayed as "
        "recorded");
  CHECK(run_error({"workload.trace=x.csv", "workload.load=1.0"}) == "no error");
  CHECK(run_error({"workload.source=acmetrace"}) ==
        "--set: workload.source: acmetrace replays a trace file, but workload.trace is not set");
  CHECK(run_error({"workload.from="}) ==
        "--set: workload.from: a synthetic workload needs both workload.from and workload.to");
  CHECK(run_error({"outputs=jobs,summary,jobs"}) == "--set: outputs: output 'jobs' is listed twice");
  CHECK(run_error({"outputs="}).rfind("--set: outputs: unknown output '' (valid: jobs,", 0) == 0);
}

TEST_CASE("Bad sweep axes are errors naming the sweep file's line", "[bad-configs]") {
  const auto dir = temp_dir("bad-sweeps");
  const std::string base = "base: " + seren() + "\n";
  auto sweep_error = [&](const std::string& text) {
    const std::string path = write(dir / "s.yaml", base + text);
    return error_of([&] { load_sweep(path); });
  };
  const std::string s = (dir / "s.yaml").string();
  CHECK(sweep_error("grid:\n  workload.sorce: [auto]\n").rfind(s + ":3: workload.sorce: unknown key (valid keys:", 0) ==
        0);
  CHECK(sweep_error("set: {policy.name: fifo}\ngrid:\n  policy.depth: [1, 2]\n") ==
        s + ":4: policy.depth: not a key of any policy this sweep runs (valid: fifo: none)");
  CHECK(sweep_error("grid: {seed: []}\n") == s + ":2: grid.seed: an empty list gives no runs");
  CHECK(sweep_error("seeds: []\n") == s + ":2: seeds: an empty list gives no runs");
  CHECK(sweep_error("seeds: {from: 1, count: 0}\n") == s + ":2: seeds.count: must be between 1 and 1000000, got 0");
  CHECK(sweep_error("grid: {seed: 5}\n") == s + ":2: grid.seed: expected a list");
  CHECK(sweep_error("grid: {seed: [[1, 2]]}\n") == s + ":2: seed: expected a single value");
  CHECK(sweep_error("grid:\n") == s + ":2: grid: expected a mapping of keys to values");
  CHECK(sweep_error("") == s + ": no axis: a sweep needs at least one of grid, zip, windows or seeds");
  CHECK(sweep_error("set: {seed: 3}\ngrid: {seed: [1, 2]}\n") ==
        s + ":2: seed: is fixed by set but also swept (at line 3)");
  CHECK(sweep_error("windows: {every: month, from: 2023-05-01, to: 2023-04-01}\n") ==
        s + ":2: windows.to: must be later than windows.from");
  CHECK(sweep_error("windows: {every: year, from: 2023-03-01, to: 2023-04-01}\n") ==
        s + ":2: windows.every: expected month, week or day, got 'year'");
  CHECK(sweep_error("grid: {policy.name: [fifo, sjf]}\nset: {replay: recorded}\n") ==
        s + ":2: policy.name: replay: recorded starts jobs at their recorded start (greedy when they do not fit), so "
            "policy 'sjf' would not be used (use replay: policy)");
  const std::string missing = write(dir / "m.yaml", "base: nowhere.yaml\nseeds: [1]\n");
  CHECK(error_of([&] { load_sweep(missing); }) ==
        missing + ":1: base: no such file: " + (dir / "nowhere.yaml").string());
}

}  // namespace acme::test
