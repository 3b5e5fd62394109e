#include "workloads/synthetic.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <future>
#include <limits>
#include <string_view>

#include "io/yaml_util.h"
#include "workloads/synthetic_draws.h"

namespace acme {

Discrete::Discrete(const std::vector<std::pair<double, double>>& value_weight) {
  double total = 0;
  for (const auto& [value, weight] : value_weight) {
    if (weight <= 0) continue;
    total += weight;
    values_.push_back(value);
    cumulative_.push_back(total);
  }
  for (double& c : cumulative_) c /= total;
  if (values_.empty()) return;
  last_ = values_.size() - 1;
  guide_.resize(std::bit_ceil(std::max<std::size_t>(16, values_.size())));
  guide_scale_ = static_cast<double>(guide_.size());  // a power of two: u * scale is exact
  std::size_t i = 0;
  for (std::size_t b = 0; b < guide_.size(); ++b) {
    const double u = static_cast<double>(b) / guide_scale_;
    while (i < last_ && cumulative_[i] <= u) ++i;
    guide_[b] = static_cast<std::uint32_t>(i);
  }
}

double Discrete::mean() const {
  double m = 0, prev = 0;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    m += values_[i] * (cumulative_[i] - prev);
    prev = cumulative_[i];
  }
  return m;
}

double Discrete::probability(double value) const {
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (values_[i] == value) return cumulative_[i] - (i > 0 ? cumulative_[i - 1] : 0.0);
  return 0.0;
}

std::size_t Discrete::index_at(double u) const {
  // Below u's bucket the answer is at least the guide's: cumulative weights only grow.
  const auto bucket = static_cast<std::int64_t>(u * guide_scale_);  // capped below for u = 1
  std::size_t i = guide_[static_cast<std::size_t>(std::min<std::int64_t>(bucket, static_cast<std::int64_t>(guide_.size()) - 1))];
  while (i < last_ && cumulative_[i] <= u) ++i;
  return i;
}

LogCdf::LogCdf(std::vector<std::pair<double, double>> points) {
  for (const auto& [seconds, pct] : points) points_.emplace_back(std::log2(seconds), pct);
  if (points_.empty()) return;
  memo_.assign(kCells, -1);
  std::int64_t lo = computed(0.0);
  for (std::size_t k = 0; k < kCells; ++k) {
    const std::int64_t hi = computed(static_cast<double>(k + 1) / kCells);
    if (lo == hi) memo_[k] = lo;
    lo = hi;
  }
  for (const auto& point : points_) {
    const auto k = static_cast<std::size_t>(point.second / points_.back().second * kCells);
    for (std::size_t j = k > 0 ? k - 1 : 0; j <= k + 1 && j < kCells; ++j) memo_[j] = -1;
  }
}

std::int64_t LogCdf::in_segment(std::size_t hi_index, double v) const {
  const auto& first = points_.front();
  // Below the first point: linear from 0 s.
  // Rounding up keeps P(run <= 2^k) exactly as given, since the points are whole seconds.
  if (hi_index == 0) return static_cast<std::int64_t>(std::ceil(std::exp2(first.first) * (first.second > 0 ? v / first.second : 0)));
  const auto& hi = points_[hi_index];
  const auto& lo = points_[hi_index - 1];
  const double f = hi.second > lo.second ? (v - lo.second) / (hi.second - lo.second) : 1.0;
  return static_cast<std::int64_t>(std::ceil(std::exp2(lo.first + f * (hi.first - lo.first)) - 1e-9));
}

std::int64_t LogCdf::computed(double unit) const {
  const double v = unit * points_.back().second;
  if (v <= points_.front().second) return in_segment(0, v);
  const auto it = std::lower_bound(points_.begin(), points_.end(), v,
                                   [](const auto& p, double x) { return p.second < x; });
  return in_segment(static_cast<std::size_t>(it - points_.begin()), v);
}

std::vector<std::int64_t> LogCdf::at_grid(std::size_t n) const {
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = at((static_cast<double>(i) + 0.5) / static_cast<double>(n));
  return out;
}

