#include "workloads/synthetic.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "sim/csv.h"
#include "sim/yaml_util.h"

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
}

double Discrete::sample(Rng& rng) const {
  const double u = rng.uniform();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return values_[std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()), values_.size() - 1)];
}

LogCdf::LogCdf(std::vector<std::pair<double, double>> points) {
  for (const auto& [seconds, pct] : points) points_.emplace_back(std::log2(seconds), pct);
}

std::int64_t LogCdf::sample_seconds(Rng& rng) const {
  const double u = rng.uniform() * points_.back().second;
  const auto& first = points_.front();
  // Below the first point: linear from 0 s.
  // Rounding up keeps P(run <= 2^k) exactly as given, since the points are whole seconds.
  if (u <= first.second) return static_cast<std::int64_t>(std::ceil(std::exp2(first.first) * (first.second > 0 ? u / first.second : 0)));
  const auto it = std::lower_bound(points_.begin(), points_.end(), u,
                                   [](const auto& p, double v) { return p.second < v; });
  const auto& hi = *it;
  const auto& lo = *(it - 1);
  const double f = hi.second > lo.second ? (u - lo.second) / (hi.second - lo.second) : 1.0;
  return static_cast<std::int64_t>(std::ceil(std::exp2(lo.first + f * (hi.first - lo.first)) - 1e-9));
}

namespace {

std::vector<std::pair<double, double>> named_to_types(const YamlValue& v, bool states) {
  std::vector<std::pair<double, double>> out;
  for (const auto& [name, weight] : v.as_named_numbers()) {
    if (states) {
      const auto s = parse_job_state(name);
      if (!s) v.fail("unknown job state '" + name + "'");
      out.emplace_back(static_cast<double>(*s), weight);
    } else {
      const auto t = parse_job_type(name);
      if (!t || *t == JobType::CPU) v.fail("unknown GPU job type '" + name + "'");
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

}  // namespace

SyntheticModel load_synthetic_model(const std::string& path) {
  static constexpr std::string_view kMaps[] = {"gpu_type_mix_pct", "gpu_state_mix_pct", "cpu_state_mix_pct"};
  SyntheticModel m;
  for (const YamlValue& v : read_yaml_file(path, kMaps)) {
    const std::string& k = v.key();
    if (k == "cluster") m.cluster = v.as_string();
    else if (k == "jobs_per_day") m.jobs_per_day = v.as_double(1e-9, 1e9);
    else if (k == "cpu_job_share_pct") m.cpu_job_share_pct = v.as_double(0, 100);
    else if (k == "cpus_per_gpu") m.cpus_per_gpu = static_cast<int>(v.as_int(0, 1024));
    else if (k == "gpu_type_mix_pct") m.gpu_type = Discrete(named_to_types(v, false));
    else if (k.starts_with("gpu_sizes.")) m.gpu_sizes[static_cast<std::size_t>(type_suffix(v, "gpu_sizes."))] = Discrete(v.as_pairs());
    else if (k.starts_with("duration_cdf.")) {
      auto points = v.as_pairs();
      for (std::size_t i = 0; i < points.size(); ++i)
        if (points[i].first <= 0 || (i > 0 && (points[i].first <= points[i - 1].first || points[i].second < points[i - 1].second)))
          v.fail("CDF points must have increasing seconds > 0 and non-decreasing percentages");
      if (points.empty() || points.back().second <= 0) v.fail("a CDF needs points");
      m.durations[static_cast<std::size_t>(type_suffix(v, "duration_cdf."))] = LogCdf(std::move(points));
    }
    else if (k == "gpu_state_mix_pct") m.gpu_states = Discrete(named_to_types(v, true));
    else if (k == "cpu_state_mix_pct") m.cpu_states = Discrete(named_to_types(v, true));
    else if (k == "cpu_job_cpus") m.cpu_job_cpus = Discrete(v.as_pairs());
    else if (k == "users") m.users = static_cast<int>(v.as_int(1, 10'000'000));
    else if (k == "user_zipf_s") m.user_zipf_s = v.as_double(0, 10);
    else v.fail("unknown key");
  }
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw_input_error(path, 0, what, "missing");
  };
  need(m.jobs_per_day > 0, "jobs_per_day");
  need(!m.gpu_type.empty(), "gpu_type_mix_pct");
  need(!m.gpu_states.empty(), "gpu_state_mix_pct");
  need(!m.cpu_states.empty(), "cpu_state_mix_pct");
  need(!m.cpu_job_cpus.empty(), "cpu_job_cpus");
  need(!m.durations[0].empty(), "duration_cdf.CPU");
  // Every GPU type the mix can draw needs sizes and durations.
  for (double v : m.gpu_type.values()) {
    const auto t = static_cast<std::size_t>(v);
    need(!m.gpu_sizes[t].empty(), "gpu_sizes." + std::string(kJobTypeNames[t]));
    need(!m.durations[t].empty(), "duration_cdf." + std::string(kJobTypeNames[t]));
  }
  return m;
}

Workload generate_workload(const SyntheticModel& m, Time from, Time to, double load, std::uint64_t seed,
                           int gpus_per_node) {
  Workload w;
  w.source = "synthetic " + m.cluster + " (load " + format_fixed(load, 2) + ", seed " + std::to_string(seed) + ")";
  w.window_from = from;
  w.window_to = to;
  Rng rng(seed);

  std::vector<std::pair<double, double>> zipf;
  for (int u = 1; u <= m.users; ++u) zipf.emplace_back(u - 1, 1.0 / std::pow(u, m.user_zipf_s));
  const Discrete user_of(zipf);
  std::string user = "u";
  for (int u = 0; u < m.users; ++u) {
    user.resize(1);
    user += std::to_string(10000 + u);  // the trace's style: u5907
    w.users.intern(user);
  }

  const double mean_gap = 86400.0 / (m.jobs_per_day * load);
  double t = static_cast<double>(from.sec());
  std::string name;
  for (std::uint64_t n = 1;; ++n) {
    t += rng.exponential(mean_gap);
    const Time submit = Time::seconds(static_cast<std::int64_t>(std::floor(t)));
    if (submit >= to) break;
    JobRequest r;
    JobProfile p;
    r.submit = submit;
    r.user = static_cast<std::uint32_t>(user_of.sample(rng));
    if (rng.uniform() * 100 < m.cpu_job_share_pct) {
      r.type = JobType::CPU;
      r.cpu_num = static_cast<std::int32_t>(m.cpu_job_cpus.sample(rng));
      p.final_state = static_cast<JobState>(m.cpu_states.sample(rng));
    } else {
      r.type = static_cast<JobType>(m.gpu_type.sample(rng));
      r.gpu_num = static_cast<std::int32_t>(m.gpu_sizes[static_cast<std::size_t>(r.type)].sample(rng));
      r.node_num = (r.gpu_num + gpus_per_node - 1) / gpus_per_node;
      r.cpu_num = r.gpu_num * m.cpus_per_gpu;
      p.final_state = static_cast<JobState>(m.gpu_states.sample(rng));
    }
    p.run = Time::seconds(m.durations[static_cast<std::size_t>(r.type)].sample_seconds(rng));
    p.recorded_start = submit;  // no history: a recorded replay starts jobs on submission
    name = std::to_string(n);
    w.add(name, r, p);
  }
  return w;
}

}  // namespace acme
