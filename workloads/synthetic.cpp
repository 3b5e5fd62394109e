#include "workloads/synthetic.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <future>
#include <limits>
#include <numeric>
#include <string_view>

#include "sim/csv.h"
#include "sim/prefault.h"
#include "sim/yaml_util.h"
#include "workloads/synthetic_draws.h"
#include "workloads/synthetic_drafts.h"

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

// Golden-ratio-like steps of the Kronecker sequences; 1 and these are independent over the
// rationals, so the four sequences of a type are jointly equidistributed.
constexpr double kAlphaSize = 0.41421356237309503;     // sqrt(2) - 1
constexpr double kAlphaRun = 0.6180339887498949;       // (sqrt(5) - 1) / 2
constexpr double kAlphaCouple = 0.7320508075688772;    // sqrt(3) - 1
constexpr double kAlphaState = 0.6457513110645907;     // sqrt(7) - 2

struct Kronecker {
  double x = 0, alpha = 0;
  double next() {
    x += alpha;
    if (x >= 1.0) x -= 1.0;
    return x;
  }
};

struct Checkpoint {
  std::int64_t time;
  std::int32_t jobs;
};

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
  if (m.gpu_time_balance_pct > 0 || m.state_balance_gpu_time_pct > 0) {  // the balances and their pool
    // A pass over 2^16 quantiles a type: the other core takes every other type.
    const auto expect = [&m](std::size_t first) {
      for (std::size_t t = first; t < kJobTypeCount; t += 2)
        if (!m.gpu_sizes[t].empty() && !m.durations[t].empty())
          m.gpu_seconds_per_job[t] = expected_gpu_seconds(m, static_cast<JobType>(t));
    };
    auto odd = std::async(std::launch::async, expect, 1);
    expect(0);
    odd.get();
  }
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

