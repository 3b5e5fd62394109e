// The generator's shortcuts answer exactly what the plain computations answer: the LogCdf memo,
// the Discrete guide table, the arrival thinning bounds and the state bounds. Each is checked
// on random points and on the points where an answer changes (cell edges, cumulative weights,
// the curve of the arrival shape, the state thresholds), where a wrong bound would show.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness.h"
#include "workloads/synthetic_draws.h"

namespace acme::test {
namespace {

double below(double x) { return std::nextafter(x, -1.0); }
double above(double x) { return std::nextafter(x, 2.0); }

// Quantiles where LogCdf::at and computed() differ, of `draws` at random, every memo cell's edge
// and `also`, each with its neighbours one step either side.
std::size_t memo_mismatches(const LogCdf& cdf, Rng& rng, int draws, std::vector<double> also = {}) {
  for (std::size_t k = 1; k < 4096; ++k) also.push_back(static_cast<double>(k) / 4096);
  std::size_t mismatches = 0;
  for (int i = 0; i < draws; ++i) {
    const double u = rng.uniform();
    mismatches += cdf.at(u) != cdf.computed(u);
  }
  for (const double edge : also)
    for (const double u : {below(edge), edge, above(edge)})
      if (u >= 0 && u < 1) mismatches += cdf.at(u) != cdf.computed(u);
  return mismatches;
}

}  // namespace

TEST_CASE("LogCdf::at answers computed() at random quantiles and at every memo cell edge", "[synthetic]") {
  for (const std::string cluster : {"seren", "kalos"}) {
    const SyntheticModel m = shipped_model(cluster);
    for (const LogCdf& cdf : m.durations) {
      if (cdf.empty()) continue;
      Rng rng(7);
      std::size_t mismatches = memo_mismatches(cdf, rng, 200000);
      const std::vector<std::int64_t> grid = cdf.at_grid(1 << 14);
      for (std::size_t i = 0; i < grid.size(); ++i)
        mismatches += grid[i] != cdf.computed((static_cast<double>(i) + 0.5) / static_cast<double>(grid.size()));
      INFO(cluster);
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("LogCdf memo: CDFs with jumps, flat parts and points at any second answer computed()", "[synthetic]") {
  // computed() is not monotone across a point: below the first point it rounds up without the
  // 1e-9 slack, and exp2(log2(15)) is a hair above 15, so just above 25% it falls from 16 to 15.
  const LogCdf first_point({{15, 25}, {30, 50}, {60, 100}});
  const double just_above = std::nextafter(0.25, 1.0);
  CHECK(first_point.computed(0.25) == 16);
  CHECK(first_point.at(just_above) == first_point.computed(just_above));
  CHECK(first_point.at(just_above) == 15);

  Rng rng(3);
  std::size_t mismatches = memo_mismatches(LogCdf({{1, 0}, {2, 30}, {4, 30}, {64, 99.9}, {1 << 20, 100}}), rng, 20000);
  for (int c = 0; c < 200; ++c) {  // random points: whole seconds, percents with ties and jumps
    std::vector<std::pair<double, double>> points;
    std::vector<double> quantiles;  // of the points
    double seconds = 1 + std::floor(rng.uniform() * 40), pct = 0;
    for (int p = 0; p < 6; ++p) {
      pct = p == 5 ? 100.0 : rng.uniform() < 0.2 ? pct : std::min(100.0, pct + std::floor(rng.uniform() * 40) + rng.uniform());
      points.emplace_back(seconds, pct);
      quantiles.push_back(pct / 100);
      seconds += 1 + std::floor(rng.uniform() * (rng.uniform() < 0.3 ? 1e6 : 300));
    }
    mismatches += memo_mismatches(LogCdf(points), rng, 2000, quantiles);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Discrete::index_at is the first cumulative weight above u, at and around every weight", "[synthetic]") {
  const auto reference = [](const Discrete& d, double u) {
    const auto it = std::upper_bound(d.cumulative().begin(), d.cumulative().end(), u);
    return std::min<std::size_t>(static_cast<std::size_t>(it - d.cumulative().begin()), d.values().size() - 1);
  };
  std::vector<Discrete> cases;
  cases.emplace_back(std::vector<std::pair<double, double>>{{5, 1}});
  cases.emplace_back(std::vector<std::pair<double, double>>{{1, 1}, {2, 0}, {3, 1e-9}, {4, 5}, {5, 1e-9}});
  std::vector<std::pair<double, double>> zipf;
  for (int u = 1; u <= 300; ++u) zipf.emplace_back(u - 1, 1.0 / std::pow(u, 1.1));
  cases.emplace_back(zipf);
  for (const std::string cluster : {"seren", "kalos"}) {
    const SyntheticModel m = shipped_model(cluster);
    cases.push_back(m.type);
    for (const Discrete& d : m.gpu_sizes)
      if (!d.empty()) cases.push_back(d);
  }
  Rng rng(11);
  for (const Discrete& d : cases) {
    std::size_t mismatches = 0;
    for (int i = 0; i < 20000; ++i) {
      const double u = rng.uniform();
      mismatches += d.index_at(u) != reference(d, u);
    }
    for (const double c : d.cumulative())
      for (const double u : {below(c), c, above(c)})
        if (u < 1.0) mismatches += d.index_at(u) != reference(d, u);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("ArrivalThinning keeps a candidate exactly when it lies under the arrival shape", "[synthetic]") {
  std::vector<ArrivalModel> models;
  for (const std::string cluster : {"seren", "kalos"}) models.push_back(shipped_model(cluster).arrivals);
  ArrivalModel odd;  // a half-hour offset (days turn inside an hour), a steep cycle, busy weekends
  odd.utc_offset_hours = 5.5;
  odd.daily_amplitude = 0.99;
  odd.peak_hour = 23.75;
  odd.weekend_factor = 3;
  models.push_back(odd);
  odd.utc_offset_hours = -3.25;
  odd.weekend_factor = 0.01;
  models.push_back(odd);
  Rng rng(5);
  for (const ArrivalModel& a : models) {
    const ArrivalThinning thinning(a);
    const double shape_max = thinning.ceiling();
    std::size_t mismatches = 0, kept = 0;
    for (int i = 0; i < 300000; ++i) {
      // Seconds over three weeks around 2023, before 1970 and 2,000 years on; heights at random
      // and on the curve.
      const std::int64_t start = i % 3 == 0 ? 1677600000 : i % 3 == 1 ? -1209600 : INT64_C(63000000000);
      const auto second = static_cast<std::int64_t>(rng.uniform() * 3 * 604800) + start;
      const double shape = arrival_shape(a, Time::seconds(second));
      for (const double x : {rng.uniform() * shape_max, shape, below(shape), above(shape)}) {
        const bool keep = thinning.keeps(x, second);
        mismatches += keep != (x < shape);
        kept += keep;
      }
    }
    INFO("utc offset " << a.utc_offset_hours);
    CHECK(mismatches == 0);
    CHECK(kept > 0);
    CHECK(shape_max >= arrival_shape(a, Time::seconds(1677600000)));
  }
}

TEST_CASE("StateDraw gives the state the odds give, at random and at both thresholds", "[synthetic]") {
  std::vector<SyntheticModel> models = {shipped_model("seren"), shipped_model("kalos")};
  SyntheticModel steep = models.front();  // odds that turn within a slice of GPU-seconds
  steep.cancel_logit = {-1, 12};
  steep.fail_logit = {2, -9};
  models.push_back(steep);
  // So steep that the rounding of log2 alone moves the odds across 1e-9: the bounds must come
  // from the same computation as the odds, not from a margin.
  steep.cancel_logit = {44663893.152931169, 2.91929e6};
  steep.fail_logit = {0, 0};
  models.push_back(steep);
  {
    const StateDraw draw(steep);
    const double pc = state_odds(steep, 1, 26).first;
    CHECK(draw.state(pc, 1, 26) == state_at(steep, pc, 1, 26));
  }
  Rng rng(13);
  std::size_t steep_mismatches = 0;
  for (int i = 0; i < 300; ++i) {  // steep odds that turn right at a job's GPU-seconds
    // Half the runs at an end of a slice (2^e (1 + k/16) seconds), where a bound computed
    // otherwise than the odds would differ from them by rounding.
    const auto run = static_cast<std::int64_t>(
        i % 2 ? std::ldexp(1 + std::floor(rng.uniform() * 16) / 16, 4 + static_cast<int>(rng.uniform() * 26))
              : 2 + rng.uniform() * 1e6);
    const double x = std::log2(static_cast<double>(run)) - 20, b = 1e5 + rng.uniform() * 1e8;
    steep.cancel_logit = {-b * x, b};
    steep.fail_logit = {b * x, -b};
    const StateDraw draw(steep);
    const auto [pc, pf] = state_odds(steep, 1, run);
    for (const double u : {pc, below(pc), above(pc), pc + pf, below(pc + pf), above(pc + pf), rng.uniform()})
      steep_mismatches += draw.state(u, 1, run) != state_at(steep, u, 1, run);
  }
  CHECK(steep_mismatches == 0);
  for (std::size_t n = 0; n < models.size(); ++n) {
    const SyntheticModel& m = models[n];
    const StateDraw draw(m);
    std::size_t mismatches = 0;
    std::array<std::size_t, 3> seen{};
    for (int i = 0; i < 100000; ++i) {
      const auto gpus = static_cast<std::int32_t>(std::exp2(std::floor(rng.uniform() * 12)));
      const auto run = static_cast<std::int64_t>(std::exp2(rng.uniform() * 24)) - 1;  // 0 included
      const auto [pc, pf] = state_odds(m, gpus, run);
      for (const double u : {rng.uniform(), pc, below(pc), above(pc), pc + pf, below(pc + pf), above(pc + pf)}) {
        const JobState s = draw.state(u, gpus, run);
        mismatches += s != state_at(m, u, gpus, run);
        ++seen[s == JobState::Cancelled ? 0 : s == JobState::Failed ? 1 : 2];
      }
    }
    CHECK(mismatches == 0);
    if (n < 3) CHECK(std::min({seen[0], seen[1], seen[2]}) > 0);
  }
}

}  // namespace acme::test
