#include "app/make_simulation.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "policies/registry.h"
#include "app/app.h"
#include "sim/error.h"
#include "sim/log.h"
#include "io/feature_registry.h"
#include "features/network.h"
#include "workloads/estimates.h"
#include "workloads/registry.h"

namespace acme {

std::filesystem::path configs_dir() {
  if (std::filesystem::is_directory("configs")) return "configs";
  // Up from the executable, then from the file this code is in (the Python module's shared object).
  std::error_code ec;
  std::vector<std::filesystem::path> homes;
  if (auto exe = std::filesystem::read_symlink("/proc/self/exe", ec); !ec) homes.push_back(exe);
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&configs_dir), &info) != 0 && info.dli_fname)
    homes.push_back(std::filesystem::absolute(info.dli_fname, ec));
  for (const auto& home : homes)
    for (auto dir = home.parent_path(); dir.has_relative_path(); dir = dir.parent_path())  // up to the root
      if (std::filesystem::is_directory(dir.parent_path() / "configs")) return dir.parent_path() / "configs";
  return "configs";
}

RunPlugins build_plugins(const RunConfig& config, const ClusterSpec& cluster) {
  RunPlugins p;
  // recorded replay has its own scheduler: start when recorded, else as soon as the job fits.
  const std::string policy_name = config.replay == ReplayMode::Recorded ? "greedy" : config.policy_name;
  Params policy_params("policy", config.policy_params, "policy " + policy_name);
  try {
    p.policy = make_policy(policy_name, policy_params);
  } catch (const InputError& e) {
    if (std::string_view(e.what()).rfind("unknown policy", 0) != 0) throw;
    throw InputError(config.where("policy.name") + ": policy.name: " + e.what());
  }
  // What needs the workload (the estimates; a feature's rewrite) is made by make_simulation; here
  // the estimates' keys are read and checked.
  Params estimate_params("estimate", config.estimate_params);
  p.estimator = std::make_unique<Estimator>(estimate_params, config.seed);
  // The network's settings for the features that read them (slow links: its comm_share); the
  // network feature reads and records its keys itself.
  const auto network_keys = config.feature_params.find("network");
  Params network_params("network", network_keys == config.feature_params.end() ? std::vector<YamlValue>{}
                                                                               : network_keys->second);
  const NetworkSettings network = read_network_settings(network_params, config.replay == ReplayMode::Policy);

  const FeatureSetup setup{.replay = config.replay,
                           .seed = config.seed,
                           .threads = threads_of(config),
                           .cluster = &cluster,
                           .interval = config.metrics_interval,
                           .network = &network,
                           .eval_decoupled = config.eval_decoupled,
                           .outputs = config.outputs,
                           .configs = configs_dir()};
  // The keys of the features that are on, recorded by FeatureEntry::order (the table's order), so
  // that run.json and summary.csv keep theirs.
  std::vector<std::pair<std::string, std::string>> feature_keys;
  for (const FeatureEntry& e : feature_table()) {
    const auto given = config.feature_params.find(e.name);
    Params params(std::string(e.name), given == config.feature_params.end() ? std::vector<YamlValue>{} : given->second);
    std::unique_ptr<Feature> feature = e.make(params, setup);
    params.check_all_used();
    if (!feature) continue;  // off: its keys are not listed, so the outputs stay as they were without it
    p.features.push_back(std::move(feature));
    feature_keys.insert(feature_keys.end(), params.resolved().begin(), params.resolved().end());
  }

  p.described = describe(config);
  for (const Params* params : {&policy_params, &estimate_params})
    p.described.insert(p.described.end(), params->resolved().begin(), params->resolved().end());
  p.described.insert(p.described.end(), feature_keys.begin(), feature_keys.end());
  return p;
}

bool takes_jobs_as_they_come(const RunPlugins& plugins) {
  for (const auto& feature : plugins.features)
    if (feature->needs_whole_workload()) return false;
  return !plugins.policy->reads_estimates() || plugins.estimator->per_job();
}

