// Validation of the failure model (sim/failures.h) against the table it was derived from
// (AcmeTrace, NSDI '24, Table 3): inject failures into a Kalos-like population like the one the
// table was measured on and print the table back, reason by reason, beside the measured one.
//
// Population: the synthetic Kalos model (configs/workloads/kalos.yaml) over the trace's window
// (2023-05-17 .. 2023-08-15, 90 days), generated at a load high enough that every type has more
// jobs than the table's, then thinned at random to exactly 1300 Pretrain, 31000 Eval and 550 Debug
// jobs (sizes and run times as the model draws them; every job set to complete, so that only
// injected failures end runs early). FIFO on a cluster large enough that no job waits (2048 nodes
// of 8 GPUs), default failure settings (manual recovery) but no checkpoints and no restart
// overhead (every run is the job's whole run time, as in the table, where a restart is a new job),
// REPLICAS failure seeds; counts are means per replica, average GPUs, time to failure and GPU-time
// shares pooled.
//
// Which reason struck: a failure stops a run with FactKind::Failed at start + draw.after; the
// draw is pure (FailureModel::draw), so the sink recomputes it from (job, run number, GPUs). A
// Failed fact that does not match the job's own draw is a bystander of a node failure.
//
// Usage: acmesim_failure_validation ROOT [REPLICAS] [--fit ITERATIONS]   (ROOT: the source tree)
// Writes validation.csv to stdout, a summary (targets, bystanders) to stderr;
// with --fit, the fit block of configs/failures/acme.yaml (see fit) to stdout instead.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "policies/registry.h"
#include "sim/cluster_spec.h"
#include "sim/failures.h"
#include "io/params.h"
#include "sim/random.h"
#include "sim/simulation.h"
#include "sim/sink.h"
#include "io/yaml_util.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"
#include "features/failures.h"

namespace {

using namespace acme;

constexpr const char* kCategoryNames[] = {"Infrastructure", "Framework", "Script"};

struct Tally {
  double count = 0, gpus = 0, ttf_s = 0, gpu_s = 0;  // summed over failures
};

// Records each injected failure's reason from the model's (pure) draw.
class ReasonSink final : public Sink {
 public:
  ReasonSink(const FailureModel& m, const Workload& w, std::vector<Tally>& t)
      : model_(m), work_(w), tally_(t), start_(w.size()), starts_(w.size(), 0) {}
  void on_fact(const Fact& f) override {
    if (f.kind == FactKind::Started) {
      start_[f.job] = f.time;
      ++starts_[f.job];
    } else if (f.kind == FactKind::Failed) {
      const std::int32_t gpus = work_.requests[f.job].gpu_num;
      // Checkpoints are off, so every run is the job's whole run time (its horizon).
      const auto d = model_.draw(work_.keys[f.job], starts_[f.job] - 1, gpus, work_.profiles[f.job].run);
      if (!d || start_[f.job] + d->after != f.time) {
        ++bystanders;
        return;
      }
      Tally& t = tally_[d->reason];
      t.count += 1;
      t.gpus += gpus;
      t.ttf_s += static_cast<double>(d->after.sec());
      t.gpu_s += static_cast<double>(gpus) * static_cast<double>(d->after.sec());
    }
  }
  void finish(const RunRecord&) override {}
  std::uint64_t bystanders = 0;