namespace {

std::vector<std::pair<double, double>> named_to_enum(const YamlValue& v, bool states, bool allow_cpu) {
  std::vector<std::pair<double, double>> out;
  for (const auto& [name, weight] : v.as_named_numbers()) {
    if (weight < 0) v.fail("negative weight for '" + name + "'");
    if (states) {
      const auto s = parse_job_state(name);
      if (!s) v.fail("unknown job state '" + name + "'");
      out.emplace_back(static_cast<double>(*s), weight);
    } else {
      const auto t = parse_job_type(name);
      if (!t || (!allow_cpu && *t == JobType::CPU)) v.fail("unknown job type '" + name + "'");
      out.emplace_back(static_cast<double>(*t), weight);
    }
  }
  return out;
}

JobType type_suffix(const YamlValue& v, std::string_view prefix) {
  const auto t = parse_job_type(std::string_view(v.key()).substr(prefix.size()));
  if (!t) v.fail("unknown job type in the key");
  return *t;
}

std::array<double, 2> logit_pair(const YamlValue& v) {
  const auto n = v.as_numbers();
  if (n.size() != 2) v.fail("expected [a, b]");
  return {n[0], n[1]};
}

}  // namespace

namespace {

// InputError naming the first key the model at `path` lacks: every type its mix can draw needs
// sizes (GPU types) and durations.
void check_complete(const SyntheticModel& m, bool has_cpu_cdf, const std::string& path) {
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw_input_error(path, 0, what, "missing");
  };
  need(m.jobs_per_day > 0, "jobs_per_day");
  need(!m.type.empty(), "type_mix_pct");
  for (double v : m.type.values()) {
    const auto t = static_cast<std::size_t>(v);
    if (t == static_cast<std::size_t>(JobType::CPU)) {
      need(!m.cpu_states.empty(), "cpu_state_mix_pct");
      need(!m.cpu_job_cpus.empty(), "cpu_job_cpus");
      need(has_cpu_cdf, "duration_cdf.CPU");
      continue;
    }
    // Every GPU type the mix can draw needs sizes and durations.
    need(!m.gpu_sizes[t].empty(), "gpu_sizes." + std::string(kJobTypeNames[t]));
    need(!m.durations[t].empty(), "duration_cdf." + std::string(kJobTypeNames[t]));
  }
  if (m.eval_batch.share_of_eval_pct > 0) need(!m.eval_batch.jobs.empty(), "eval_batch.jobs");
  // A large job over the cap would wait forever, and every large job behind it.
  if (!m.large_jobs.on()) return;
  for (const Discrete& sizes : m.gpu_sizes)
    for (double gpus : sizes.values())
      if (gpus >= m.large_jobs.min_gpus && gpus > static_cast<double>(m.large_jobs.max_concurrent_gpus))
        throw_input_error(path, 0, "large_jobs.max_concurrent_gpus", "below a job size the model draws");
}

// The expected GPU-seconds per job of each type, for the balances and their pool. A pass over
// 2^16 quantiles a type: the other core takes every other type.
void compute_gpu_seconds_per_job(SyntheticModel& m) {
  const auto expect = [&m](std::size_t first) {
    for (std::size_t t = first; t < kJobTypeCount; t += 2)
      if (!m.gpu_sizes[t].empty() && !m.durations[t].empty())
        m.gpu_seconds_per_job[t] = expected_gpu_seconds(m, static_cast<JobType>(t));
  };
  auto odd = std::async(std::launch::async, expect, 1);
  expect(0);
  odd.get();
}

}  // namespace

