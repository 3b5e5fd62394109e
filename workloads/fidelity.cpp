#include "workloads/fidelity.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "io/csv.h"

namespace acme {
namespace {

// Groups, in report order: 0 all GPU jobs, 1 + type for the GPU jobs of a type, then CPU.
constexpr std::size_t kGpuGroup = 0;
constexpr std::size_t kCpuGroup = 1 + kJobTypeCount;
constexpr std::size_t kGroups = 2 + kJobTypeCount;

struct Group {
  FidelityRow row;
  std::vector<std::int64_t> recorded, simulated;  // delays of the jobs compared, in job order
  std::int64_t abs_diff_sum = 0;
};

// Nearest rank, as summary.csv's (sim/metrics.cpp). REQUIRES: `sorted` is sorted.
std::int64_t nearest_rank(const std::vector<std::int64_t>& sorted, std::size_t pct) {
  if (sorted.empty()) return 0;
  return sorted[std::max<std::size_t>((sorted.size() * pct + 99) / 100, 1) - 1];
}

DelaySummary summarize(const std::vector<std::int64_t>& sorted) {
  DelaySummary s;
  if (sorted.empty()) return s;
  double sum = 0;
  for (std::int64_t d : sorted) sum += static_cast<double>(d);
  s.mean_s = sum / static_cast<double>(sorted.size());
  s.p50_s = nearest_rank(sorted, 50);
  s.p90_s = nearest_rank(sorted, 90);
  s.p99_s = nearest_rank(sorted, 99);
  return s;
}

// The CDF at 0 s and at 10^(k/10) s rounded (1, 2, 3, 4, 5, 6, 8, 10, 13, ...) up to the
// largest delay: some 70 points for a 3-month trace, whatever its size. REQUIRES: sorted.
std::vector<std::pair<std::int64_t, double>> cdf_points(const std::vector<std::int64_t>& sorted, std::int64_t max) {
  std::vector<std::pair<std::int64_t, double>> out;
  if (sorted.empty()) return out;
  const double n = static_cast<double>(sorted.size());
  for (int k = -1;; ++k) {
    const std::int64_t x = k < 0 ? 0 : std::llround(std::pow(10.0, k / 10.0));
    if (!out.empty() && x == out.back().first) continue;
    const auto at_most = std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
    out.emplace_back(x, static_cast<double>(at_most) / n);
    if (x >= max) break;
  }
  return out;
}

void add_job(Group& g, const ScheduledJob& rec, const ScheduledJob& sim) {
  ++g.row.jobs;
  if (!rec.start) ++g.row.not_started_recorded;
  else if (!sim.start) ++g.row.not_started_simulated;
  if (static_cast<bool>(rec.start) != static_cast<bool>(sim.start)) ++g.row.mismatched;
  if (!rec.start || !sim.start) return;
  const std::int64_t r = (*rec.start - rec.submit).sec(), s = (*sim.start - sim.submit).sec();
  ++g.row.compared;
  g.row.mismatched += r != s;
  g.abs_diff_sum += r > s ? r - s : s - r;
  g.recorded.push_back(r);
  g.simulated.push_back(s);
}

void finish_group(Group& g, const FidelityTolerance& tol, bool gpu, std::vector<DelayCdf>& cdfs) {
  FidelityRow& row = g.row;
  row.cdf_gap = cdf_gap(g.recorded, g.simulated);
  std::sort(g.recorded.begin(), g.recorded.end());
  std::sort(g.simulated.begin(), g.simulated.end());
  row.recorded = summarize(g.recorded);
  row.simulated = summarize(g.simulated);
  if (row.compared > 0) row.mean_abs_diff_s = static_cast<double>(g.abs_diff_sum) / static_cast<double>(row.compared);
  row.gated = gpu && row.compared >= tol.min_jobs;
  row.pass = !row.gated || row.cdf_gap <= tol.max_cdf_gap;
  row.too_few = gpu && !row.gated;
  const std::int64_t max = std::max(g.recorded.empty() ? 0 : g.recorded.back(), g.simulated.empty() ? 0 : g.simulated.back());
  cdfs.push_back({row.group, "recorded", cdf_points(g.recorded, max)});
  cdfs.push_back({row.group, "simulated", cdf_points(g.simulated, max)});
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

// GPU-seconds held in each of `n` intervals from `from`: partial intervals at a span's ends
// directly, the whole ones between through a difference array.
std::vector<double> utilization_pct(std::span<const GpuSpan> spans, Time from, Time interval, std::size_t n, int gpus) {
  const std::int64_t step = interval.sec();
  std::vector<std::int64_t> held(n + 1, 0), whole(n + 1, 0);
  for (const GpuSpan& s : spans) {
    if (!(s.start < s.end) || s.gpus == 0) continue;
    const auto ks = static_cast<std::size_t>((s.start - from).sec() / step);
    const auto ke = static_cast<std::size_t>((s.end - from).sec() / step);
    if (ks == ke) {
      held[ks] += s.gpus * (s.end - s.start).sec();
      continue;
    }
    held[ks] += s.gpus * (from.sec() + static_cast<std::int64_t>(ks + 1) * step - s.start.sec());
    whole[ks + 1] += s.gpus;
    whole[ke] -= s.gpus;
    held[ke] += s.gpus * (s.end.sec() - from.sec() - static_cast<std::int64_t>(ke) * step);
  }
  std::vector<double> pct(n);
  std::int64_t running = 0;
  for (std::size_t k = 0; k < n; ++k) {
    running += whole[k];
    pct[k] = 100.0 * static_cast<double>(held[k] + running * step) / (static_cast<double>(step) * gpus);
  }
  return pct;
}

std::string fmt_s(double v) { return format_fixed(v, v < 100 ? 1 : 0); }

}  // namespace

FidelityTolerance read_fidelity_tolerance(Params& params) {
  FidelityTolerance t;
  t.max_cdf_gap = params.number("max_cdf_gap", t.max_cdf_gap, 0, 1,
                                "exit 1 when a gated group's queueing-delay CDF gap exceeds this (0 to 1)");
  t.min_jobs = static_cast<std::size_t>(params.number("min_jobs", static_cast<double>(t.min_jobs), 1, 1e9,
                                                      "a GPU group is gated when it has at least this many jobs compared"));
  return t;
}

double cdf_gap(std::vector<std::int64_t> a, std::vector<std::int64_t> b) {
  if (a.empty() || b.empty()) return 0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const double n = static_cast<double>(a.size()), m = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double gap = 0;
  while (i < a.size() || j < b.size()) {
    const std::int64_t v = i == a.size() ? b[j] : j == b.size() ? a[i] : std::min(a[i], b[j]);
    while (i < a.size() && a[i] == v) ++i;
    while (j < b.size() && b[j] == v) ++j;
    gap = std::max(gap, std::abs(static_cast<double>(i) / n - static_cast<double>(j) / m));
  }
  return gap;
}

FidelityReport compare_delays(std::span<const ScheduledJob> recorded, std::span<const ScheduledJob> simulated,
                              const FidelityTolerance& tolerance) {
  if (recorded.size() != simulated.size()) throw std::logic_error("compare_delays: the schedules differ in length");
  std::array<Group, kGroups> groups;
  groups[kGpuGroup].row.group = "GPU";
  for (std::size_t t = 0; t < kJobTypeCount; ++t) groups[1 + t].row.group = kJobTypeNames[t];
  groups[kCpuGroup].row.group = "CPU";
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const ScheduledJob& r = recorded[i];
    if (r.gpus == 0) {
      add_job(groups[kCpuGroup], r, simulated[i]);
      continue;
    }
    add_job(groups[kGpuGroup], r, simulated[i]);
    add_job(groups[1 + static_cast<std::size_t>(r.type)], r, simulated[i]);
  }
  FidelityReport report;
  report.tolerance = tolerance;
  for (std::size_t g = 0; g < kGroups; ++g) {
    // A type's row only when it has GPU jobs; the GPU and CPU rows always.
    if (g != kGpuGroup && g != kCpuGroup && groups[g].row.jobs == 0) continue;
    finish_group(groups[g], tolerance, g != kCpuGroup, report.cdfs);
    report.rows.push_back(std::move(groups[g].row));
  }
  return report;
}

UtilizationSeries compare_utilization(std::span<const GpuSpan> recorded, std::span<const GpuSpan> simulated,
                                      int cluster_gpus, Time interval) {
  UtilizationSeries u;
  u.interval = interval;
  std::optional<Time> first, last;
  for (std::span<const GpuSpan> spans : {recorded, simulated})
    for (const GpuSpan& s : spans) {
      if (!(s.start < s.end) || s.gpus == 0) continue;
      first = first ? std::min(*first, s.start) : s.start;
      last = last ? std::max(*last, s.end) : s.end;
    }
  if (!first) return u;
  const std::int64_t step = interval.sec();
  auto floor_to = [&](std::int64_t t) { return t >= 0 ? t / step * step : -((-t + step - 1) / step * step); };
  u.from = Time::seconds(floor_to(first->sec()));
  const auto n = static_cast<std::size_t>((floor_to(last->sec() - 1) - u.from.sec()) / step + 1);
  u.recorded_pct = utilization_pct(recorded, u.from, interval, n, cluster_gpus);
  u.simulated_pct = utilization_pct(simulated, u.from, interval, n, cluster_gpus);
  u.recorded_mean_pct = mean(u.recorded_pct);
  u.simulated_mean_pct = mean(u.simulated_pct);
  double diff = 0;
  for (std::size_t k = 0; k < n; ++k) diff += std::abs(u.simulated_pct[k] - u.recorded_pct[k]);
  u.mean_abs_diff_points = diff / static_cast<double>(n);
  return u;
}

bool FidelityReport::passed() const { return failures() == 0; }

std::size_t FidelityReport::failures() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const FidelityRow& r) { return !r.pass; }));
}

