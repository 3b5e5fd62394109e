// `acmesim validate TRACE`: replays a trace under the configured policy and compares each job's
// simulated queueing delay with the one the trace recorded (workloads/fidelity.h).
//
// The run is configs/<cluster>.yaml (or --config) with workload.trace = TRACE, the window cleared
// (the whole file is replayed unless --set gives one), network.slowdown off (recorded run times
// already include the network; `acmesim gen`'s replay has no slowdown either) and outputs
// jobs,summary,run_json into DIR/run; then the --set values, any run key. `validate.*` keys
// (max_cdf_gap, min_jobs) set the tolerance. With the policy `gen` used, a replay of gen's trace
// gives every job its recorded start back; but a policy that reads estimates needs
// estimate.model=none (gen's replay gives none), and one that stops running jobs cannot be
// reproduced (a trace row keeps only the first start and the last end).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "io/csv.h"
#include "app/app.h"
#include "app/make_simulation.h"
#include "sim/cluster_spec.h"
#include "sim/error.h"
#include "sim/log.h"
#include "io/cluster_file.h"
#include "io/params.h"
#include "workloads/fidelity.h"
#include "workloads/registry.h"
#include "workloads/trace_schema.h"

namespace acme {
namespace {

// Records both schedules of the run: the trace's (from the workload's recorded starts and run
// times) and the replay's (outcomes), and every GPU holding of the replay, run by run.
// Both utilization series count a job's GPUs from its start to its end. The replay holds GPUs from
// placement, a launch latency (launch.*) before the start; a trace records only the start, so the
// first holding of each job is counted from its start (JobOutcome::start, after the launch), as
// the trace counts it. Counted from placement, a replay that gives every job its recorded start
// back showed a higher utilization than the trace (Kalos, gen's two weeks: 27.28% against 27.24%).
// Later runs of a stopped job keep their launch: a trace has no record of them either way.
class ScheduleRecorder final : public Sink {
 public:
  std::vector<ScheduledJob> recorded, simulated;
  std::vector<GpuSpan> recorded_spans, simulated_spans;

  void on_fact(const Fact& f) override {
    if (!f.placement || f.request->gpu_num == 0) return;
    if (open_.size() <= f.job) open_.resize(f.job + 1);
    Open& o = open_[f.job];
    const std::int64_t gpus = gpus_of(*f.placement);
    if (f.kind == FactKind::Started) {
      o.since = f.time;
      o.gpus = gpus;
      return;
    }
    // Ended, Preempted, Failed, Requeued: the GPUs given back then end a holding.
    if (gpus > 0 && o.gpus > 0) {
      simulated_spans.push_back({o.since, f.time, std::min(gpus, o.gpus)});
      first_span_.push_back(o.spans++ == 0 ? f.job : kNoJob);
    }
    o.gpus -= std::min(gpus, o.gpus);
  }

  void finish(const RunRecord& run) override {
    const Workload& w = run.workload;
    recorded.resize(w.size());
    simulated.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
      const JobRequest& r = w.requests[i];
      const JobProfile& p = w.profiles[i];
      recorded[i] = {r.type, r.gpu_num, r.submit, p.recorded_start()};
      simulated[i] = {r.type, r.gpu_num, submitted(w, run.outcomes, static_cast<JobId>(i)), run.outcomes[i].start};
      if (const OptionalTime start = p.recorded_start(); start && r.gpu_num > 0)
        recorded_spans.push_back({*start, *start + p.run, r.gpu_num});
    }
    for (std::size_t k = 0; k < simulated_spans.size(); ++k)
      if (first_span_[k] != kNoJob)
        if (const OptionalTime start = run.outcomes[first_span_[k]].start) {
          GpuSpan& s = simulated_spans[k];
          s.start = std::min(std::max(s.start, *start), s.end);
        }
  }

