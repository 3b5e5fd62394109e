// Two draws of the synthetic generator (workloads/synthetic.h) that cost a transcendental function
// each, made cheap by bounds that settle most of them without it. Each answers what the plain
// computation answers: a bound decides only when the draw is clear of it by a margin far above
// the rounding of the computations between them, and the plain computation decides the rest.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "sim/job.h"
#include "sim/time.h"
#include "workloads/synthetic.h"

namespace acme {

// P(CANCELLED) and P(FAILED) of a GPU job of `gpus` GPUs running `run` seconds (at least 1):
// logistic in log2(GPU-seconds) - 20 (SyntheticModel::cancel_logit, then fail_logit given not
// cancelled).
std::pair<double, double> state_odds(const SyntheticModel& m, std::int32_t gpus, std::int64_t run);

// The final state of a GPU job from its state quantile u: CANCELLED when u < P(CANCELLED), else
// FAILED when u < P(CANCELLED) + P(FAILED), else COMPLETED (state_odds).
JobState state_at(const SyntheticModel& m, double u, std::int32_t gpus, std::int64_t run);

// Thinning of the arrival process: a candidate at `second` drawn at height x in [0, ceiling())
// is kept when x < arrival_shape(second). Bounds of the shape over each hour of the week decide
// all but the few candidates near the curve, without its cos. The shape repeats weekly (to the
// last bit when the UTC offset is a whole number of seconds; within rounding otherwise, which
// the margin covers for a thousand years around 1970, beyond which every candidate is computed).
class ArrivalThinning {
 public:
  explicit ArrivalThinning(const ArrivalModel& a);
  // The shape's maximum over the week.
  double ceiling() const { return ceiling_; }
  bool keeps(double x, std::int64_t second) const {
    if (second < -kNear || second > kNear) return x < arrival_shape(model_, Time::seconds(second));
    const auto& [lo, hi] = bounds_[hour_of_week(second)];
    if (x < lo) return true;
    if (x >= hi) return false;
    return x < arrival_shape(model_, Time::seconds(second));
  }

 private:
  static std::size_t hour_of_week(std::int64_t second) {
    const std::int64_t hour = second >= 0 ? second / 3600 : -((-second + 3599) / 3600);
    return static_cast<std::size_t>((hour % 168 + 168) % 168);
  }
  static constexpr std::int64_t kNear = INT64_C(1) << 35;  // seconds from 1970: about 1,089 years
  ArrivalModel model_;
  double ceiling_;
  std::array<std::pair<double, double>, 168> bounds_;  // (below: keep, at or above: drop) by UTC hour
};

// state_at(), with bounds of the odds over sixteen slices of every octave of GPU-seconds that
// decide all but the few u near a threshold, without log2 and exp. The bounds are the odds at
// the slices' ends, computed as state_odds computes them: each step is monotone in the
// GPU-seconds, so however steep the logits, rounding cannot carry a job past its slice's bounds.
class StateDraw {
 public:
  explicit StateDraw(const SyntheticModel& m);
  JobState state(double u, std::int32_t gpus, std::int64_t run) const;

 private:
  // Slice of g = gpus x max(run, 1) >= 1: its binary exponent and top four mantissa bits.
  static std::uint64_t slice(double g);
  struct Bounds {
    double cancel_lo, cancel_hi;  // of P(CANCELLED), margins included
    double end_lo, end_hi;        // of P(CANCELLED) + P(FAILED)
  };
  static constexpr std::size_t kSlices = 64 * 16;  // g < 2^64
  const SyntheticModel* model_;
  std::array<Bounds, kSlices> bounds_;
};

}  // namespace acme