namespace {

// Wires the run of `config` over `workload` into `run` (and its feed, if it has one, into its
// Simulation).
std::unique_ptr<PreparedRun> build(std::unique_ptr<PreparedRun> run, const RunConfig& config, const ClusterSpec& cluster,
                                   const Workload& workload, RunPlugins plugins) {
  const auto t0 = WallClock::now();
  run->cluster = cluster;
  for (const auto& feature : plugins.features) feature->shape(run->cluster);
  // A feature may rewrite the jobs (eval: decoupled, features/eval.cpp) into a copy of the shared
  // workload: one O(n) pass and the memory of a second workload for the run's lifetime.
  for (const auto& feature : plugins.features)
    if (std::optional<Workload> rewritten = feature->rewrite(run->rewritten ? *run->rewritten : workload))
      run->rewritten = std::move(rewritten);
  run->workload = run->rewritten ? &*run->rewritten : &workload;
  std::vector<Time> estimates;
  if (plugins.policy->reads_estimates()) {
    estimates = plugins.estimator->all(*run->workload);
    run->estimator = std::move(plugins.estimator);
  }
  run->described = std::move(plugins.described);
  run->sim = std::make_unique<Simulation>(*run->workload, run->cluster, std::move(plugins.policy), config.replay,
                                          std::move(estimates));
  Simulation& sim = *run->sim;
  sim.set_placement(config.placement);
  for (auto& feature : plugins.features) sim.add_feature(std::move(feature));
  if (run->feed) sim.set_feed(*run->feed, *run->opened, run->estimator.get());
  run->build_s = seconds_since(t0);
  return run;
}

}  // namespace

std::unique_ptr<PreparedRun> make_simulation(const RunConfig& config, const ClusterSpec& cluster,
                                             const Workload& workload) {
  return make_simulation(config, cluster, workload, build_plugins(config, cluster));
}

std::unique_ptr<PreparedRun> make_simulation(const RunConfig& config, const ClusterSpec& cluster,
                                             const Workload& workload, RunPlugins plugins) {
  return build(std::make_unique<PreparedRun>(), config, cluster, workload, std::move(plugins));
}

std::unique_ptr<PreparedRun> open_run(const RunConfig& config, const ClusterSpec& cluster, bool whole,
                                      WallClock::time_point t0) {
  RunPlugins plugins = build_plugins(config, cluster);
  auto run = std::make_unique<PreparedRun>();
  run->opened = std::make_unique<Workload>();
  Workload& w = *run->opened;
  if (!whole && takes_jobs_as_they_come(plugins)) run->feed = open_workload(config, cluster, w);
  if (run->feed && is_trace(w)) {  // what it held is logged once the run is done (run_workload)
    log::debug("{}: read as the replay goes; ready in {:.3f} s", w.source, seconds_since(t0));
  } else if (run->feed) {
    log::info("{}: about {} jobs, drawn as the replay goes; ready in {:.3f} s", w.source, run->feed->expected_jobs(),
              seconds_since(t0));
  } else {
    w = load_workload(config, cluster);
    log::info("{}: {}, loaded in {:.3f} s", w.source, describe_loaded(w), seconds_since(t0));
  }
  return build(std::move(run), config, cluster, w, std::move(plugins));
}

std::vector<std::pair<std::string, std::string>> resolve_run(const RunConfig& config, const ClusterSpec& cluster) {
  return build_plugins(config, cluster).described;
}

bool draw_plots(const std::string& script, const std::filesystem::path& folder) {
  const auto path = configs_dir().parent_path() / "scripts" / script;
  const std::string python = "/usr/bin/python3";
  if (!std::filesystem::exists(python) || !std::filesystem::exists(path)) {
    log::warn("plots skipped: {} or {} not found", python, path.string());
    return false;
  }
  const std::string command = python + " '" + path.string() + "' '" + folder.string() + "'";
  if (std::system(command.c_str()) == 0) return true;
  log::warn("plots skipped: {} failed (is python3-matplotlib installed?)", command);
  return false;
}

}  // namespace acme
