#include "workloads/calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

#include "io/csv.h"
#include "io/yaml_util.h"

namespace acme {
namespace {

constexpr double kDaysPerMonth = 365.25 / 12;

std::vector<std::pair<JobType, double>> named_types(const YamlValue& v) {
  std::vector<std::pair<JobType, double>> out;
  for (const auto& [name, value] : v.as_named_numbers()) {
    const auto t = parse_job_type(name);
    if (!t) v.fail("unknown job type '" + name + "'");
    out.emplace_back(*t, value);
  }
  return out;
}

std::vector<std::pair<JobState, double>> named_states(const YamlValue& v) {
  std::vector<std::pair<JobState, double>> out;
  for (const auto& [name, value] : v.as_named_numbers()) {
    const auto s = parse_job_state(name);
    if (!s) v.fail("unknown job state '" + name + "'");
    out.emplace_back(*s, value);
  }
  return out;
}

// Cumulative share (%) of weights at or below each x, for (value, weight) samples sorted by
// value, and xs sorted.
Points cdf_at(const std::vector<std::pair<double, double>>& samples, const std::vector<double>& xs) {
  double total = 0;
  for (const auto& s : samples) total += s.second;
  Points out;
  double acc = 0;
  std::size_t i = 0;
  for (double x : xs) {
    while (i < samples.size() && samples[i].first <= x) acc += samples[i++].second;
    out.emplace_back(x, total > 0 ? 100.0 * acc / total : 0.0);
  }
  return out;
}

std::string fmt(double v) { return format_fixed(v, 3); }

}  // namespace

PublishedStats load_published_stats(const std::string& path) {
  static constexpr std::string_view kMaps[] = {"type_mix_pct", "gpu_time_share_pct", "size_share_le_pct",
                                               "state_count_pct", "state_gpu_time_pct"};
  PublishedStats p;
  CalibrationTolerance& t = p.tolerance;
  const std::pair<std::string_view, double*> tolerances[] = {
      {"tolerance.type_mix_points", &t.type_mix_points},
      {"tolerance.size_share_points", &t.size_share_points},
      {"tolerance.gpu_time_share_relative_pct", &t.gpu_time_share_relative_pct},
      {"tolerance.duration_cdf_points", &t.duration_cdf_points},
      {"tolerance.sampling_sigmas", &t.sampling_sigmas},
      {"tolerance.duration_min_type_share_pct", &t.duration_min_type_share_pct},
      {"tolerance.state_count_points", &t.state_count_points},
      {"tolerance.state_gpu_time_points", &t.state_gpu_time_points},
      {"tolerance.mean_gpus_relative_pct", &t.mean_gpus_relative_pct},
      {"tolerance.gpu_jobs_per_month_relative_pct", &t.gpu_jobs_per_month_relative_pct},
  };
  for (const YamlValue& v : read_yaml_file(path, kMaps)) {
    const std::string& k = v.key();
    if (k == "cluster") p.cluster = v.as_string();
    else if (k == "duration") {
      const std::string d = v.as_string();
      if (d != "run" && d != "end_minus_submit") v.fail("expected run or end_minus_submit");
      p.duration_end_minus_submit = d == "end_minus_submit";
    }
    else if (k == "type_mix_pct") p.type_mix_pct = named_types(v);
    else if (k == "gpu_time_share_pct") p.gpu_time_share_pct = named_types(v);
    else if (k == "size_share_le_pct") {
      for (const auto& [name, value] : v.as_named_numbers()) {
        int n = 0;
        if (std::sscanf(name.c_str(), "%d", &n) != 1 || n < 1) v.fail("expected GPU counts as keys, got '" + name + "'");
        p.size_share_le_pct.emplace_back(n, value);
      }
    }
    else if (k == "mean_gpus") p.mean_gpus = v.as_double(0, 1e6);
    else if (k == "mean_gpus_full_trace") p.mean_gpus_full_trace = v.as_double(0, 1e6);
    else if (k == "gpu_jobs_per_month") p.gpu_jobs_per_month = v.as_double(0, 1e12);
    else if (k == "state_count_pct") p.state_count_pct = named_states(v);
    else if (k == "state_gpu_time_pct") p.state_gpu_time_pct = named_states(v);
    else if (k.starts_with("duration_cdf.")) {
      const std::string group = k.substr(std::string_view("duration_cdf.").size());
      if (group != "all" && !parse_job_type(group)) v.fail("expected all or a job type");
      p.duration_cdf.emplace_back(group, v.as_pairs());
    }
    else if (k == "size_cdf_jobs") p.size_cdf_jobs = v.as_pairs();
    else if (k == "size_cdf_gpu_time") p.size_cdf_gpu_time = v.as_pairs();
    else if (k.starts_with("tolerance.")) {
      const auto it = std::find_if(std::begin(tolerances), std::end(tolerances),
                                   [&](const auto& e) { return e.first == k; });
      if (it == std::end(tolerances)) v.fail("unknown key");
      *it->second = v.as_double(0, 1e6);
    }
    else v.fail("unknown key");
  }
  if (p.type_mix_pct.empty()) throw_input_error(path, 0, "type_mix_pct", "missing");
  return p;
}

bool CalibrationReport::passed() const { return failures() == 0; }

std::size_t CalibrationReport::failures() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const CalibrationRow& r) { return r.gated && !r.pass; }));
}

