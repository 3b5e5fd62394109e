#include "workloads/synthetic_draws.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace acme {

namespace {

// Far above the rounding of the few operations between a bound and what it bounds (about 1e-16
// on values near 1).
constexpr double kMargin = 1e-9;

double logistic(double z) { return 1.0 / (1.0 + std::exp(-z)); }

double gpu_seconds(std::int32_t gpus, std::int64_t run) {
  return static_cast<double>(gpus) * static_cast<double>(std::max<std::int64_t>(run, 1));
}

// P(CANCELLED), and P(FAILED) given not cancelled, at g GPU-seconds.
std::pair<double, double> logits_at(const SyntheticModel& m, double g) {
  const double x = std::log2(g) - 20.0;
  return {logistic(m.cancel_logit[0] + m.cancel_logit[1] * x), logistic(m.fail_logit[0] + m.fail_logit[1] * x)};
}

}  // namespace

std::pair<double, double> state_odds(const SyntheticModel& m, std::int32_t gpus, std::int64_t run) {
  const auto [pc, pf_given_not] = logits_at(m, gpu_seconds(gpus, run));
  return {pc, (1.0 - pc) * pf_given_not};
}

JobState state_at(const SyntheticModel& m, double u, std::int32_t gpus, std::int64_t run) {
  const auto [pc, pf] = state_odds(m, gpus, run);
  return u < pc ? JobState::Cancelled : u < pc + pf ? JobState::Failed : JobState::Completed;
}

ArrivalThinning::ArrivalThinning(const ArrivalModel& a)
    : model_(a), ceiling_((1.0 + a.daily_amplitude) * std::max(1.0, a.weekend_factor) * 7.0 / (5.0 + 2.0 * a.weekend_factor)) {
  // The shape is (1 + A cos(phase)) x day factor, both in closed form: over an hour the phase
  // moves by less than 2 pi / 24, so cos lies between its ends unless a peak or trough is inside.
  ArrivalModel flat = a;
  flat.daily_amplitude = 0;  // arrival_shape(flat, .) is the day factor alone
  constexpr double kTwoPi = 6.283185307179586, kPi = kTwoPi / 2;
  for (std::size_t h = 0; h < bounds_.size(); ++h) {
    const auto first = static_cast<std::int64_t>(h) * 3600, last = first + 3599;
    const double local = static_cast<double>(first) + a.utc_offset_hours * 3600.0;
    const double hour = (local - std::floor(local / 86400.0) * 86400.0) / 3600.0;
    const double from = kTwoPi * (hour - a.peak_hour) / 24.0, to = from + kTwoPi * (3599.0 / 3600.0) / 24.0;
    double cos_lo = std::min(std::cos(from), std::cos(to)), cos_hi = std::max(std::cos(from), std::cos(to));
    if (std::ceil(from / kTwoPi) * kTwoPi <= to) cos_hi = 1;
    if (std::ceil((from - kPi) / kTwoPi) * kTwoPi + kPi <= to) cos_lo = -1;
    const double day_first = arrival_shape(flat, Time::seconds(first)), day_last = arrival_shape(flat, Time::seconds(last));
    const double lo = (1 + a.daily_amplitude * cos_lo) * std::min(day_first, day_last);
    const double hi = (1 + a.daily_amplitude * cos_hi) * std::max(day_first, day_last);
    bounds_[h] = {lo * (1 - kMargin) - kMargin, hi * (1 + kMargin) + kMargin};
  }
}

std::uint64_t StateDraw::slice(double g) { return (std::bit_cast<std::uint64_t>(g) >> 48) - (UINT64_C(1023) << 4); }

StateDraw::StateDraw(const SyntheticModel& m) : model_(&m) {
  for (std::size_t s = 0; s < kSlices; ++s) {
    // The slice holds g in [2^e (1 + k/16), 2^e (1 + (k+1)/16)); both ends are exact doubles.
    const int e = static_cast<int>(s / 16);
    const double k = static_cast<double>(s % 16);
    const auto [c1, f1] = logits_at(m, std::ldexp(1 + k / 16, e));
    const auto [c2, f2] = logits_at(m, std::ldexp(1 + (k + 1) / 16, e));
    const double c_lo = std::min(c1, c2), c_hi = std::max(c1, c2), f_lo = std::min(f1, f2), f_hi = std::max(f1, f2);
    // P(CANCELLED) + P(FAILED) = 1 - (1 - c)(1 - f) grows with both c and f.
    bounds_[s] = {c_lo - kMargin, c_hi + kMargin, 1 - (1 - c_lo) * (1 - f_lo) - kMargin,
                  1 - (1 - c_hi) * (1 - f_hi) + kMargin};
  }
}

JobState StateDraw::state(double u, std::int32_t gpus, std::int64_t run) const {
  const double g = gpu_seconds(gpus, run);
  if (const std::uint64_t s = slice(g); g >= 1 && s < kSlices) {
    const Bounds& b = bounds_[s];
    if (u < b.cancel_lo) return JobState::Cancelled;
    if (u >= b.cancel_hi) {
      if (u < b.end_lo) return JobState::Failed;
      if (u >= b.end_hi) return JobState::Completed;
    }
  }
  return state_at(*model_, u, gpus, run);
}

}  // namespace acme
