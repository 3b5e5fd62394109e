// acmesim: the command line. Parses arguments and hands them to the commands in app.cpp.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "policies/registry.h"
#include "app/app.h"
#include "app/plugin_keys.h"
#include "sim/error.h"
#include "sim/log.h"

namespace {

constexpr const char* kNoCacheHelp =
    "parse the trace, neither reading nor writing the trace cache (cache.enabled=false)";

// A subcommand: its parsed options, and what runs it with them.
struct Command {
  CLI::App* cli;
  std::function<int()> action;
};

// Each adds its subcommand and options to `app`; the options are kept alive by the action.
Command add_run(CLI::App& app) {
  auto run = std::make_shared<acme::RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "replay a workload on a modeled cluster and write metrics");
  cmd->add_option("config", run->config, "run configuration (YAML), e.g. configs/seren.yaml")->required();
  cmd->add_option("--set", run->overrides, "override a key: --set policy.name=fifo (repeatable)");
  cmd->add_option("--out", run->out_dir, "output folder, created if needed")->capture_default_str();
  auto policy = std::make_shared<std::string>();
  cmd->add_option("--policy", *policy, "the policy, as --set policy.name=NAME (acmesim list names them)");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("-q,--quiet", *quiet, "no progress line");
  cmd->add_option("-j,--threads", run->threads,
                  "threads that read the trace and write the outputs (default: the cores this process may use; "
                  "the outputs are the same bytes for any number)");
  auto no_cache = std::make_shared<bool>(false);
  cmd->add_flag("--no-cache", *no_cache, kNoCacheHelp);
  cmd->footer([] { return "\n" + acme::config_keys_help() + acme::plugin_keys_help(); });  // on --help only
  return {cmd, [run, policy, quiet, no_cache] {
            run->progress = !*quiet;
            if (*no_cache) run->overrides.push_back("cache.enabled=false");
            if (!policy->empty()) {
              for (const std::string& set : run->overrides)
                if (set.starts_with("policy.name="))
                  throw acme::InputError("--policy " + *policy + " and --set " + set + ": name the policy once");
              run->overrides.insert(run->overrides.begin(), "policy.name=" + *policy);
            }
            return acme::run_command(*run);
          }};
}

Command add_list(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "list policies, workload sources and outputs");
  cmd->add_option("what", *what, "columns: every output file's columns and what they hold (Markdown)");
  return {cmd, [what] { return acme::list_command(*what); }};
}

Command add_gen(CLI::App& app) {
  auto gen = std::make_shared<acme::GenArgs>();
  CLI::App* cmd = app.add_subcommand("gen", "write a synthetic trace in the AcmeTrace schema");
  cmd->add_option("--cluster", gen->cluster, "seren or kalos: schema and default model")->capture_default_str();
  cmd->add_option("--from", gen->from,
                  "first submit time: a date is midnight UTC (2023-03-01), a time carries its offset "
                  "(\"2023-03-01 00:00:00+08:00\")")
      ->required();
  cmd->add_option("--to", gen->to, "end of the window (exclusive), same forms as --from")->required();
  cmd->add_option("--seed", gen->seed, "random seed")->capture_default_str();
  cmd->add_option("--load", gen->load, "arrival-rate multiplier (1.0: published rate)")->capture_default_str();
  cmd->add_option("-o,--output", gen->output, "trace file to write")->required();
  cmd->add_option("--config", gen->config_file,
                  "run configuration of the replay: policy and its keys, estimates, launch latency "
                  "(default configs/<cluster>.yaml)");
  cmd->add_option("--model", gen->model_file, "workload model (default configs/workloads/<cluster>.yaml)");
  cmd->add_option("--cluster-file", gen->cluster_file, "cluster file (default configs/clusters/<cluster>.yaml)");
  cmd->add_option("--policy", gen->policy,
                  "policy of the replay that sets start and end times, at its defaults [default: the policy of "
                  "the run configuration, acme, with its keys]");
  return {cmd, [gen] { return acme::gen_command(*gen); }};
}