namespace {

// What calibrate() compares, counted over a trace in one pass: GPU jobs only, but for the type mix
// and the CPU jobs' durations.
struct TraceTally {
  std::size_t jobs = 0, gpu_jobs = 0;
  std::array<double, kJobTypeCount> jobs_by_type{}, gpu_jobs_by_type{}, gpu_time_by_type{};
  std::array<double, kJobTypeCount> gpu_time_squares_by_type{};  // sums of each job's GPU-time squared
  std::array<double, kJobStateCount> jobs_by_state{}, gpu_time_by_state{};
  // (value, weight) samples, sorted: GPUs per job (weight 1, or GPU-time), durations (weight 1).
  std::vector<std::pair<double, double>> sizes_jobs, sizes_time;
  std::array<std::vector<std::pair<double, double>>, kJobTypeCount> durations_by_type;
  std::vector<std::pair<double, double>> durations_all;
  double gpus_sum = 0, gpus_squares = 0, gpu_time = 0;
  std::optional<Time> first_submit, last_submit;
};

TraceTally tally_trace(const Workload& w, bool duration_end_minus_submit) {
  TraceTally t;
  t.jobs = w.size();
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    const JobProfile& p = w.profiles[i];
    const auto ti = static_cast<std::size_t>(r.type);
    t.jobs_by_type[ti] += 1;
    const double run = p.recorded_start() ? static_cast<double>(p.run.sec()) : 0.0;
    double duration = run;
    if (duration_end_minus_submit) {
      const Time end = p.recorded_start() ? *p.recorded_start() + p.run : p.cancel_pending_at().value_or(r.submit);
      duration = static_cast<double>((end - r.submit).sec());
    }
    if (r.gpu_num <= 0) {  // a CPU job: its duration only
      t.durations_by_type[ti].emplace_back(duration, 1.0);
      continue;
    }
    ++t.gpu_jobs;
    if (!t.first_submit || r.submit < *t.first_submit) t.first_submit = r.submit;
    if (!t.last_submit || r.submit > *t.last_submit) t.last_submit = r.submit;
    const double g = duration * r.gpu_num;  // as the trace's gpu_time column: gpu_num x duration
    t.gpu_jobs_by_type[ti] += 1;
    t.gpu_time_by_type[ti] += g;
    t.gpu_time_squares_by_type[ti] += g * g;
    JobState s = p.final_state;
    if (s == JobState::Timeout || s == JobState::NodeFail) s = JobState::Failed;
    t.jobs_by_state[static_cast<std::size_t>(s)] += 1;
    t.gpu_time_by_state[static_cast<std::size_t>(s)] += g;
    t.sizes_jobs.emplace_back(r.gpu_num, 1.0);
    t.sizes_time.emplace_back(r.gpu_num, g);
    t.durations_by_type[ti].emplace_back(duration, 1.0);
    t.durations_all.emplace_back(duration, 1.0);
    t.gpus_sum += r.gpu_num;
    t.gpus_squares += static_cast<double>(r.gpu_num) * r.gpu_num;
    t.gpu_time += g;
  }
  std::sort(t.sizes_jobs.begin(), t.sizes_jobs.end());
  std::sort(t.sizes_time.begin(), t.sizes_time.end());
  std::sort(t.durations_all.begin(), t.durations_all.end());
  for (auto& d : t.durations_by_type) std::sort(d.begin(), d.end());
  return t;
}