 private:
  const FailureModel& model_;
  const Workload& work_;
  std::vector<Tally>& tally_;
  std::vector<Time> start_;
  std::vector<std::uint32_t> starts_;
};

FailureModel make_model(const std::string& table, int seed) {
  std::vector<YamlValue> v{yaml_override("failures.enabled=true"),
                           yaml_override("failures.seed=" + std::to_string(seed)),
                           yaml_override("failures.checkpoint.Pretrain=0"),
                           yaml_override("failures.comm_init_s=0"),  // no job checkpoints: nothing to load
                           yaml_override("failures.load_s=0"),
                           yaml_override("failures.warmup_s=0")};
  Params p("failures", v);
  FailureModel m = load_failure_model(p, table);
  p.check_all_used();
  return m;
}

// The synthetic Kalos population, thinned to the table's job counts per type.
Workload population(const std::string& root, double& gpu_seconds) {
  SyntheticModel model = load_synthetic_model(root + "/configs/workloads/kalos.yaml");
  model.large_jobs.max_concurrent_gpus = 0;  // a population thinned to the table's, not a cluster: open loop
  const Time from = *parse_timestamp("2023-05-17 00:00:00+00:00");
  const Time to = *parse_timestamp("2023-08-15 00:00:00+00:00");
  const Workload all = generate_workload(model, from, to, 2.5, 7, 8);
  const std::pair<JobType, std::size_t> want[] = {
      {JobType::Pretrain, 1300}, {JobType::Eval, 31000}, {JobType::Debug, 550}};
  std::vector<JobId> keep;
  Rng rng(11);
  for (const auto& [type, n] : want) {
    std::vector<JobId> ids;
    for (JobId j = 0; j < all.size(); ++j)
      if (all.requests[j].type == type && all.requests[j].gpu_num > 0) ids.push_back(j);
    if (ids.size() < n) throw std::runtime_error("population: too few jobs of a type; raise the load");
    for (std::size_t i = 0; i < n; ++i) {  // partial Fisher-Yates
      const std::size_t k = i + static_cast<std::size_t>(rng.uniform() * static_cast<double>(ids.size() - i));
      std::swap(ids[i], ids[std::min(k, ids.size() - 1)]);
    }
    keep.insert(keep.end(), ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n));
  }
  std::sort(keep.begin(), keep.end());  // submit order
  Workload w;
  w.source = "synthetic Kalos, thinned to 1300 Pretrain / 31000 Eval / 550 Debug";
  gpu_seconds = 0;
  for (JobId j : keep) {
    JobRequest r = all.requests[j];
    JobProfile p = all.profiles[j];
    p.final_state = JobState::Completed;
    p.set_recorded_start(std::nullopt);  // and no queue deadline
    r.user = w.users.intern(all.users[r.user]);
    gpu_seconds += static_cast<double>(r.gpu_num) * static_cast<double>(p.run.sec());
    w.add("j" + std::to_string(j), r, p);
  }
  return w;
}

struct Results {
  std::vector<Tally> tally;
  std::uint64_t bystanders = 0, injected = 0;
  double run_gpu_s = 0;
};

// Injects REPLICAS failure seeds of the model in `table` into `w`, on a cluster where no job waits.
Results simulate(const Workload& w, const std::string& table, int replicas) {
  ClusterSpec c;
  c.name = "large";
  c.nodes = 2048;
  c.gpus_per_node = 8;
  c.cpus_per_node = 1024;
  c.nodes_per_leaf = 32;
  c.spines = 8;
  Results out;
  for (int s = 1; s <= replicas; ++s) {
    const FailureModel m = make_model(table, s);
    out.tally.resize(m.reasons().size());
    Simulation sim(w, c, make_policy("fifo"), ReplayMode::Policy);
    sim.add_feature(failures_feature(m));
    ReasonSink sink(m, w, out.tally);
    sim.add_sink(sink);
    sim.run();
    out.bystanders += sink.bystanders;
    out.injected += sim.failures_injected();
    for (const JobOutcome& o : sim.outcomes()) out.run_gpu_s += static_cast<double>(o.gpu_seconds);
  }
  return out;
}

// The table file's text with its fit block (if any) replaced by `fit` ([rate, time] per reason).
std::string with_fit(const std::string& text, const std::vector<FailureReason>& reasons,
                     const std::vector<std::array<double, 2>>& fit) {
  std::istringstream in(text);
  std::string out, line;
  bool skipping = false;
  while (std::getline(in, line)) {
    if (line.rfind("fit:", 0) == 0) skipping = true;
    else if (skipping && !line.empty() && line[0] != ' ' && line[0] != '#') skipping = false;
    if (!skipping) out += line + "\n";
  }
  out += "fit:\n";
  char buf[160];
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    std::snprintf(buf, sizeof buf, "  %s: [%.3g, %.3g]\n", reasons[i].name.c_str(), fit[i][0], fit[i][1]);
    out += buf;
  }
  return out;
}

