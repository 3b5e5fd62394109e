#include "sim/failures.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "sim/error.h"
#include "sim/random.h"

namespace acme {
namespace {

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Fits a per-run reason to the population: chance c x G^beta, beta such that the struck jobs'
// mean GPUs is the table's (the mean grows with beta; bisection), c such that the expected
// count over the population is the table's.
void scale_by_gpus(FailureReason& r, const std::vector<std::pair<double, double>>& population) {
  auto moment = [&](double k) {
    double sum = 0;
    for (const auto& [gpus, jobs] : population) sum += jobs * std::pow(gpus, k);
    return sum;
  };
  double lo = -30, hi = 30;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (moment(mid + 1) / moment(mid) < r.avg_gpus ? lo : hi) = mid;
  }
  r.gpu_exponent = (lo + hi) / 2;
  r.per_run_prob = r.count / moment(r.gpu_exponent) * r.rate_fit;
}

}  // namespace

FailureModel::FailureModel(FailureSettings s)
    : enabled_(s.enabled),
      recorded_failed_complete_(s.recorded_failed_complete),
      hold_gpus_(s.hold_gpus),
      seed_(s.seed),
      reasons_(std::move(s.reasons)),
      population_(std::move(s.population)),
      checkpoints_(s.checkpoints) {
  for (FailureReason& r : reasons_) {
    r.ttf_mean_s = r.avg_ttf_min * 60.0 * r.ttf_fit;
    const bool by_run = r.category != FailureCategory::Infrastructure ||
                        std::find(s.per_run.begin(), s.per_run.end(), r.name) != s.per_run.end();
    if (by_run) r.domain = FailureDomain::Job;
    if (!by_run) r.per_gpu_rate = r.count / s.exposure_gpu_seconds * r.rate_fit;
    else if (population_.empty()) r.per_run_prob = std::min(1.0, r.count / s.exposure_jobs * r.rate_fit);
    else scale_by_gpus(r, population_);
    per_gpu_rate_sum_ += r.per_gpu_rate;
  }
  for (std::size_t b = 0; b < per_run_none_at_least_.size(); ++b) {
    double none = 1.0;
    for (const FailureReason& r : reasons_)
      if (r.per_gpu_rate <= 0) {
        const auto low = static_cast<std::int32_t>(std::uint32_t{1} << b);
        const auto high = static_cast<std::int32_t>(std::min<std::uint64_t>((std::uint64_t{2} << b) - 1, INT32_MAX));
        none *= 1.0 - std::max(r.per_run_chance(low), r.per_run_chance(high));
      }
    per_run_none_at_least_[b] = none;
  }
  detect_ = Time::seconds(std::llround(s.detect_s));
  diagnose_ = Time::seconds(std::llround(s.diagnose_s));
  repair_ = Time::seconds(std::llround(s.repair_s));
  checkpoint_ = CheckpointModel(s.checkpoint);
}

double FailureModel::strike_probability(const FailureReason& r, std::int32_t gpus, double horizon_s) {
  if (r.per_gpu_rate <= 0) return r.per_run_chance(gpus);
  return -std::expm1(-r.per_gpu_rate * gpus * horizon_s);  // 1 when the horizon is infinite
}

std::uint64_t FailureModel::run_key(std::uint64_t job_key, std::uint32_t run) const {
  return mix(mix(seed_ ^ mix(job_key)) ^ run);
}

double FailureModel::where(std::uint64_t job_key, std::uint32_t run) const {
  return Rng(mix(run_key(job_key, run) ^ 0x5745u)).uniform();
}

std::optional<FailureDraw> FailureModel::draw(std::uint64_t job_key, std::uint32_t run, std::int32_t gpus, Time horizon) const {
  if (!enabled_ || gpus <= 0 || reasons_.empty()) return std::nullopt;
  Rng rng(run_key(job_key, run));
  const double h = horizon == Time::max() ? std::numeric_limits<double>::infinity() : static_cast<double>(horizon.sec());
  // Most runs meet no failure: one uniform against a lower bound of the chance that none strikes
  // settles them, the exact chance the rest.
  const double u = rng.uniform();
  const auto bucket = static_cast<std::size_t>(std::bit_width(static_cast<std::uint32_t>(gpus)) - 1);
  // Since exp(-x) >= 1 - x, most of them are settled without the exp (the margin is far wider than
  // the exp's rounding, so the answer is the exp's).
  const double none_at_least = per_run_none_at_least_[bucket], x = per_gpu_rate_sum_ * gpus * h;
  if (u < none_at_least * (1.0 - x) * (1.0 - 1e-12) || u < none_at_least * std::exp(-x)) return std::nullopt;
  // Some reason strikes. Each, in table order, strikes with its chance given that none before it
  // did and that it or a later one does (exact for independent reasons); after the first, with
  // its plain chance. Then each struck reason picks its moment, and the earliest wins.
  std::vector<double> q(reasons_.size());                    // [i]: reason i strikes
  std::vector<double> later_none(reasons_.size() + 1, 1.0);  // [i]: no reason from i on strikes
  for (std::size_t i = reasons_.size(); i-- > 0;) {
    q[i] = strike_probability(reasons_[i], gpus, h);
    later_none[i] = later_none[i + 1] * (1.0 - q[i]);
  }
  if (u < later_none[0]) return std::nullopt;
  bool struck = false;
  double best = std::numeric_limits<double>::infinity();
  std::optional<FailureDraw> out;
  for (std::size_t i = 0; i < reasons_.size(); ++i) {
    const FailureReason& r = reasons_[i];
    const double chance = struck ? q[i] : q[i] / std::max(1.0 - later_none[i], 1e-300);
    if (!(rng.uniform() < chance)) continue;
    struck = true;
    // An exponential time, truncated to the run's horizon, by inverse CDF.
    const double mean = r.ttf_mean_s > 0 || r.per_gpu_rate <= 0 ? r.ttf_mean_s : 1.0 / (r.per_gpu_rate * gpus);
    const double v = rng.uniform();
    const double t = h / mean > 700 ? -mean * std::log1p(-v) : -mean * std::log1p(-v * -std::expm1(-h / mean));
    if (t < best) {
      best = t;
      const auto whole = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(t)));
      out = FailureDraw{Time::seconds(whole), i, r.domain, r.category, r.per_gpu_rate <= 0};
    }
  }
  if (!out || out->after >= horizon) return std::nullopt;
  return out;
}

}  // namespace acme