 private:
  struct Open {
    Time since;
    std::int64_t gpus = 0;
    std::uint32_t spans = 0;  // holdings ended so far
  };
  std::vector<Open> open_;
  std::vector<JobId> first_span_;  // per simulated span: its job if the job's first holding, else kNoJob
};

// A --set value holding `text` as a YAML string, whatever characters it has.
std::string quoted(const std::string& key, const std::string& text) {
  std::string q = key + "='";
  for (char c : text) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

// The run configuration (see the top of this file) and the validate.* values, apart.
RunConfig validate_config(const ValidateArgs& args, std::vector<YamlValue>& validate_values) {
  const std::string file =
      args.config.empty() ? (configs_dir() / (args.cluster + ".yaml")).string() : args.config;
  std::vector<std::string> sets = {quoted("workload.trace", args.trace), "workload.from=", "workload.to=",
                                   "network.slowdown=false", "outputs=jobs,summary,run_json"};
  for (const std::string& s : args.overrides) {
    if (s.rfind("validate.", 0) == 0) validate_values.push_back(yaml_override(s));
    else sets.push_back(s);
  }
  RunConfig config = load_run_config(file, sets);
  if (config.workload_source != "acmetrace")
    throw InputError(config.where("workload.source") + ": workload.source: validate replays a trace (acmetrace)");
  if (config.eval_decoupled)
    throw InputError(config.where("eval") + ": eval: decoupled rewrites the evaluation jobs, which then cannot be "
                     "compared one by one with the trace's (use eval=coupled)");
  for (const std::string& name : split_commas(config.outputs))
    if (name == "console") throw InputError(config.where("outputs") + ": outputs: console would print into the table");
  return config;
}

// A validation that compared no job (none selected, or none started both in the trace and in the
// replay) is no validation: an error, exit 2, rather than "every gated group within tolerance".
[[noreturn]] void nothing_compared(const std::string& trace, const Workload& w) {
  throw InputError(trace + ": validate compared no job: of " + describe_loaded(w) +
                   ", none started both in the trace and in the replay");
}

}  // namespace

int validate_command(const ValidateArgs& args) {
  if (args.cluster != "seren" && args.cluster != "kalos")
    throw InputError("--cluster: expected seren or kalos, got '" + args.cluster + "'");
  std::vector<YamlValue> validate_values;
  const RunConfig config = validate_config(args, validate_values);
  Params validate_params("validate", validate_values);
  const FidelityTolerance tolerance = read_fidelity_tolerance(validate_params);
  validate_params.check_all_used();
  const ClusterSpec cluster = load_cluster_spec(config.cluster);
  const std::filesystem::path out = args.out_dir;
  check_output_folder(out);
  // Before the (long) load, as `acmesim run` does: a validation that fails leaves no earlier report.
  for (const char* name : {"fidelity.csv", "utilization.csv", "queue_cdf.csv", "queue_cdf.png", "utilization.png"})
    std::filesystem::remove(out / name);
  const Workload workload = load_workload(config, cluster);
  log::info("{}: {}; replaying under {}", workload.source, describe_loaded(workload), config.replay == ReplayMode::Recorded ? "replay: recorded" : config.policy_name);
  if (!workload.schema.empty() && workload.schema != name(TraceSchema::Other) && workload.schema != args.cluster)
    log::warn("{}: a trace of the {} schema validated with --cluster {}: its jobs are compared with a replay on "
              "the other cluster; use --cluster {}",
              args.trace, workload.schema, args.cluster, workload.schema);

  if (workload.size() == 0) nothing_compared(args.trace, workload);  // before any output

  ScheduleRecorder recorder;
  execute_run(config, cluster, workload, out / "run", args.progress && isatty(STDERR_FILENO), &recorder);
  FidelityReport report = compare_delays(recorder.recorded, recorder.simulated, tolerance);
  if (report.compared() == 0) nothing_compared(args.trace, workload);
  report.utilization =
      compare_utilization(recorder.recorded_spans, recorder.simulated_spans, cluster.total_gpus(), config.metrics_interval);
  std::fputs(format_fidelity_table(report).c_str(), stdout);
  write_fidelity(report, out);
  draw_plots("plot_fidelity.py", out);
  const bool judged = std::any_of(report.rows.begin(), report.rows.end(), [](const FidelityRow& r) { return r.gated; });
  log::info("fidelity of {} under {}: {} in {}", args.trace, config.policy_name,
            !report.passed() ? std::to_string(report.failures()) + " groups out of tolerance"
            : judged         ? std::string("every gated group within tolerance")
                             : "no group with enough jobs compared to judge (validate.min_jobs)",
            out.string());
  return report.passed() ? 0 : 1;
}

}  // namespace acme