// --fit: per reason, the factors of the table file's fit block such that injected into the
// population each reason's count and mean time to failure are the table's.
//   rate (per-GPU reasons only): a reason an earlier failure of the same run hides is counted
//     less often than its rate says; counts are about linear in the rate. The per-run reasons'
//     counts are set by c_r over exposure.gpu_demand already; their factor stays.
//   time: the mean of a truncated exponential grows with its untruncated mean, up to about half
//     the run, and more slowly the closer it is: the first steps square the ratio. A reason whose
//     table time the runs cannot reach ends at the bound, 100.
// The same seeds every iteration, so the fit is deterministic. Prints the YAML block.
int fit(const Workload& w, const std::string& table, int replicas, int iterations) {
  std::ifstream in(table);
  std::stringstream text;
  text << in.rdbuf();
  const FailureModel first = make_model(table, 1);
  const std::vector<FailureReason>& reasons = first.reasons();
  std::vector<std::array<double, 2>> f;
  for (const FailureReason& r : reasons) f.push_back({r.rate_fit, r.ttf_fit});
  const std::string scratch = std::filesystem::temp_directory_path() / "acmesim_failure_fit.yaml";
  for (int it = 0; it < iterations; ++it) {
    { std::ofstream(scratch) << with_fit(text.str(), reasons, f); }
    const Results res = simulate(w, scratch, replicas);
    double worst_count = 0, worst_ttf = 0;
    std::size_t worst_count_at = 0, worst_ttf_at = 0;
    for (std::size_t i = 0; i < reasons.size(); ++i) {
      const Tally& t = res.tally[i];
      if (t.count < 1) continue;
      const double count = reasons[i].count / (t.count / replicas);
      const double ttf = reasons[i].avg_ttf_min * 60.0 / (t.ttf_s / t.count);
      if (reasons[i].per_gpu_rate > 0) {
        if (std::abs(std::log(count)) > worst_count) worst_count = std::abs(std::log(count)), worst_count_at = i;
        f[i][0] *= count;
      }
      if ((f[i][1] < 100 || ttf < 1) && std::abs(std::log(ttf)) > worst_ttf)
        worst_ttf = std::abs(std::log(ttf)), worst_ttf_at = i;
      f[i][1] = std::clamp(f[i][1] * std::pow(ttf, it < 5 ? 2.0 : 1.0), 0.01, 100.0);  // bolder first
    }
    std::fprintf(stderr, "iteration %d: worst count of a per-GPU reason off by %.1f%% (%s), time to failure %.1f%% (%s)\n",
                 it + 1, 100 * (std::exp(worst_count) - 1), reasons[worst_count_at].name.c_str(),
                 100 * (std::exp(worst_ttf) - 1), reasons[worst_ttf_at].name.c_str());
  }
  std::filesystem::remove(scratch);
  std::printf("# FITTED (experiments/failures/validate.cpp --fit %d, %d seeds)\n", iterations, replicas);
  std::printf("%s", with_fit("", reasons, f).c_str());
  return 0;
}

// Totals of the table, by category: measured and simulated counts and GPU-time shares.
struct Totals {
  double total_gpu_s = 0, measured_share_total = 0;
  double cat_meas[3] = {0, 0, 0}, cat_sim[3] = {0, 0, 0}, cat_ms[3] = {0, 0, 0}, cat_ss[3] = {0, 0, 0};
};

// Prints validation.csv: every reason, measured against simulated, then the categories.
Totals print_table(const FailureModel& first, const Results& res, int replicas) {
  const std::vector<Tally>& tally = res.tally;
  const std::size_t n = first.reasons().size();
  const double r = replicas;
  Totals t0;
  double& total_gpu_s = t0.total_gpu_s;
  double& measured_share_total = t0.measured_share_total;
  double* cat_meas = t0.cat_meas;
  double* cat_sim = t0.cat_sim;
  double* cat_ms = t0.cat_ms;
  double* cat_ss = t0.cat_ss;
  for (std::size_t i = 0; i < n; ++i) total_gpu_s += tally[i].gpu_s;
  for (const FailureReason& x : first.reasons()) measured_share_total += x.gpu_time_share_pct;
  std::printf("reason,category,measured_count,simulated_count,measured_avg_gpus,simulated_avg_gpus,"
              "measured_ttf_min,simulated_ttf_min,measured_share_pct,simulated_share_pct\n");
  for (std::size_t i = 0; i < n; ++i) {
    const FailureReason& x = first.reasons()[i];
    const Tally& t = tally[i];
    const auto k = static_cast<std::size_t>(x.category);
    // Shares: of the failed GPU-time of the reasons in the table (measured: its 99.92% without "Others").
    const double share = total_gpu_s > 0 ? 100.0 * t.gpu_s / total_gpu_s * measured_share_total / 100.0 : 0;
    cat_meas[k] += x.count, cat_sim[k] += t.count / r, cat_ms[k] += x.gpu_time_share_pct, cat_ss[k] += share;
    std::printf("%s,%s,%.0f,%.1f,%.0f,%.0f,%.1f,%.1f,%.2f,%.2f\n", x.name.c_str(), kCategoryNames[k], x.count,
                t.count / r, x.avg_gpus, t.count > 0 ? t.gpus / t.count : 0.0, x.avg_ttf_min,
                t.count > 0 ? t.ttf_s / t.count / 60.0 : 0.0, x.gpu_time_share_pct, share);
  }
  for (std::size_t k = 0; k < 3; ++k)
    std::printf("ALL,%s,%.0f,%.1f,,,,,%.2f,%.2f\n", kCategoryNames[k], cat_meas[k], cat_sim[k], cat_ms[k], cat_ss[k]);
  return t0;
}