SyntheticModel load_synthetic_model(const std::string& path) {
  static constexpr std::string_view kMaps[] = {"type_mix_pct", "cpu_state_mix_pct"};
  SyntheticModel m;
  bool has_cpu_cdf = false;
  for (const YamlValue& v : read_yaml_file(path, kMaps)) {
    const std::string& k = v.key();
    if (k == "cluster") m.cluster = v.as_string();
    else if (k == "jobs_per_day") m.jobs_per_day = v.as_double(1e-9, 1e9);
    else if (k == "cpus_per_gpu") m.cpus_per_gpu = static_cast<int>(v.as_int(0, 1024));
    else if (k == "max_run_s") m.max_run_s = v.as_int(0, INT64_C(1) << 40);
    else if (k == "type_mix_pct") m.type = Discrete(named_to_enum(v, false, true));
    else if (k == "arrivals.utc_offset_hours") m.arrivals.utc_offset_hours = v.as_double(-14, 14);
    else if (k == "arrivals.daily_amplitude") m.arrivals.daily_amplitude = v.as_double(0, 0.99);
    else if (k == "arrivals.peak_hour") m.arrivals.peak_hour = v.as_double(0, 24);
    else if (k == "arrivals.weekend_factor") m.arrivals.weekend_factor = v.as_double(0.01, 100);
    else if (k == "arrivals.session_jobs_mean") m.arrivals.session_jobs_mean = v.as_double(1, 1e6);
    else if (k == "arrivals.session_gap_s") m.arrivals.session_gap_s = v.as_double(0, 1e7);
    else if (k == "eval_batch.share_of_eval_pct") m.eval_batch.share_of_eval_pct = v.as_double(0, 100);
    else if (k == "eval_batch.jobs") m.eval_batch.jobs = Discrete(v.as_pairs());
    else if (k == "eval_batch.checkpoint_after_s") m.eval_batch.checkpoint_after_s = v.as_int(0, INT64_C(1) << 40);
    else if (k == "large_jobs.min_gpus") m.large_jobs.min_gpus = static_cast<std::int32_t>(v.as_int(1, 1 << 20));
    else if (k == "large_jobs.max_concurrent_gpus") m.large_jobs.max_concurrent_gpus = v.as_int(0, INT64_C(1) << 40);
    else if (k == "large_jobs.cluster_gpus") m.large_jobs.cluster_gpus = v.as_int(0, INT64_C(1) << 40);
    else if (k == "eval_batch.stagger_s") m.eval_batch.stagger_s = v.as_int(0, 86400);
    else if (k.starts_with("gpu_sizes.")) {
      const auto t = type_suffix(v, "gpu_sizes.");
      if (t == JobType::CPU) v.fail("CPU jobs have no GPUs");
      auto pairs = v.as_pairs();
      for (const auto& [gpus, weight] : pairs)
        if (gpus < 1 || gpus != std::floor(gpus) || weight < 0) v.fail("expected [gpus >= 1, weight >= 0] pairs");
      m.gpu_sizes[static_cast<std::size_t>(t)] = Discrete(pairs);
    } else if (k.starts_with("size_duration_coupling.")) {
      m.coupling[static_cast<std::size_t>(type_suffix(v, "size_duration_coupling."))] = v.as_double(-1, 1);
    } else if (k.starts_with("duration_cdf.")) {
      auto points = v.as_pairs();
      for (std::size_t i = 0; i < points.size(); ++i)
        if (points[i].first <= 0 || (i > 0 && (points[i].first <= points[i - 1].first || points[i].second < points[i - 1].second)))
          v.fail("CDF points must have increasing seconds > 0 and non-decreasing percentages");
      if (points.empty() || points.back().second <= 0) v.fail("a CDF needs points");
      const auto t = type_suffix(v, "duration_cdf.");
      has_cpu_cdf |= t == JobType::CPU;
      m.durations[static_cast<std::size_t>(t)] = LogCdf(std::move(points));
    }
    else if (k == "gpu_state_logit.cancelled") m.cancel_logit = logit_pair(v);
    else if (k == "gpu_state_logit.failed") m.fail_logit = logit_pair(v);
    else if (k == "state_balance_gpu_time_pct") m.state_balance_gpu_time_pct = v.as_double(0, 100);
    else if (k == "gpu_time_balance_pct") m.gpu_time_balance_pct = v.as_double(0, 100);
    else if (k == "cpu_state_mix_pct") m.cpu_states = Discrete(named_to_enum(v, true, false));
    else if (k == "cpu_job_cpus") m.cpu_job_cpus = Discrete(v.as_pairs());
    else if (k == "users") m.users = static_cast<int>(v.as_int(1, 10'000'000));
    else if (k == "user_zipf_s") m.user_zipf_s = v.as_double(0, 10);
    else v.fail("unknown key");
  }
  check_complete(m, has_cpu_cdf, path);
  if (m.gpu_time_balance_pct > 0 || m.state_balance_gpu_time_pct > 0) compute_gpu_seconds_per_job(m);
  return m;
}