Command add_validate(CLI::App& app) {
  auto val = std::make_shared<acme::ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "replay a trace and compare each job's queueing delay with the recorded one; exit 1 if off");
  cmd->add_option("trace", val->trace, "trace file (AcmeTrace schema, real or from acmesim gen; or Helios's, sacct's, Philly's, PAI's, Alibaba's 2023 pods, an SWF log: README)")->required();
  cmd->add_option("--cluster", val->cluster, "seren or kalos: the run configuration configs/<cluster>.yaml")
      ->capture_default_str();
  cmd->add_option("--config", val->config, "run configuration instead of configs/<cluster>.yaml");
  cmd->add_option("--set", val->overrides,
                  "a run key (policy.name=fifo) or validate.max_cdf_gap [0.1], validate.min_jobs [50] (repeatable)");
  cmd->add_option("--out", val->out_dir, "folder for fidelity.csv, the plots and run/")->capture_default_str();
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("-q,--quiet", *quiet, "no progress line");
  auto no_cache = std::make_shared<bool>(false);
  cmd->add_flag("--no-cache", *no_cache, kNoCacheHelp);
  return {cmd, [val, quiet, no_cache] {
            val->progress = !*quiet;
            if (*no_cache) val->overrides.push_back("cache.enabled=false");
            return acme::validate_command(*val);
          }};
}

Command add_calibrate(CLI::App& app) {
  auto cal = std::make_shared<acme::CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "compare a trace in the AcmeTrace schema with the published statistics; exit 1 if out of tolerance");
  cmd->add_option("trace", cal->trace, "trace file (AcmeTrace schema, real or synthetic)")->required();
  cmd->add_option("--cluster", cal->cluster, "seren or kalos: the published statistics")->capture_default_str();
  cmd->add_option("--out", cal->out_dir, "folder for calibration.csv and the plots")->capture_default_str();
  cmd->add_option("--published", cal->published_file,
                      "published statistics (default configs/workloads/<cluster>.published.yaml)");
  cmd->add_flag("--keep-data", cal->keep_data, "keep <out>/data, the CDF tables behind the plots");
  auto no_cache = std::make_shared<bool>(false);
  cmd->add_flag("--no-cache", *no_cache, kNoCacheHelp);
  return {cmd, [cal, no_cache] {
            cal->cache = !*no_cache;
            return acme::calibrate_command(*cal);
          }};
}

Command add_sweep(CLI::App& app) {
  auto sweep = std::make_shared<acme::SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "run every run of a sweep file in parallel (and over MPI ranks under mpirun or srun), resumable; "
               "exit 1 if a run failed");
  cmd->add_option("sweep", sweep->file, "sweep file (YAML), e.g. configs/sweeps/example.yaml")->required();
  cmd->add_option("--out", sweep->out_dir, "output folder: runs/<id>/, summary.csv, summary_by_type.csv")
      ->required();
  cmd->add_option("-j,--jobs", sweep->jobs,
                        "worker threads per process (default: the cores this process may use)");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("-q,--quiet", *quiet, "no progress bar");
  auto no_cache = std::make_shared<bool>(false);
  cmd->add_flag("--no-cache", *no_cache, kNoCacheHelp);
  auto shard = std::make_shared<std::string>();
  CLI::Option* shard_opt = cmd->add_option(
      "--shard", *shard,
      "I/N: run only share I (0 to N-1) of N and do not merge, e.g. --shard $SLURM_ARRAY_TASK_ID/4 in a job array");
  cmd->add_flag("--merge", sweep->merge_only, "run nothing: merge the finished runs into summary.csv (after the shards)")
      ->excludes(shard_opt);
  return {cmd, [sweep, quiet, no_cache, shard] {
            sweep->progress = !*quiet;
            sweep->cache = !*no_cache;
            if (!shard->empty()) sweep->shard = acme::parse_shard(*shard);
            return acme::sweep_command(*sweep);
          }};
}

Command add_compare(CLI::App& app) {
  auto compare = std::make_shared<acme::CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "means with 95% confidence intervals over seeds, and ratios to a baseline, from a sweep's summary.csv");
  cmd->add_option("dir", compare->dir, "a sweep's output folder (or its summary.csv)")->required();
  cmd->add_option("--by", compare->by, "group by these columns, e.g. policy.name (comma-separated or repeated)")
      ->required()
      ->delimiter(',');
  cmd->add_option("--baseline", compare->baseline, "the baseline group, e.g. fifo (default: the first)");
  cmd->add_option("--metric", compare->metrics,
                          "metrics (default queue_mean_s,queue_p90_s,gpu_util_pct,wasted_gpu_hours)")
      ->delimiter(',');
  return {cmd, [compare] { return acme::compare_command(*compare); }};
}