// Prints the targets of the validation (the largest reasons' GPU-time shares within 25%, each
// category's count within 20%) to stderr.
void report_targets(const FailureModel& first, const Results& res, const Totals& t0, int replicas, std::size_t jobs,
                    double pop_gpu_s) {
  const std::vector<Tally>& tally = res.tally;
  const std::size_t n = first.reasons().size();
  const double r = replicas;
  const std::uint64_t bystanders = res.bystanders, injected = res.injected;
  const double run_gpu_s = res.run_gpu_s, total_gpu_s = t0.total_gpu_s, measured_share_total = t0.measured_share_total;
  const double* cat_meas = t0.cat_meas;
  const double* cat_sim = t0.cat_sim;
  // The targets.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return first.reasons()[a].gpu_time_share_pct > first.reasons()[b].gpu_time_share_pct;
  });
  int pass = 0, checks = 0;
  std::fprintf(stderr, "population: %zu jobs, %.3g GPU-seconds of run time; replicas: %d\n", jobs, pop_gpu_s,
               replicas);
  std::fprintf(stderr, "per replica: %.1f failures injected, %.1f of them bystanders of node failures, "
               "%.3g GPU-seconds held\n", static_cast<double>(injected) / r, static_cast<double>(bystanders) / r,
               run_gpu_s / r);
  for (std::size_t j = 0; j < 5; ++j) {
    const std::size_t i = order[j];
    const double m = first.reasons()[i].gpu_time_share_pct;
    const double s = total_gpu_s > 0 ? tally[i].gpu_s / total_gpu_s * measured_share_total : 0;
    const bool ok = std::abs(s - m) <= 0.25 * m;
    pass += ok, ++checks;
    std::fprintf(stderr, "share %-16s measured %6.2f%% simulated %6.2f%% (%+.0f%%) %s\n",
                 first.reasons()[i].name.c_str(), m, s, 100 * (s - m) / m, ok ? "PASS" : "FAIL");
  }
  for (std::size_t k = 0; k < 3; ++k) {
    const bool ok = std::abs(cat_sim[k] - cat_meas[k]) <= 0.2 * cat_meas[k];
    pass += ok, ++checks;
    std::fprintf(stderr, "count %-16s measured %6.0f simulated %8.1f (%+.0f%%) %s\n", kCategoryNames[k], cat_meas[k],
                 cat_sim[k], 100 * (cat_sim[k] - cat_meas[k]) / cat_meas[k], ok ? "PASS" : "FAIL");
  }
  std::fprintf(stderr, "targets met: %d of %d\n", pass, checks);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int iterations = 0;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--fit") {
      iterations = std::max(1, std::atoi(args[i + 1].c_str()));
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      break;
    }
  if (args.empty()) {
    std::fprintf(stderr, "usage: %s ROOT [REPLICAS] [--fit ITERATIONS]\n", argv[0]);
    return 2;
  }
  try {
    const std::string root = args[0];
    const int replicas = args.size() >= 2 ? std::max(1, std::atoi(args[1].c_str())) : 20;
    const std::string table = root + "/configs/failures/acme.yaml";
    double pop_gpu_s = 0;
    const Workload w = population(root, pop_gpu_s);
    if (iterations > 0) return fit(w, table, replicas, iterations);
    const FailureModel first = make_model(table, 1);
    const Results res = simulate(w, table, replicas);
    const Totals totals = print_table(first, res, replicas);
    report_targets(first, res, totals, replicas, w.size(), pop_gpu_s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
