// The summary's queuing-delay statistics, worked out by hand: means and nearest-rank percentiles
// over delays counted per second, bucketed, and kept (io/delays.h, io/metrics.cpp).
#include <catch2/catch.hpp>

#include <array>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include "harness.h"
#include "io/delays.h"
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

TEST_CASE("Delays: a percentile in a bucket asks for its delays, then is exact", "[summary]") {
  // Three groups of delays from every range: negative, counted per second, bucketed, past 2^31.
  std::mt19937_64 rng(7);
  const std::vector<std::pair<std::int64_t, std::int64_t>> ranges{
      {-50, -1}, {0, 20000}, {20000, 400000}, {16384, 16384 * 3}, {2147483000LL, 2147483700LL}};
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::vector<std::int64_t>> given(3);
    std::vector<std::int64_t> every;
    for (auto& g : given) {
      const std::size_t n = rng() % 300;
      for (std::size_t i = 0; i < n; ++i) {
        const auto [lo, hi] = ranges[rng() % ranges.size()];
        g.push_back(lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1)));
        every.push_back(g.back());
      }
    }
    std::array<Delays, 3> delays;
    for (std::size_t k = 0; k < 3; ++k)
      for (const std::int64_t d : given[k]) delays[k].add(d);
    const std::vector<Delays*> groups{&delays[0], &delays[1], &delays[2]};
    for (const int pct : {1, 10, 50, 90, 99, 100}) {
      std::vector<std::int64_t> sorted = every;
      std::optional<std::int64_t> got = Delays::nearest_rank(groups, pct);
      if (!got) {  // given again, as the summary does
        for (std::size_t k = 0; k < 3; ++k) {
          CHECK(delays[k].wants(16384, 2147483647));
          for (const std::int64_t d : given[k]) delays[k].collect(d);
          delays[k].collected();
          CHECK_FALSE(delays[k].wants(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()));
        }
        got = Delays::nearest_rank(groups, pct);
      }
      REQUIRE(got);
      CHECK(*got == nearest_rank(sorted, pct));
    }
  }
}

// A launch latency of job i of i x 7 mod 300 s (at most 299 s), for the summary's wait.
class EveryJobsLaunch final : public FirstLaunchSource {
 public:
  Time first(JobId job, std::uint64_t, const JobRequest&) const override { return Time::seconds(job * 7 % 300); }
  Time most() const override { return Time::seconds(299); }
};

// The Eval jobs' statistics of a summary of jobs waiting `delays` (job i launching as
// EveryJobsLaunch says), and the waits by hand.
std::pair<Stats, std::vector<std::int64_t>> eval_waits(const std::vector<std::int64_t>& delays) {
  const Workload w = trace_of(std::vector<std::tuple<int, int, int, int>>(delays.size(), {1, 1, 0, 60}), "Eval");
  std::vector<JobOutcome> outcomes(w.size());
  std::vector<std::int64_t> waits;
  for (std::size_t i = 0; i < w.size(); ++i) {
    outcomes[i].start = w.requests[i].submit + Time::seconds(delays[i]);
    outcomes[i].end = *outcomes[i].start + Time::seconds(60);
    waits.push_back(delays[i] - std::min<std::int64_t>(static_cast<std::int64_t>(i * 7 % 300), delays[i]));
  }
  const ClusterSpec cluster;
  const EveryJobsLaunch launches;
  RunRecord run{w, cluster, ReplayMode::Policy, outcomes, {}, {}, {}};
  run.launches = FirstLaunches{&launches};
  return {summarize(run).by_type[static_cast<std::size_t>(JobType::Eval)], waits};
}

TEST_CASE("Summary delays: waits in buckets, worked out from the launches again", "[summary]") {
  // 400 jobs waiting 0 to 12 days: most percentiles fall in buckets.
  std::vector<std::int64_t> queued;
  for (std::int64_t i = 0; i < 400; ++i) queued.push_back(i * i * 6700 % 1000000);
  auto [s, waits] = eval_waits(queued);
  CHECK(s.queue_p50_s == nearest_rank(queued, 50));
  CHECK(s.queue_p90_s == nearest_rank(queued, 90));
  CHECK(s.queue_p99_s == nearest_rank(queued, 99));
  CHECK(s.wait_p50_s == nearest_rank(waits, 50));
  CHECK(s.wait_p90_s == nearest_rank(waits, 90));
  CHECK(s.wait_p99_s == nearest_rank(waits, 99));
  CHECK(s.launch_max_s == 299);
  // Five jobs waiting 5 s past a bucket's first second (3 x 2^14 s), launching 0, 7, 14, 21 and
  // 28 s: the median wait (49,143 s) falls in the bucket below their delays'.
  const std::vector<std::int64_t> edge(5, 3 * 16384 + 5);
  std::tie(s, waits) = eval_waits(edge);
  CHECK(nearest_rank(waits, 50) == 49143);
  CHECK(s.wait_p50_s == 49143);
  CHECK(s.wait_p99_s == 49157);
}

}  // namespace acme::test
