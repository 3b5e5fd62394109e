#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "harness.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"
#include "workloads/synthetic_draws.h"

namespace acme::test {
namespace {

SyntheticModel seren() { return shipped_model("seren"); }

// Kalos over the 92 days of its published window.
Workload kalos_window(const SyntheticModel& m, std::uint64_t seed) {
  return generate_workload(m, *parse_timestamp("2023-05-17"), *parse_timestamp("2023-08-17"), 1.0, seed, 8);
}

// The largest of f(seed) over seeds 1-5.
template <class F>
double worst_of_seeds(F f) {
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) worst = std::max(worst, f(seed));
  return worst;
}

}  // namespace

TEST_CASE("A seed names the same synthetic jobs; another seed, others", "[synthetic]") {
  const SyntheticModel m = seren();
  const Time from = *parse_timestamp("2023-03-01"), to = *parse_timestamp("2023-03-02");
  const Workload a = generate_workload(m, from, to, 1.0, 9, 8), b = generate_workload(m, from, to, 1.0, 9, 8);
  const Workload c = generate_workload(m, from, to, 1.0, 10, 8);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a.requests[i].submit == b.requests[i].submit);
    CHECK(a.requests[i].gpu_num == b.requests[i].gpu_num);
    CHECK(a.profiles[i].run == b.profiles[i].run);
  }
  CHECK((a.size() != c.size() || a.requests[0].submit != c.requests[0].submit));
}

TEST_CASE("Synthetic jobs are named 1, 2, ... in submit order, with one request and one profile each", "[synthetic]") {
  // Five weeks, handed out in parts (workloads/synthetic_stream.h): the names run on across them.
  const Workload w = generate_workload(seren(), *parse_timestamp("2023-03-01"), *parse_timestamp("2023-04-05"), 1.0, 3, 8);
  REQUIRE(w.size() > 100000);
  REQUIRE(w.profiles.size() == w.size());
  REQUIRE(w.names.size() == w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    REQUIRE(w.names[static_cast<std::uint32_t>(i)] == std::to_string(i + 1));
    if (i > 0) REQUIRE(w.requests[i - 1].submit <= w.requests[i].submit);
    REQUIRE(w.profiles[i].recorded_start() == w.requests[i].submit);
    REQUIRE(w.requests[i].node_num == (w.requests[i].gpu_num > 0 ? (w.requests[i].gpu_num + 7) / 8 : 1));
  }
}

TEST_CASE("Synthetic jobs arrive at the published rate, scaled by load, inside the window", "[synthetic]") {
  // Four whole weeks, so the weekly cycle averages out; sessions make counts burstier than Poisson
  // (about 0.7% standard deviation here), hence 2%.
  const SyntheticModel m = seren();
  const Time from = *parse_timestamp("2023-03-01"), to = *parse_timestamp("2023-03-29");
  const double expected = m.jobs_per_day * 28;
  const Workload w = generate_workload(m, from, to, 1.0, 1, 8);
  CHECK(std::abs(static_cast<double>(w.size()) - expected) < expected * 0.02);
  const Workload twice = generate_workload(m, from, to, 2.0, 1, 8);
  CHECK(std::abs(static_cast<double>(twice.size()) - 2 * expected) < 2 * expected * 0.02);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    CHECK(r.submit >= from);
    CHECK(r.submit < to);
    CHECK(r.node_num == std::max(1, (r.gpu_num + 7) / 8));
    if (i > 0) CHECK(w.requests[i - 1].submit <= r.submit);
  }
}

TEST_CASE("Sampled run times follow the model's CDF at every 2^k point", "[synthetic]") {
  const std::vector<std::pair<double, double>> points = {{1, 2}, {2, 10}, {4, 10}, {8, 40}, {16, 90}, {32, 100}};
  const LogCdf cdf(points);
  Rng rng(42);
  std::vector<std::int64_t> draws;
  for (int i = 0; i < 200000; ++i) draws.push_back(cdf.sample_seconds(rng));
  for (const auto& [x, pct] : points) {
    std::size_t below = 0;
    for (auto d : draws) below += static_cast<double>(d) <= x;
    INFO("x = " << x);
    CHECK(std::abs(100.0 * static_cast<double>(below) / static_cast<double>(draws.size()) - pct) < 1.0);
  }
}

TEST_CASE("A model file with an unknown key or a bad CDF is refused with its line", "[synthetic]") {
  const auto dir = temp_dir("model");
  {
    std::ofstream f(dir / "m.yaml");
    f << "jobs_per_day: 10\nduration_cdf:\n  Eval: [[2, 5], [1, 10]]\n";
  }
  CHECK_THROWS_WITH(load_synthetic_model((dir / "m.yaml").string()),
                    Catch::Contains("m.yaml:3: duration_cdf.Eval: CDF points must have increasing seconds"));
}

