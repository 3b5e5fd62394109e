// Where a run is built from its configuration: the policy (greedy under replay: recorded), the
// placement, the model features (a rewrite of the workload by one, as evaluation's decoupling;
// the failure model is the failures feature's) and the run-time estimates (made only for a policy
// that reads them), wired into a Simulation; for a run of its own workload (open_run: `acmesim
// run`, `gen`, the Python module), that workload opened as the run can take it. Sweeps and validate
// (through execute_run, app/app.h) and tests (tests/policies/test_invariants.cpp) build their runs
// over a workload they share (make_simulation); the sinks are the caller's.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/wall_clock.h"
#include "io/config.h"
#include "sim/simulation.h"
#include "workloads/estimates.h"

namespace acme {

// A run ready to step, with everything its Simulation points to. Not movable: returned by
// unique_ptr.
struct PreparedRun {
  // A run of its own workload (open_run): the workload, and the feed that appends the rest of its
  // jobs as the replay goes (set on `sim`: Simulation::set_feed), null if it was loaded whole.
  // Null for a run over its caller's workload (make_simulation).
  std::unique_ptr<Workload> opened;
  std::unique_ptr<JobFeed> feed;
  std::optional<Workload> rewritten;           // the workload as a feature rewrote it (Feature::rewrite), if one did
  ClusterSpec cluster;                         // the cluster file's, as the features shape it (Feature::shape)
  // The run's estimate model when its policy reads estimates (made for the workload's jobs, and
  // for a fed workload's as they come: Simulation::set_feed); null otherwise.
  std::unique_ptr<Estimator> estimator;
  // Every key of the run with the value in force (resolve_run), for the outputs.
  std::vector<std::pair<std::string, std::string>> described;
  const Workload* workload = nullptr;          // what `sim` replays: &*rewritten, &*opened or the caller's
  std::unique_ptr<Simulation> sim;
  double build_s = 0;                          // wall seconds the Simulation took to build

  PreparedRun() = default;
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;
};

// A run's plugins, built once from its configuration before its workload is read, each from its
// own keys (which it checks): the policy, the model features that are on (each registered
// feature, io/feature_registry.h), and every key with the value in force. What needs the
// workload (a feature's rewrite, the estimates) make_simulation adds. A run's plugins serve one
// Simulation: a run replayed again builds them again.
struct RunPlugins {
  std::unique_ptr<Policy> policy;
  std::unique_ptr<Estimator> estimator;  // estimate.*, made for every run (its keys are checked)
  std::vector<std::unique_ptr<Feature>> features;  // the registered features that are on (io/feature_registry.h)
  std::vector<std::pair<std::string, std::string>> described;
};
// Throws InputError for a key no plugin has or a bad value.
RunPlugins build_plugins(const RunConfig& config, const ClusterSpec& cluster);

// Whether a run can start before its workload is whole: no feature rewrites its jobs
// (Feature::needs_whole_workload) and its policy reads no estimates or estimates each job's from
// the job alone (Estimator::per_job; percentile needs every job first).
bool takes_jobs_as_they_come(const RunPlugins& plugins);

// Builds the run of `config` over `workload` on `cluster` from its plugins (built here if not
// given). Throws InputError for a key no plugin has or a bad value. REQUIRES: `workload`
// outlives the result.
std::unique_ptr<PreparedRun> make_simulation(const RunConfig& config, const ClusterSpec& cluster,
                                             const Workload& workload, RunPlugins plugins);
std::unique_ptr<PreparedRun> make_simulation(const RunConfig& config, const ClusterSpec& cluster,
                                             const Workload& workload);

// The run of `config` over its own workload (workload.*), built once: its plugins, then its
// workload, taken as the replay goes (PreparedRun::feed) when the run can take it so
// (takes_jobs_as_they_come) and `whole` is false, else loaded whole, then its Simulation. Logs
// how the workload was opened (its time counted from `t0`). A feed that finds it cannot go on in
// release order throws WholeWorkloadNeeded, here (its first jobs are taken in as the run is
// built) or from the run's steps: the caller opens the run again, whole. `acmesim run`, `gen`
// and the Python module build their runs so.
std::unique_ptr<PreparedRun> open_run(const RunConfig& config, const ClusterSpec& cluster, bool whole,
                                      WallClock::time_point t0);

// The shipped configs/ folder: ./configs, else the nearest one up from the executable's folder
// (build/configs, then configs beside build/, ...), else up from the Python module's.
std::filesystem::path configs_dir();

// Runs scripts/<script> (beside configs_dir()) with /usr/bin/python3 on `folder`, to draw a
// command's plots; returns false, with a warning, if python3, the script or matplotlib is missing.
// The command's tables and exit code never depend on it.
bool draw_plots(const std::string& script, const std::filesystem::path& folder);

}  // namespace acme