double share(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// The allowance for a statistic of standard error `se` over the trace's jobs, in its units:
// sampling_sigmas standard errors of the difference of two samples of that size.
double sampling(const CalibrationTolerance& tol, double se) { return tol.sampling_sigmas * std::sqrt(2.0) * se; }
// The same in % of `published`.
double sampling_pct(const CalibrationTolerance& tol, double se, double published) {
  return published > 0 ? 100.0 * sampling(tol, se) / published : 0.0;
}

// Adds rows to a report: a difference in points, or relative in %, against a tolerance.
class Rows {
 public:
  explicit Rows(CalibrationReport& rep) : rep_(rep) {}
  void points(std::string name, double published, double trace, double tolerance, bool gated = true) {
    CalibrationRow row{std::move(name), published, trace, trace - published, tolerance, gated, false};
    row.pass = std::abs(row.difference) <= tolerance + 1e-9;
    rep_.rows.push_back(row);
  }
  void relative(std::string name, double published, double trace, double tolerance_pct, bool gated = true) {
    CalibrationRow row{std::move(name), published, trace, published != 0 ? 100.0 * (trace - published) / published : 0.0,
                       tolerance_pct, gated, false};
    row.pass = std::abs(row.difference) <= tolerance_pct + 1e-9;
    rep_.rows.push_back(row);
  }

 private:
  CalibrationReport& rep_;
};

// The duration CDFs (all GPU jobs, per type, and the CPU jobs'), as rows and as series for the plots.
void check_durations(const TraceTally& t, const PublishedStats& pub, Rows& rows, CalibrationReport& rep) {
  const CalibrationTolerance& tol = pub.tolerance;
  std::vector<double> fine;  // the trace's CDF for the plots: four points per doubling
  for (int k = 0; k <= 84; ++k) fine.push_back(std::exp2(k / 4.0));
  double gpu_pct = 0;
  for (const auto& [type, pct] : pub.type_mix_pct) gpu_pct += type == JobType::CPU ? 0.0 : pct;
  for (const auto& [group, pts] : pub.duration_cdf) {
    const std::vector<std::pair<double, double>>* samples = &t.durations_all;
    std::string note;
    bool gated = true;
    if (group != "all") {
      const JobType type_of_group = *parse_job_type(group);
      samples = &t.durations_by_type[static_cast<std::size_t>(type_of_group)];
      // Per-type CDFs are gated only for types with enough of the published GPU jobs.
      double type_pct = 0;
      for (const auto& [type, pct] : pub.type_mix_pct) type_pct += type == type_of_group ? pct : 0.0;
      if (gpu_pct <= 0 || 100.0 * type_pct / gpu_pct < tol.duration_min_type_share_pct) {
        gated = false;
        note = " (type < " + format_fixed(tol.duration_min_type_share_pct, 0) + "% of GPU jobs)";
      }
    }
    std::vector<double> xs;
    for (const auto& q : pts) xs.push_back(q.first);
    const Points trace = cdf_at(*samples, xs);
    const double n = static_cast<double>(samples->size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const double p = std::clamp(pts[i].second / 100.0, 0.0, 1.0);
      const double allowance = n > 0 ? 100.0 * sampling(tol, std::sqrt(p * (1 - p) / n)) : 0.0;
      rows.points("duration CDF % " + group + " <= " + format_fixed(pts[i].first, 0) + " s" + note, pts[i].second,
                  trace[i].second, std::max(tol.duration_cdf_points, allowance), gated);
    }
    rep.series.push_back({"duration", group, "published", pts});
    rep.series.push_back({"duration", group, "trace", cdf_at(*samples, fine)});
  }
}

// The GPU-demand CDFs (by jobs and by GPU-time), as series for the plots.
void add_size_series(const TraceTally& t, const PublishedStats& pub, CalibrationReport& rep) {
  std::vector<double> size_xs;
  for (const auto& [gpus, one] : t.sizes_jobs) size_xs.push_back(gpus);
  std::sort(size_xs.begin(), size_xs.end());
  size_xs.erase(std::unique(size_xs.begin(), size_xs.end()), size_xs.end());
  rep.series.push_back({"gpu_demand", "jobs", "published", pub.size_cdf_jobs});
  rep.series.push_back({"gpu_demand", "jobs", "trace", cdf_at(t.sizes_jobs, size_xs)});
  rep.series.push_back({"gpu_demand", "gpu_time", "published", pub.size_cdf_gpu_time});
  rep.series.push_back({"gpu_demand", "gpu_time", "trace", cdf_at(t.sizes_time, size_xs)});
}

}  // namespace