TEST_CASE("The heaviest jobs' states give the states' GPU-time shares their expectation", "[synthetic]") {
  // Kalos over its 92 days: half the GPU-time is a few dozen jobs that run for days. The GPU-time
  // share of each state is compared with its expectation under the model's own probabilities
  // (state_odds over every GPU job of the sample), seeds 1-5.
  SyntheticModel m = shipped_model("kalos");
  REQUIRE(m.state_balance_gpu_time_pct == 80);
  auto worst_gap = [&](std::uint64_t seed) {
    const Workload w = kalos_window(m, seed);
    double total = 0, got[3] = {}, expected[3] = {};
    for (std::size_t i = 0; i < w.size(); ++i) {
      const auto gpus = w.requests[i].gpu_num;
      if (gpus == 0) continue;
      const double g = static_cast<double>(gpus) * static_cast<double>(w.profiles[i].run.sec());
      const auto [pc, pf] = state_odds(m, gpus, w.profiles[i].run.sec());
      expected[0] += pc * g, expected[1] += pf * g, expected[2] += (1 - pc - pf) * g;
      const JobState s = w.profiles[i].final_state;
      got[s == JobState::Cancelled ? 0 : s == JobState::Failed ? 1 : 2] += g;
      total += g;
    }
    double worst = 0;
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(got[k] - expected[k]) / total * 100);
    return worst;
  };
  const double balanced = worst_of_seeds(worst_gap);
  m.state_balance_gpu_time_pct = 0;  // every job draws its state on its own
  const double alone = worst_of_seeds(worst_gap);
  CHECK(balanced < 3.0);  // 1.4 measured: the other 20% of the GPU-time draws job by job
  CHECK(alone > 5.0);     // 6.5 measured (19.3 before the GPU-time balance)
}

TEST_CASE("Each type's GPU-time is its expectation given the number of jobs drawn", "[synthetic]") {
  // Kalos over its 92 days, seeds 1-5: a type's GPU-time hangs on its few heaviest jobs (Debug:
  // 540 jobs). Balanced, every GPU type with at least 100 jobs gets jobs x its share of the type
  // mix x expected_gpu_seconds (within 0.003% measured), but where the factor reaches its bound
  // (1/2, 2) or the heaviest jobs already run max_run_s (worst 5.4% measured: Other, 244 jobs,
  // seed 2; 3.0% with the run-time fit before 2026-12-06); drawn alone, it is off by up to 25%
  // (Other, seed 2), Debug by up to 18%.
  SyntheticModel m = shipped_model("kalos");
  REQUIRE(m.gpu_time_balance_pct == 50);
  auto worst_gap = [&](std::uint64_t seed) {
    const Workload w = kalos_window(m, seed);
    std::array<double, kJobTypeCount> got{}, jobs{};
    for (std::size_t i = 0; i < w.size(); ++i) {
      const auto t = static_cast<std::size_t>(w.requests[i].type);
      got[t] += static_cast<double>(w.requests[i].gpu_num) * static_cast<double>(w.profiles[i].run.sec());
      jobs[t] += w.requests[i].gpu_num > 0;
    }
    double worst = 0;
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      if (jobs[t] < kGpuTimeBalanceMinJobs) continue;
      const double expected = expected_gpu_seconds(m, static_cast<JobType>(t)) * static_cast<double>(w.size()) *
                              m.type.probability(static_cast<double>(t));
      worst = std::max(worst, std::abs(got[t] / expected - 1));
    }
    return worst;
  };
  const double balanced = worst_of_seeds(worst_gap);
  m.gpu_time_balance_pct = 0;
  const double alone = worst_of_seeds(worst_gap);
  CHECK(balanced < 0.06);
  CHECK(alone > 0.15);
}

TEST_CASE("expected_gpu_seconds is the mean GPU-seconds of a large sample", "[synthetic]") {
  // Six months of Seren without the balance, seeds 1-3: 877,000 Eval jobs (their means, one
  // seed at a time, are within 0.6% of it; SFT's, 67,000 jobs a seed, vary by 5% with the tail).
  SyntheticModel m = seren();
  m.gpu_time_balance_pct = 0;
  double sum = 0, n = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Workload w = generate_workload(m, *parse_timestamp("2023-03-01"), *parse_timestamp("2023-09-01"), 1.0, seed, 8);
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w.requests[i].type == JobType::Eval) {
        sum += static_cast<double>(w.requests[i].gpu_num) * static_cast<double>(w.profiles[i].run.sec());
        ++n;
      }
  }
  CHECK(sum / n == Approx(expected_gpu_seconds(m, JobType::Eval)).epsilon(0.01));
}

}  // namespace acme::test

