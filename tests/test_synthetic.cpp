#include <catch2/catch.hpp>

#include <cmath>

#include "harness.h"
#include "workloads/synthetic.h"

namespace acme::test {
namespace {

SyntheticModel seren() {
  return load_synthetic_model((source_dir() / "configs/workloads/seren.yaml").string());
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

}  // namespace acme::test