// The line a command line that CLI11 refuses gets. CLI11 takes an unknown command for an
// argument and says "A subcommand is required": the command is named instead, with the valid ones.
std::string parse_error_line(const CLI::ParseError& e, int argc, char** argv, std::span<const Command> commands) {
  std::string valid;
  for (const Command& c : commands) valid += (valid.empty() ? "" : ", ") + c.cli->get_name();
  const char* given = nullptr;  // the first argument that is no option: the command (no option takes a value)
  for (int i = 1; i < argc && !given; ++i)
    if (argv[i][0] != '-') given = argv[i];
  bool known = false;
  for (const Command& c : commands) known |= given && c.cli->get_name() == given;
  if (!given) return "no command given (the commands: " + valid + "; acmesim --help)";
  if (!known) return "unknown command '" + std::string(given) + "' (the commands: " + valid + "; acmesim --help)";
  std::string what = e.what();
  for (char& c : what)
    if (c == '\n') c = ' ';
  return what + " (acmesim --help, or acmesim <command> --help)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"acmesim: a discrete-event simulator of GPU clusters for LLM development,\n"
               "modeled on the Acme datacenter (Seren and Kalos, NSDI '24)."};
  app.require_subcommand(1);
  app.footer(
      "\nDates: a date alone is midnight UTC (2023-04-01); a time carries its offset (2023-04-01 00:00:00+08:00,\n"
      "the Seren trace's own; Kalos's is UTC). A configured window is printed as it was written.\n"
      "\nExamples:\n"
      "  acmesim run configs/seren.yaml                      one month of synthetic Seren, the Acme baseline\n"
      "  acmesim run configs/seren.yaml --set workload.trace=trace_seren.csv --out out/april \\\n"
      "      --set workload.from=\"2023-04-01 00:00:00+08:00\" --set workload.to=\"2023-05-01 00:00:00+08:00\"\n"
      "  acmesim run configs/kalos.yaml --set workload.trace=trace_kalos.csv --set replay=recorded \\\n"
      "      --set policy.name=greedy\n"
      "  acmesim gen --cluster seren --from 2023-03-01 --to 2023-09-01 --seed 1 -o out/seren_6m.csv\n"
      "  acmesim calibrate out/seren_6m.csv --cluster seren --out out/calibrate   table, plots, exit 1 if off\n"
      "  acmesim validate trace_seren.csv --cluster seren --out out/validate\n"
      "                                 queueing delay replayed vs recorded, per type; exit 1 if off\n"
      "  acmesim sweep configs/sweeps/example.yaml --out out/sweep   many runs in parallel, one summary.csv\n"
      "  acmesim compare out/sweep --by policy.name             means, 95% CIs and ratios over seeds\n"
      "  acmesim list                                        policies, workload sources, outputs\n"
      "  acmesim list columns                                every output file's columns\n");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "more log lines on stderr");
  app.set_version_flag("--version", std::string("acmesim ") + ACMESIM_VERSION, "print the version and exit");
  // In the order --help lists them.
  const Command commands[] = {add_run(app),       add_list(app),  add_gen(app),    add_calibrate(app),
                              add_validate(app), add_sweep(app), add_compare(app)};

  // policy.name: python:module.Class is made by the Python module (python/README.md); here it is
  // an error that says so.
  acme::set_policy_resolver("python", [](std::string_view name, acme::Params&) -> std::unique_ptr<acme::Policy> {
    throw acme::InputError("policy '" + std::string(name) +
                           "': python: policies run from Python (acmesim.run), not from the acmesim executable");
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // a user error, as a bad key is: one line, exit 2
    std::fprintf(stderr, "acmesim: error: %s\n", parse_error_line(e, argc, argv, commands).c_str());
    return 2;
  }
  acme::log::init(verbose);
  try {
    for (const Command& c : commands)
      if (*c.cli) return c.action();
  } catch (const acme::InputError& e) {
    std::fprintf(stderr, "acmesim: error: %s\n", e.what());
    return 2;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "acmesim: internal error (please report): %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "acmesim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