CalibrationReport calibrate(const Workload& w, const PublishedStats& pub) {
  const CalibrationTolerance& tol = pub.tolerance;
  const TraceTally t = tally_trace(w, pub.duration_end_minus_submit);
  CalibrationReport rep;
  rep.jobs = t.jobs;
  rep.gpu_jobs = t.gpu_jobs;
  Rows rows(rep);
  const double jobs = static_cast<double>(rep.jobs), gpu_jobs = static_cast<double>(rep.gpu_jobs);

  for (const auto& [type, pct] : pub.type_mix_pct)
    rows.points("type mix % of jobs: " + std::string(name(type)), pct,
                share(t.jobs_by_type[static_cast<std::size_t>(type)], jobs), tol.type_mix_points);

  for (const auto& [n, pct] : pub.size_share_le_pct) {
    double le = 0;
    for (const auto& [gpus, one] : t.sizes_jobs) le += gpus <= n ? one : 0.0;
    rows.points("GPU jobs % with <= " + std::to_string(n) + " GPUs", pct, share(le, gpu_jobs), tol.size_share_points);
  }

  // A share's standard error over the jobs (the delta method for a ratio of sums): with x a job's
  // GPU-time if of the type, y its GPU-time, S = sum x / sum y, it is sqrt(sum (x - S y)^2) / sum y.
  double covered = 0, covered_squares = 0;
  for (const auto& [type, pct] : pub.gpu_time_share_pct) {
    covered += t.gpu_time_by_type[static_cast<std::size_t>(type)];
    covered_squares += t.gpu_time_squares_by_type[static_cast<std::size_t>(type)];
  }
  for (const auto& [type, pct] : pub.gpu_time_share_pct) {
    const auto ti = static_cast<std::size_t>(type);
    const double s = covered > 0 ? t.gpu_time_by_type[ti] / covered : 0.0, own = t.gpu_time_squares_by_type[ti];
    const double spread = std::max(0.0, (1 - s) * (1 - s) * own + s * s * (covered_squares - own));
    const double se = covered > 0 ? std::sqrt(spread) / covered : 0.0;
    rows.relative("GPU-time % by type: " + std::string(name(type)) + " (diff rel. %)", pct, 100.0 * s,
                  std::max(tol.gpu_time_share_relative_pct, sampling_pct(tol, 100.0 * se, pct)));
  }

  check_durations(t, pub, rows, rep);

  for (const auto& [state, pct] : pub.state_count_pct)
    rows.points("state % of GPU jobs: " + std::string(name(state)), pct,
                share(t.jobs_by_state[static_cast<std::size_t>(state)], gpu_jobs), tol.state_count_points);
  for (const auto& [state, pct] : pub.state_gpu_time_pct)
    rows.points("state % of GPU-time: " + std::string(name(state)), pct,
                share(t.gpu_time_by_state[static_cast<std::size_t>(state)], t.gpu_time), tol.state_gpu_time_points);

  const double mean = gpu_jobs > 0 ? t.gpus_sum / gpu_jobs : 0.0;
  const double squares_off = std::max(0.0, t.gpus_squares - gpu_jobs * mean * mean);  // of the GPUs from their mean
  const double mean_se = gpu_jobs > 1 ? std::sqrt(squares_off / (gpu_jobs - 1) / gpu_jobs) : 0.0;
  const auto mean_tolerance = [&](double published) {
    return std::max(tol.mean_gpus_relative_pct, sampling_pct(tol, mean_se, published));
  };
  if (pub.mean_gpus > 0)
    rows.relative("mean GPUs per GPU job (diff rel. %)", pub.mean_gpus, mean, mean_tolerance(pub.mean_gpus));
  if (pub.mean_gpus_full_trace > 0)
    rows.relative("mean GPUs per GPU job, full trace (diff rel. %)", pub.mean_gpus_full_trace, mean,
                  mean_tolerance(pub.mean_gpus_full_trace), false);
  if (pub.gpu_jobs_per_month > 0) {
    const double days = t.first_submit ? static_cast<double>((*t.last_submit - *t.first_submit).sec()) / 86400.0 : 0.0;
    rows.relative("GPU jobs per month (diff rel. %)", pub.gpu_jobs_per_month,
                  days > 0 ? gpu_jobs / days * kDaysPerMonth : 0.0, tol.gpu_jobs_per_month_relative_pct);
  }

  add_size_series(t, pub, rep);
  return rep;
}

std::string format_calibration_table(const CalibrationReport& rep) {
  std::size_t width = 9;
  for (const CalibrationRow& r : rep.rows) width = std::max(width, r.statistic.size());
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %12s %12s %12s %10s  %s\n", static_cast<int>(width), "statistic", "published",
                "trace", "difference", "tolerance", "result");
  out += line;
  for (const CalibrationRow& r : rep.rows) {
    std::snprintf(line, sizeof line, "%-*s %12s %12s %12s %10s  %s\n", static_cast<int>(width), r.statistic.c_str(),
                  fmt(r.published).c_str(), fmt(r.trace).c_str(), fmt(r.difference).c_str(), fmt(r.tolerance).c_str(),
                  !r.gated ? "info" : r.pass ? "pass" : "FAIL");
    out += line;
  }
  const std::size_t gated = static_cast<std::size_t>(std::count_if(rep.rows.begin(), rep.rows.end(), [](const CalibrationRow& r) { return r.gated; }));
  std::snprintf(line, sizeof line, "%zu jobs, %zu GPU jobs: %zu of %zu statistics within tolerance%s\n", rep.jobs,
                rep.gpu_jobs, gated - rep.failures(), gated, rep.passed() ? "" : " (FAILED)");
  out += line;
  return out;
}

}  // namespace acme