double expected_gpu_seconds(const SyntheticModel& m, JobType type) {
  const auto t = static_cast<std::size_t>(type);
  constexpr std::size_t kGrid = 1 << 16;
  const std::vector<std::int64_t> run = m.durations[t].at_grid(kGrid);
  const Discrete& sizes = m.gpu_sizes[t];
  const double p = m.coupling[t];
  const std::int64_t cap = m.max_run_s > 0 ? m.max_run_s : std::numeric_limits<std::int64_t>::max();
  double size_sum = 0, run_sum = 0, tied_sum = 0;
  // sizes.index_at(u) along the grid: the first size whose cumulative weight is above u, found by
  // walking up the weights as u grows.
  const std::vector<double>& cumulative = sizes.cumulative();
  std::size_t k = 0;
  for (std::size_t i = 0; i < kGrid; ++i) {
    const double u = (static_cast<double>(i) + 0.5) / static_cast<double>(kGrid);
    while (k + 1 < cumulative.size() && cumulative[k] <= u) ++k;
    const double size = sizes.values()[k];
    size_sum += size;
    run_sum += static_cast<double>(std::min(run[i], cap));
    tied_sum += size * static_cast<double>(std::min(run[p >= 0 ? i : kGrid - 1 - i], cap));
  }
  const double independent = size_sum / kGrid * (run_sum / kGrid), tied = tied_sum / kGrid;
  return (1 - std::abs(p)) * independent + std::abs(p) * tied;
}

double arrival_shape(const ArrivalModel& a, Time t) {
  const double local = static_cast<double>(t.sec()) + a.utc_offset_hours * 3600.0;
  const double day = std::floor(local / 86400.0);
  const double hour = (local - day * 86400.0) / 3600.0;
  // 1970-01-01 was a Thursday: day 0 -> 4 with Sunday as 0.
  const std::int64_t dow = ((static_cast<std::int64_t>(day) + 4) % 7 + 7) % 7;
  const bool weekend = dow == 0 || dow == 6;
  const double week_norm = 7.0 / (5.0 + 2.0 * a.weekend_factor);
  constexpr double kTwoPi = 6.283185307179586;
  return (1.0 + a.daily_amplitude * std::cos(kTwoPi * (hour - a.peak_hour) / 24.0)) *
         (weekend ? a.weekend_factor : 1.0) * week_norm;
}

LargeJobsModel LargeJobsModel::on_cluster(std::int64_t gpus, std::int64_t largest) const {
  LargeJobsModel m = *this;
  if (!on() || cluster_gpus <= 0 || gpus == cluster_gpus) return m;
  const auto scaled = static_cast<std::int64_t>(
      std::llround(static_cast<double>(max_concurrent_gpus) * static_cast<double>(gpus) / static_cast<double>(cluster_gpus)));
  m.max_concurrent_gpus = std::max(scaled, largest);
  m.cluster_gpus = gpus;
  return m;
}

SyntheticModel on_cluster(SyntheticModel m, std::int64_t cluster_gpus) {
  double largest = 0;
  for (const Discrete& sizes : m.gpu_sizes)
    for (double gpus : sizes.values()) largest = std::max(largest, gpus);
  m.large_jobs = m.large_jobs.on_cluster(cluster_gpus, static_cast<std::int64_t>(largest));
  return m;
}

}  // namespace acme