Workload generate_workload(const SyntheticModel& m, Time from, Time to, double load, std::uint64_t seed,
                           int gpus_per_node) {
  Workload w;
  w.source = "synthetic " + m.cluster + " (load " + format_fixed(load, 2) + ", seed " + std::to_string(seed) + ")";
  w.window_from = from;
  w.window_to = to;
  Rng seeded(seed);
  UniformStream rng(seeded);

  std::vector<std::pair<double, double>> zipf;
  for (int u = 1; u <= m.users; ++u) zipf.emplace_back(u - 1, 1.0 / std::pow(u, m.user_zipf_s));
  const Discrete user_of(zipf);
  {
    // User ids look like the trace's (u5907), four hex digits of a hash of the index, distinct.
    std::vector<bool> taken(1 << 16);
    std::string user;
    for (int u = 0; u < m.users; ++u) {
      std::uint64_t h = (static_cast<std::uint64_t>(u) + 1) * 0x9e3779b97f4a7c15ULL;
      h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
      auto id = static_cast<std::size_t>((h >> 40) & 0xffff);
      while (taken[id]) id = (id + 1) & 0xffff;
      taken[id] = true;
      char buf[8];
      std::snprintf(buf, sizeof buf, "u%04zx", id);
      user = buf;
      if (m.users > 60000) user = "u" + std::to_string(u);  // more users than ids
      w.users.intern(user);
    }
  }

  std::array<std::array<Kronecker, 4>, kJobTypeCount> seq;
  std::array<std::vector<Kronecker>, kJobTypeCount> run_by_size;    // independent run quantiles
  std::array<std::vector<Kronecker>, kJobTypeCount> state_by_size;  // state quantiles
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    const double alphas[4] = {kAlphaSize, kAlphaRun, kAlphaCouple, kAlphaState};
    for (int i = 0; i < 4; ++i) seq[t][i] = Kronecker{rng.uniform(), alphas[i]};
    for (std::size_t k = 0; k < m.gpu_sizes[t].values().size(); ++k) {
      run_by_size[t].push_back({rng.uniform(), kAlphaRun});
      state_by_size[t].push_back({rng.uniform(), kAlphaState});
    }
  }

  const ArrivalModel& a = m.arrivals;
  const double session_rate = m.jobs_per_day * load / 86400.0 / a.session_jobs_mean;  // per second, mean
  const double continue_p = 1.0 - 1.0 / a.session_jobs_mean;  // geometric session length
  const double batch_share = m.eval_batch.share_of_eval_pct / 100.0;
  const std::int64_t begin = from.sec(), end = to.sec();

  // Room for the jobs expected, and a little more, in the drafts and in the workload. The other
  // core faults in their pages while this one draws the drafts (should the jobs outgrow them, it
  // faults in freed pages: harmless, prefault() touches no contents).
  const auto room = static_cast<std::size_t>(m.jobs_per_day * load * static_cast<double>(end - begin) / 86400.0 * 1.05) + 16;
  std::vector<Draft> drafts;
  drafts.reserve(room);
  w.reserve(room, room * 7);  // names 1..n, about 7 digits each
  const std::array<std::pair<const void*, std::size_t>, 3> fresh{{  // read here, not beside push_back
      {drafts.data(), drafts.capacity() * sizeof(Draft)},
      {w.requests.data(), w.requests.capacity() * sizeof(JobRequest)},
      {w.profiles.data(), w.profiles.capacity() * sizeof(JobProfile)}}};
  auto prefaulting = std::async(std::launch::async, [fresh] {
    for (const auto& [data, bytes] : fresh) prefault(data, bytes);
  });
  std::vector<std::uint32_t> waiting;  // the drafts of Eval jobs that wait for a checkpoint
  std::vector<Checkpoint> checkpoints;
  const ArrivalThinning thinning(a);
  const double shape_max = thinning.ceiling();
  const StateDraw states(m);
  GpuTimeTally tally(m);

  double t = static_cast<double>(begin);
  for (;;) {
    t += rng.exponential(1.0 / (session_rate * shape_max));
    if (t >= static_cast<double>(end)) break;
    if (!thinning.keeps(rng.uniform() * shape_max, static_cast<std::int64_t>(t))) continue;
    const auto user = static_cast<std::uint32_t>(user_of.at(rng.uniform()));
    double tj = t;
    for (bool first = true;; first = false) {
      if (!first) {
        if (rng.uniform() >= continue_p) break;
        tj += rng.exponential(a.session_gap_s);
      }
      const auto submit = static_cast<std::int64_t>(std::floor(tj));
      if (submit >= end) break;
      const auto index = static_cast<std::uint32_t>(drafts.size());
      Draft& d = drafts.emplace_back();  // filled in place, not copied in
      d.submit = submit;
      d.user = user;
      d.type = static_cast<JobType>(m.type.at(rng.uniform()));
      const auto ti = static_cast<std::size_t>(d.type);
      if (d.type == JobType::CPU) {
        d.cpus = static_cast<std::int32_t>(m.cpu_job_cpus.at(rng.uniform()));
        d.state = static_cast<JobState>(m.cpu_states.at(rng.uniform()));
        d.run = m.durations[ti].at(rng.uniform());
      } else {
        auto& s = seq[ti];
        // A coupled job takes size and run time from one quantile of its own sequence, so the
        // coupled jobs (and their heavy tail) are spread as evenly as the others.
        const double p = m.coupling[ti], uc = s[2].next();
        const bool tied = uc < std::abs(p);
        const double us = tied ? s[1].next() : s[0].next();
        const std::size_t size_index = m.gpu_sizes[ti].index_at(us);
        const double ud = tied ? (p >= 0 ? us : 1.0 - us) : run_by_size[ti][size_index].next();
        const double ust = state_by_size[ti][size_index].next();
        d.gpus = static_cast<std::int32_t>(m.gpu_sizes[ti].values()[size_index]);
        d.cpus = d.gpus * m.cpus_per_gpu;
        d.run = m.durations[ti].at(std::min(ud, 0.9999999999));
        d.state = states.state(ust, d.gpus, d.run);
        if (d.type == JobType::Eval && batch_share > 0 && rng.uniform() < batch_share)
          waiting.push_back(index);
        if ((d.type == JobType::Pretrain || d.type == JobType::SFT) && batch_share > 0 &&
            d.run >= m.eval_batch.checkpoint_after_s)
          checkpoints.push_back({submit + m.eval_batch.checkpoint_after_s,
                                 static_cast<std::int32_t>(m.eval_batch.jobs.at(rng.uniform()))});
      }
      if (m.max_run_s > 0) d.run = std::min(d.run, m.max_run_s);
      if (d.gpus > 0) tally.add(index, d.type, gpu_seconds(d));
    }
  }

  prefaulting.get();
  // Two strands of work now share no data. The other core lays out the workload's arrays and
  // names (they need only the number of jobs), then balances the drafts' run times and states
  // (the stream's last draws); this one moves the waiting evaluation jobs into their batches and
  // orders the drafts, which reads and writes their submit times only.
  auto layout_and_balance = std::async(std::launch::async, [&w, &drafts, &m, &tally, &rng] {
    w.names.add_numbers(1, drafts.size());  // job names are 1, 2, ... in submit order
    w.requests.resize(drafts.size());
    w.profiles.resize(drafts.size());
    const double gpu_total = balance_gpu_time(drafts, m, tally);
    balance_states(drafts, m, tally, gpu_total, rng);
  });

  // Evaluation batches: each waiting Eval job joins the first checkpoint at or after its arrival
  // that has room; the batch is submitted at the checkpoint, stagger_s apart.
  if (!checkpoints.empty()) {
    const std::vector<std::uint32_t> tokens = by_submit(drafts, std::move(waiting), begin, end);
    std::stable_sort(checkpoints.begin(), checkpoints.end(),
                     [](const Checkpoint& x, const Checkpoint& y) { return x.time < y.time; });
    std::size_t next = 0, head = 0;  // tokens [head, next) wait, in arrival order
    for (const Checkpoint& c : checkpoints) {
      while (next < tokens.size() && drafts[tokens[next]].submit <= c.time) ++next;
      for (std::int32_t k = 0; k < c.jobs && head < next; ++k, ++head) {
        const std::int64_t at = c.time + k * m.eval_batch.stagger_s;
        if (at < end) drafts[tokens[head]].submit = at;
      }
    }
  }

  std::vector<std::uint32_t> all(drafts.size());
  std::iota(all.begin(), all.end(), 0u);
  const std::vector<std::uint32_t> order = by_submit(drafts, std::move(all), begin, end);

  layout_and_balance.get();
  for (std::size_t n = 0; n < order.size(); ++n) {
    const Draft& d = drafts[order[n]];
    JobRequest& r = w.requests[n];
    JobProfile& p = w.profiles[n];
    r.submit = Time::seconds(d.submit);
    r.type = d.type;
    r.user = d.user;
    r.gpu_num = d.gpus;
    r.cpu_num = d.cpus;
    r.node_num = d.gpus > 0 ? (d.gpus + gpus_per_node - 1) / gpus_per_node : 1;
    p.run = Time::seconds(d.run);
    p.final_state = d.state;
    p.recorded_start = r.submit;  // no history: a recorded replay starts jobs on submission
  }
  return w;
}

}  // namespace acme