std::size_t FidelityReport::mismatched() const {
  std::size_t n = 0;
  for (const FidelityRow& r : rows) n += r.group == "GPU" || r.group == "CPU" ? r.mismatched : 0;
  return n;
}

std::size_t FidelityReport::compared() const {
  std::size_t n = 0;
  for (const FidelityRow& r : rows) n += r.group == "GPU" || r.group == "CPU" ? r.compared : 0;
  return n;
}

std::string format_fidelity_table(const FidelityReport& rep) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-9s %8s %8s %7s %7s %10s | %9s %9s | %7s %7s | %7s %7s | %8s %8s | %7s  %s\n",
                "group", "jobs", "compared", "unstart", "mismat", "mean|diff|", "mean rec", "mean sim", "p50 rec",
                "p50 sim", "p90 rec", "p90 sim", "p99 rec", "p99 sim", "cdf gap", "result");
  out += line;
  for (const FidelityRow& r : rep.rows) {
    std::snprintf(line, sizeof line, "%-9s %8zu %8zu %7zu %7zu %10s | %9s %9s | %7lld %7lld | %7lld %7lld | %8lld %8lld | %7.4f  %s\n",
                  r.group.c_str(), r.jobs, r.compared, r.not_started_recorded + r.not_started_simulated, r.mismatched,
                  fmt_s(r.mean_abs_diff_s).c_str(), fmt_s(r.recorded.mean_s).c_str(), fmt_s(r.simulated.mean_s).c_str(),
                  static_cast<long long>(r.recorded.p50_s), static_cast<long long>(r.simulated.p50_s),
                  static_cast<long long>(r.recorded.p90_s), static_cast<long long>(r.simulated.p90_s),
                  static_cast<long long>(r.recorded.p99_s), static_cast<long long>(r.simulated.p99_s), r.cdf_gap,
                  r.gated && !r.pass ? "FAIL" : r.too_few ? "too few to judge" : std::string(r.result()).c_str());
    out += line;
  }
  const UtilizationSeries& u = rep.utilization;
  std::snprintf(line, sizeof line,
                "GPU utilization over %zu intervals of %lld s: recorded mean %.2f%%, simulated %.2f%%, "
                "mean |difference| %.2f points\n",
                u.recorded_pct.size(), static_cast<long long>(u.interval.sec()), u.recorded_mean_pct,
                u.simulated_mean_pct, u.mean_abs_diff_points);
  out += line;
  std::size_t gated = 0, too_few = 0;
  for (const FidelityRow& r : rep.rows) gated += r.gated, too_few += r.too_few;
  std::snprintf(line, sizeof line, "%zu jobs whose queueing delay differs; %zu of %zu gated groups within cdf gap %g%s%s\n",
                rep.mismatched(), gated - rep.failures(), gated, rep.tolerance.max_cdf_gap,
                too_few == 0 ? "" : ("; " + std::to_string(too_few) + " GPU groups with fewer than " +
                                     std::to_string(rep.tolerance.min_jobs) + " jobs compared, too few to judge").c_str(),
                rep.passed() ? "" : " (FAILED)");
  out += line;
  return out;
}

}  // namespace acme
