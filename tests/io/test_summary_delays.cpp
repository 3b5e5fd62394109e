// The summary's queuing-delay statistics, worked out by hand: means and nearest-rank percentiles
// over delays counted per second, kept in 32 bits, and kept in 64 (io/metrics.cpp).
#include <catch2/catch.hpp>

#include <numeric>

#include "harness.h"
#include "io/metrics.h"

namespace acme::test {

TEST_CASE("Summary delays: nearest ranks across counted, 32-bit and 64-bit delays", "[summary]") {
  // Ten 1-GPU jobs submitted at 0, started these many seconds later, in no order (the summary
  // reads only submit and start). Counted below 65,536 s; kept in 32 bits up to 2^31 - 1; kept in
  // 64 after.
  const std::vector<std::int64_t> delays{2147483648LL, 70000, 5, 3000000000LL, 65535, 0, 2147483647, 100000, 1, 65536};
  std::vector<std::tuple<int, int, int, int>> jobs(delays.size(), {1, 1, 0, 60});
  const Workload w = trace_of(jobs, "SFT");
  std::vector<JobOutcome> outcomes(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    outcomes[i].start = w.requests[i].submit + Time::seconds(delays[i]);
    outcomes[i].end = *outcomes[i].start + Time::seconds(60);
  }
  const ClusterSpec cluster;
  const RunSummary s = summarize(RunRecord{w, cluster, ReplayMode::Policy, outcomes, {}, {}, {}});
  const Stats& all = s.all;
  CHECK(all.started == 10);
  CHECK(all.queue_mean_s == Approx(static_cast<double>(std::accumulate(delays.begin(), delays.end(), std::int64_t{0})) / 10));
  // Rank ceil(10 x p / 100): the 5th (p50), 9th (p90), 10th (p99, max) smallest.
  CHECK(all.queue_p50_s == 65536);
  CHECK(all.queue_p90_s == 2147483648LL);
  CHECK(all.queue_p99_s == 3000000000LL);
  CHECK(all.queue_max_s == 3000000000LL);
  // Without a launch latency the wait is the whole delay.
  CHECK(all.wait_p50_s == 65536);
  CHECK(all.wait_p90_s == 2147483648LL);
  CHECK(all.wait_p99_s == 3000000000LL);

  // Only the jobs of delays in [from, to] started: the 32-bit ones alone, then the counted ones.
  const auto summary_of = [&](std::int64_t from, std::int64_t to) {
    std::vector<JobOutcome> some(w.size());
    for (std::size_t i = 0; i < w.size(); ++i)
      if (delays[i] >= from && delays[i] <= to) some[i] = outcomes[i];
    return summarize(RunRecord{w, cluster, ReplayMode::Policy, some, {}, {}, {}}).all;
  };
  const Stats kept = summary_of(65536, 2147483647);  // 65,536, 70,000, 100,000, 2^31 - 1
  CHECK(kept.started == 4);
  CHECK(kept.queue_p50_s == 70000);
  CHECK(kept.queue_max_s == 2147483647LL);
  const Stats counted = summary_of(0, 65535);  // 0, 1, 5, 65,535
  CHECK(counted.queue_p50_s == 1);
  CHECK(counted.queue_p90_s == 65535);
}

}  // namespace acme::test
