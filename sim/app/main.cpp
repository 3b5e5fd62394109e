// acmesim: the command line. Parses arguments and hands them to the commands in app.cpp.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <stdexcept>

#include "sim/app/app.h"
#include "sim/error.h"
#include "sim/log.h"

int main(int argc, char** argv) {
  CLI::App app{"acmesim: a discrete-event simulator of GPU clusters for LLM development,\n"
               "modeled on the Acme datacenter (Seren and Kalos, NSDI '24)."};
  app.require_subcommand(1);
  app.footer(
      "\nExamples:\n"
      "  acmesim run configs/seren.yaml                      one month of synthetic Seren, FIFO\n"
      "  acmesim run configs/seren.yaml --set workload.trace=trace_seren.csv \\\n"
      "      --set workload.from=2023-04-01 --set workload.to=2023-05-01 --out out/april\n"
      "  acmesim run configs/kalos.yaml --set workload.trace=trace_kalos.csv --set replay=recorded\n"
      "  acmesim gen --cluster seren --from 2023-03-01 --to 2023-09-01 -o seren6m.csv\n"
      "  acmesim calibrate seren6m.csv --cluster seren --out out/calibrate   table, plots, exit 1 if off\n"
      "  acmesim validate seren6m.csv --cluster seren --set policy.name=greedy --out out/validate\n"
      "                                 queueing delay replayed vs recorded, per type; exit 1 if off\n"
      "  acmesim sweep configs/sweeps/example.yaml --out out/sweep   many runs in parallel, one summary.csv\n"
      "  acmesim compare out/sweep --by policy.name             means, 95% CIs and ratios over seeds\n"
      "  acmesim list                                        policies, workload sources, outputs\n");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "more log lines on stderr");

  acme::RunArgs run;
  CLI::App* run_cmd = app.add_subcommand("run", "replay a workload on a modeled cluster and write metrics");
  run_cmd->add_option("config", run.config, "run configuration (YAML), e.g. configs/seren.yaml")->required();
  run_cmd->add_option("--set", run.overrides, "override a key: --set policy.name=fifo (repeatable)");
  run_cmd->add_option("--out", run.out_dir, "output folder, created if needed")->capture_default_str();
  bool quiet = false;
  run_cmd->add_flag("-q,--quiet", quiet, "no progress line");
  run_cmd->footer("\n" + acme::config_keys_help());

  CLI::App* list_cmd = app.add_subcommand("list", "list policies, workload sources and outputs");

  acme::GenArgs gen;
  CLI::App* gen_cmd = app.add_subcommand("gen", "write a synthetic trace in the AcmeTrace schema");
  gen_cmd->add_option("--cluster", gen.cluster, "seren or kalos: schema and default model")->capture_default_str();
  gen_cmd->add_option("--from", gen.from, "first submit day, e.g. 2023-03-01 (UTC)")->required();
  gen_cmd->add_option("--to", gen.to, "end of the window (exclusive)")->required();
  gen_cmd->add_option("--seed", gen.seed, "random seed")->capture_default_str();
  gen_cmd->add_option("--load", gen.load, "arrival-rate multiplier (1.0: published rate)")->capture_default_str();
  gen_cmd->add_option("-o,--output", gen.output, "trace file to write")->required();
  gen_cmd->add_option("--config", gen.config_file,
                      "run configuration of the replay: policy and its keys, estimates, launch latency "
                      "(default configs/<cluster>.yaml)");
  gen_cmd->add_option("--model", gen.model_file, "workload model (default configs/workloads/<cluster>.yaml)");
  gen_cmd->add_option("--cluster-file", gen.cluster_file, "cluster file (default configs/clusters/<cluster>.yaml)");
  gen_cmd->add_option("--policy", gen.policy,
                     "policy of the replay that sets start and end times, at its defaults [default: the policy of "
                     "configs/<cluster>.yaml, acme, with its keys]");

  acme::CalibrateArgs cal;
  CLI::App* cal_cmd = app.add_subcommand(
      "calibrate", "compare a trace in the AcmeTrace schema with the published statistics; exit 1 if out of tolerance");
  cal_cmd->add_option("trace", cal.trace, "trace file (AcmeTrace schema, real or synthetic)")->required();
  cal_cmd->add_option("--cluster", cal.cluster, "seren or kalos: the published statistics")->capture_default_str();
  cal_cmd->add_option("--out", cal.out_dir, "folder for calibration.csv and the plots")->capture_default_str();
  cal_cmd->add_option("--published", cal.published_file,
                      "published statistics (default configs/workloads/<cluster>.published.yaml)");
  cal_cmd->add_flag("--keep-data", cal.keep_data, "keep <out>/data, the CDF tables behind the plots");

  acme::ValidateArgs val;
  CLI::App* val_cmd = app.add_subcommand(
      "validate", "replay a trace and compare each job's queueing delay with the recorded one; exit 1 if off");
  val_cmd->add_option("trace", val.trace, "trace file (AcmeTrace schema, real or from acmesim gen)")->required();
  val_cmd->add_option("--cluster", val.cluster, "seren or kalos: the run configuration configs/<cluster>.yaml")
      ->capture_default_str();
  val_cmd->add_option("--config", val.config, "run configuration instead of configs/<cluster>.yaml");
  val_cmd->add_option("--set", val.overrides,
                      "a run key (policy.name=fifo) or validate.max_cdf_gap [0.1], validate.min_jobs [50] (repeatable)");
  val_cmd->add_option("--out", val.out_dir, "folder for fidelity.csv, the plots and run/")->capture_default_str();
  bool val_quiet = false;
  val_cmd->add_flag("-q,--quiet", val_quiet, "no progress line");

  acme::SweepArgs sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "run every run of a sweep file in parallel (and over MPI ranks under mpirun or srun), resumable; "
               "exit 1 if a run failed");
  sweep_cmd->add_option("sweep", sweep.file, "sweep file (YAML), e.g. configs/sweeps/example.yaml")->required();
  sweep_cmd->add_option("--out", sweep.out_dir, "output folder: runs/<id>/, summary.csv, summary_by_type.csv")
      ->required();
  sweep_cmd->add_option("-j,--jobs", sweep.jobs,
                        "worker threads per process (default: the cores this process may use)");
  bool sweep_quiet = false;
  sweep_cmd->add_flag("-q,--quiet", sweep_quiet, "no progress bar");

  acme::CompareArgs compare;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare", "means with 95% confidence intervals over seeds, and ratios to a baseline, from a sweep's summary.csv");
  compare_cmd->add_option("dir", compare.dir, "a sweep's output folder (or its summary.csv)")->required();
  compare_cmd->add_option("--by", compare.by, "group by these columns, e.g. policy.name (comma-separated or repeated)")
      ->required()
      ->delimiter(',');
  compare_cmd->add_option("--baseline", compare.baseline, "the baseline group, e.g. fifo (default: the first)");
  compare_cmd->add_option("--metric", compare.metrics,
                          "metrics (default queue_mean_s,queue_p90_s,gpu_util_pct,wasted_gpu_hours)")
      ->delimiter(',');

  CLI11_PARSE(app, argc, argv);
  acme::log::init(verbose);
  try {
    if (*run_cmd) {
      run.progress = !quiet;
      return acme::run_command(run);
    }
    if (*list_cmd) return acme::list_command();
    if (*gen_cmd) return acme::gen_command(gen);
    if (*cal_cmd) return acme::calibrate_command(cal);
    if (*val_cmd) {
      val.progress = !val_quiet;
      return acme::validate_command(val);
    }
    if (*sweep_cmd) {
      sweep.progress = !sweep_quiet;
      return acme::sweep_command(sweep);
    }
    if (*compare_cmd) return acme::compare_command(compare);
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
