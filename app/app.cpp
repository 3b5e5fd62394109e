#include "app/app.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <thread>

#include "policies/registry.h"
#include "app/make_simulation.h"
#include "app/plugin_keys.h"
#include "app/wall_clock.h"
#include "io/captured_table.h"
#include "io/csv.h"
#include "io/config.h"
#include "io/run_outputs.h"
#include "sim/error.h"
#include "sim/log.h"
#include "sim/simulation.h"
#include "sim/topology.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/acme_trace_writer.h"
#include "workloads/calibration.h"
#include "workloads/estimates.h"
#include "workloads/fidelity.h"
#include "workloads/registry.h"
#include "workloads/trace_schema.h"
#include "io/cluster_file.h"

namespace acme {

unsigned usable_cores() {
  const unsigned online = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return std::min(online, static_cast<unsigned>(CPU_COUNT(&set)));
  return online;
}

unsigned threads_of(const RunConfig& config) { return config.threads > 0 ? config.threads : usable_cores(); }

namespace {

// Steps the simulation to the end, drawing a progress line on stderr if asked.
void run_with_progress(Simulation& sim, std::size_t jobs, bool show) {
  const auto t0 = WallClock::now();
  auto last = t0;
  bool drawn = false;
  for (std::uint64_t steps = 1; sim.step(); ++steps) {
    if (!show || steps % 8192 != 0) continue;
    const auto now = WallClock::now();
    if (now - last < std::chrono::milliseconds(200)) continue;
    last = now;
    drawn = true;
    std::fprintf(stderr, "\r  simulated to %s  %llu / %zu jobs ended  %.1f s ", format_timestamp(sim.now()).c_str(),
                 static_cast<unsigned long long>(sim.jobs_ended()), jobs, seconds_since(t0));
  }
  if (drawn) std::fprintf(stderr, "\r%*s\r", 80, "");
}

// A recorded replay says which scheduler places the jobs that do not fit at their recorded start,
// and which configured policy it does not use.
void log_recorded_scheduler(const RunConfig& config) {
  if (config.replay != ReplayMode::Recorded) return;
  log::info("replay: recorded: each job starts at its recorded start; one that does not fit then starts as soon "
            "as it fits, oldest first (policy greedy){}",
            config.unused_policy.empty() ? "" : "; the configured policy " + config.unused_policy + " is not used");
}

// Steps a built run to its end and writes its outputs (execute_run, run_workload).
RunReport run_to_end(const RunConfig& config, PreparedRun& run, const std::filesystem::path& out_dir, bool progress,
                     Sink* observer, TableCapture* capture) {
  const auto t1 = WallClock::now();
  const ClusterSpec& cluster = run.cluster;  // as the features shape it (the nodes capacity adds)
  const Workload& workload = *run.workload;
  Simulation& sim = *run.sim;

  std::vector<const Feature*> features;
  for (const auto& f : sim.features()) features.push_back(f.get());
  const LinkSharing* links = first_of(features, &Feature::link_loads);
  RunOutputs outputs(config.outputs, SinkSettings{out_dir,
                                                  config.metrics_interval,
                                                  cluster.total_gpus(),
                                                  cluster.nodes,
                                                  cluster.gpus_per_node,
                                                  capture,
                                                  nullptr,
                                                  links,
                                                  links ? &sim.topology() : nullptr,
                                                  features,
                                                  threads_of(config)});
  RunReport report;
  for (const auto& s : outputs.sinks()) sim.add_sink(*s);
  if (observer) sim.add_sink(*observer);
  run_with_progress(sim, workload.size() + (run.feed ? run.feed->expected_jobs() : 0), progress);
  if (run.feed) run.feed->finish();
  report.simulate_s = run.build_s + seconds_since(t1);
  report.conservation = sim.check_conservation();
  sim.free_run_state();
  if (first_of(features, &Feature::failure_model))
    log::info("failures injected: {} ({} took a node down)", sim.failures_injected(), sim.nodes_failed());
  if (run.estimator && run.estimator->reads_time_limits())
    log::info("estimate.model recorded: {} of {} jobs record a time limit, the others take their type's estimate.limit_h",
              jobs_with_time_limits(workload), workload.size());

  std::array<std::size_t, kRejectReasons> rejected{};
  for (const JobOutcome& o : sim.outcomes()) ++rejected[static_cast<std::size_t>(o.reject)];
  for (std::size_t r = 1; r < rejected.size(); ++r)
    if (rejected[r] > 0)
      log::warn("{} jobs rejected: {} (state REJECTED in jobs.csv)", rejected[r], describe(static_cast<RejectReason>(r)));
  const std::size_t too_large = rejected[static_cast<std::size_t>(RejectReason::NodesExceedCluster)];
  if (const auto unlike = trace_unlike_cluster(workload.source, workload.schema, cluster, too_large)) log::warn("{}", *unlike);

  const auto t2 = WallClock::now();
  const JobReports reports = sim.job_reports();
  const RunRecord record{workload, cluster, config.replay, sim.outcomes(), std::move(run.described),
                         report.conservation, sim.window_gpu_seconds(),
                         first_of(features, &Feature::evaluations), reports.launches};
  outputs.finish(record, threads_of(config));
  if (observer) observer->finish(record);
  report.outputs_s = seconds_since(t2);
  return report;
}

// The run of `config` over its own workload (open_run): taken as the replay goes if it can be,
// and opened again whole (plugins built anew: the first replay's policy has moved on) and run
// again if its feed finds it cannot go on in release order.
RunReport run_workload(const RunConfig& config, const ClusterSpec& cluster, WallClock::time_point t0,
                       const std::filesystem::path& out_dir, bool progress, TableCapture* capture = nullptr) {
  log_recorded_scheduler(config);
  std::unique_ptr<PreparedRun> run;
  std::string why;
  try {  // the feed takes in its first jobs as the run is built
    run = open_run(config, cluster, false, t0);
    const RunReport report = run_to_end(config, *run, out_dir, progress, nullptr, capture);
    const Workload& w = *run->opened;
    if (run->feed && is_trace(w)) log::info("{}: {}", w.source, describe_loaded(w));
    else if (run->feed) log::info("{} jobs drawn", w.size());
    return report;
  } catch (const WholeWorkloadNeeded& e) {
    why = e.what();
  }
  run.reset();
  run = open_run(config, cluster, true, t0);
  log::info("{}: the trace cannot be replayed as it is read; read whole and replayed again", why);
  return run_to_end(config, *run, out_dir, progress, nullptr, capture);
}

}  // namespace

RunReport execute_run(const RunConfig& config, const ClusterSpec& cluster, const Workload& workload,
                      const std::filesystem::path& out_dir, bool progress, Sink* observer, TableCapture* capture) {
  const std::unique_ptr<PreparedRun> run = make_simulation(config, cluster, workload);
  return run_to_end(config, *run, out_dir, progress, observer, capture);
}

CapturedRun run_captured(const RunConfig& config) {
  const auto t0 = WallClock::now();
  const ClusterSpec cluster = load_cluster_spec(config.cluster);
  CapturedRun out;
  out.report = run_workload(config, cluster, t0, "", false, &out.outputs);
  return out;
}

int run_command(const RunArgs& args) {
  const auto t0 = WallClock::now();
  RunConfig config = load_run_config(args.config, args.overrides);
  config.threads = args.threads > 0 ? args.threads : usable_cores();
  const ClusterSpec cluster = load_cluster_spec(config.cluster);
  // Before the (long) load: a run killed at any point after this leaves no earlier run's files.
  check_output_folder(args.out_dir);
  if (std::filesystem::is_directory(args.out_dir)) remove_earlier_outputs(args.out_dir);
  const RunReport r = run_workload(config, cluster, t0, args.out_dir, args.progress && isatty(STDERR_FILENO));
  log::info("simulated in {:.3f} s, outputs in {:.3f} s, {:.3f} s in all; conservation checked: {} GPU-seconds; "
            "outputs in {}",
            r.simulate_s, r.outputs_s, seconds_since(t0), r.conservation.job_gpu_seconds, args.out_dir);
  return 0;
}

namespace {

void print_keys(const std::vector<Params::Doc>& keys) {
  for (const Params::Doc& d : keys)
    std::printf("      %s [%s]\n          %s\n", d.key.c_str(), d.fallback.c_str(), d.doc.c_str());
}

}  // namespace

std::vector<FileColumns> every_file_columns() {
  std::vector<FileColumns> all = output_columns();
  for (FileColumns& f : fidelity_columns()) all.push_back(std::move(f));
  for (FileColumns& f : calibration_columns()) all.push_back(std::move(f));
  return all;
}

int list_command(std::string_view what) {
  if (what == "columns") {
    std::fputs(columns_markdown(every_file_columns()).c_str(), stdout);
    return 0;
  }
  if (!what.empty()) throw InputError("list: unknown list '" + std::string(what) + "' (valid: columns)");
  std::printf("Policies (policy.name):\n");
  for (const KeySection& s : policy_key_sections()) {
    std::printf("  %s\n", s.title.c_str());
    print_keys(s.keys);
  }
  for (const KeySection& s : plugin_key_sections()) {
    std::printf("\n%s:\n", s.title.c_str());
    print_keys(s.keys);
  }
  std::printf("\nWorkload sources (workload.source):\n");
  for (const WorkloadSourceEntry& e : workload_source_table())
    std::printf("  %-12.*s %.*s\n", static_cast<int>(e.name.size()), e.name.data(),
                static_cast<int>(e.description.size()), e.description.data());
  std::printf("\nOutputs (outputs):\n");
  for (const SinkEntry& e : sink_table())
    std::printf("  %-12.*s %.*s\n", static_cast<int>(e.name.size()), e.name.data(),
                static_cast<int>(e.description.size()), e.description.data());
  return 0;
}

int gen_command(const GenArgs& args) {
  if (args.cluster != "seren" && args.cluster != "kalos")
    throw InputError("--cluster: expected seren or kalos, got '" + args.cluster + "'");
  const auto from = parse_timestamp(args.from);
  const auto to = parse_timestamp(args.to);
  if (!from) throw InputError("--from: expected a date like 2023-03-01, got '" + args.from + "'");
  if (!to) throw InputError("--to: expected a date like 2023-04-01, got '" + args.to + "'");
  if (*to <= *from) throw InputError("--to: must be later than --from");
  if (!(args.load > 0)) throw InputError("--load: must be positive");
  // -o out/seren.csv makes out/ as --out does; checked before the drawing, made at the end.
  const std::filesystem::path output_folder = std::filesystem::path(args.output).parent_path();
  if (!output_folder.empty()) check_output_folder(output_folder, "-o");
  if (!args.policy.empty()) {
    try {
      make_policy(args.policy);
    } catch (const InputError& e) {
      throw InputError(std::string("--policy: ") + e.what());
    }
  }
  // The replay is the cluster's default run (configs/<cluster>.yaml: its policy with its keys, its
  // estimates) on the drawn jobs, without the network slowdown: a trace's run times include it.
  std::vector<std::string> sets = {"workload.source=synthetic", "workload.trace=", "workload.from=" + args.from,
                                   "workload.to=" + args.to, "workload.load=" + std::to_string(args.load),
                                   "seed=" + std::to_string(args.seed), "network.slowdown=false", "outputs=summary"};
  if (!args.model_file.empty()) sets.push_back("workload.model=" + args.model_file);
  if (!args.cluster_file.empty()) sets.push_back("cluster=" + args.cluster_file);
  const std::string config_file =
      args.config_file.empty() ? (configs_dir() / (args.cluster + ".yaml")).string() : args.config_file;
  RunConfig config = load_run_config(config_file, sets);
  if (!args.policy.empty() && args.policy != config.policy_name) {  // another policy, at its defaults
    config.policy_name = args.policy;
    config.policy_params.clear();
  }
  const auto t0 = WallClock::now();
  const ClusterSpec cluster = load_cluster_spec(config.cluster);
  // Start and end times are those of a replay on the cluster, so the trace is self-consistent:
  // the jobs are replayed as they are drawn, unless the policy's estimates need them all first.
  const auto t_run = WallClock::now();
  const std::unique_ptr<PreparedRun> run = open_run(config, cluster, false, t_run);
  run->sim->run();
  const double sim_s = seconds_since(t_run);
  run->sim->check_conservation();
  const Workload& w = *run->opened;
  std::size_t rejected = 0;
  for (const JobOutcome& o : run->sim->outcomes()) rejected += o.state == JobState::Rejected;
  if (rejected > 0)
    throw InputError(config.workload_model + ": " + std::to_string(rejected) + " generated jobs can never run on " +
                     config.cluster + " under policy " + config.policy_name + "; the model and the cluster disagree");
  if (!output_folder.empty()) create_output_folder(output_folder, "-o");
  write_acme_trace(args.output, args.cluster == "kalos" ? TraceSchema::Kalos : TraceSchema::Seren, w,
                   run->sim->outcomes());
  log::info("wrote {} jobs ({}) to {} in {:.2f} s (drawn and replayed under {} in {:.2f} s)", w.size(), w.source,
            args.output, seconds_since(t0), config.policy_name, sim_s);
  return 0;
}

int calibrate_command(const CalibrateArgs& args) {
  if (args.cluster != "seren" && args.cluster != "kalos")
    throw InputError("--cluster: expected seren or kalos, got '" + args.cluster + "'");
  const auto dir = configs_dir();
  const std::string published_file = args.published_file.empty()
                                         ? (dir / "workloads" / (args.cluster + ".published.yaml")).string()
                                         : args.published_file;
  const PublishedStats published = load_published_stats(published_file);
  check_output_folder(args.out_dir);  // before the table is printed: a bad --out prints one line
  TraceCacheSettings cache;
  cache.enabled = args.cache;
  const Workload trace = read_acme_trace_cached(args.trace, TraceOptions{}, cache).workload;
  const CalibrationReport report = calibrate(trace, published);
  std::fputs(format_calibration_table(report).c_str(), stdout);
  const std::filesystem::path out = args.out_dir;
  write_calibration(report, out);

  if (draw_plots("plot_calibration.py", out) && !args.keep_data) std::filesystem::remove_all(out / "data");
  log::info("calibration of {} against {}: {} in {}", args.trace, published_file,
            report.passed() ? "every statistic within tolerance" : std::to_string(report.failures()) + " statistics out of tolerance",
            out.string());
  return report.passed() ? 0 : 1;
}

std::string config_keys_help() {
  std::string s = "Configuration keys (YAML, or --set key=value; defaults in brackets):\n";
  const RunConfig defaults;
  for (const auto& f : run_config_fields()) {
    const std::string value = f.get(defaults);
    s += "  " + std::string(f.key) + " [" + value + "]\n      " + std::string(f.doc) + "\n";
  }
  return s;
}

}  // namespace acme
