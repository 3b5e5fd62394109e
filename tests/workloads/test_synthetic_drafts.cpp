// The generator's bulk steps answer what their plain versions answer: the order by submit time
// (against a stable sort, on sessions, crowded seconds and a window past 2^32 s), the balances
// whatever the pool of heavy jobs holds (all, the default, nothing), the job names written in
// one go, and the block-drawn uniforms (against the Rng they come from).
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "harness.h"
#include "workloads/synthetic_drafts.h"

namespace acme::test {
namespace {

std::vector<std::uint32_t> plain_order(const std::vector<Draft>& drafts) {
  std::vector<std::uint32_t> order(drafts.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return drafts[x].submit < drafts[y].submit; });
  return order;
}

std::vector<std::uint32_t> fast_order(const std::vector<Draft>& drafts, std::int64_t begin, std::int64_t end) {
  std::vector<std::uint32_t> all(drafts.size());
  std::iota(all.begin(), all.end(), 0u);
  return by_submit(drafts, std::move(all), begin, end);
}

// Sessions of a few jobs a minute or so apart, starting every `gap` s on average, as drawn.
std::vector<Draft> sessions(Rng& rng, std::int64_t begin, std::int64_t end, double gap) {
  std::vector<Draft> drafts;
  for (double t = static_cast<double>(begin) + rng.exponential(gap); t < static_cast<double>(end); t += rng.exponential(gap))
    for (double tj = t; tj < static_cast<double>(end) && drafts.size() < 200000; tj += rng.exponential(90)) {
      Draft d{};
      d.submit = static_cast<std::int64_t>(tj);
      drafts.push_back(d);
      if (rng.uniform() < 1.0 / 3) break;
    }
  return drafts;
}

// GPU drafts of every GPU type with heavy-tailed sizes and run times, all COMPLETED; evaluations
// without the tail, so that their heaviest jobs (rescaled) are light beside the others.
std::vector<Draft> gpu_drafts(Rng& rng, std::size_t n) {
  constexpr JobType kTypes[] = {JobType::Eval, JobType::Pretrain, JobType::SFT, JobType::MLLM, JobType::Debug, JobType::Other};
  std::vector<Draft> drafts(n);
  for (Draft& d : drafts) {
    d.type = kTypes[static_cast<std::size_t>(rng.uniform() * 6)];
    const bool eval = d.type == JobType::Eval;
    d.gpus = 1 << static_cast<int>(rng.uniform() * rng.uniform() * (eval ? 4 : 11));
    d.run = 1 + static_cast<std::int64_t>(rng.exponential(600) * (!eval && rng.uniform() < 0.02 ? 500 : 1));
    d.state = JobState::Completed;
  }
  return drafts;
}

}  // namespace

TEST_CASE("by_submit orders drafts as a stable sort by submit time does", "[synthetic]") {
  Rng rng(7);
  const std::int64_t begin = 1677628800, month = 31 * 86400;
  SECTION("sessions over a month, and with a job moved hours on here and there") {
    std::vector<Draft> drafts = sessions(rng, begin, begin + month, 40);
    REQUIRE(drafts.size() > 50000);
    CHECK(fast_order(drafts, begin, begin + month) == plain_order(drafts));
    for (Draft& d : drafts)
      if (rng.uniform() < 0.2) d.submit = std::min(begin + month - 1, d.submit + static_cast<std::int64_t>(rng.uniform() * 20000));
    CHECK(fast_order(drafts, begin, begin + month) == plain_order(drafts));
  }
  SECTION("crowded seconds in reverse order (std::sort finishes past the budget of moves)") {
    std::vector<Draft> drafts(30000);
    for (std::size_t i = 0; i < drafts.size(); ++i) drafts[i].submit = begin + static_cast<std::int64_t>((drafts.size() - i) / 1000);
    CHECK(fast_order(drafts, begin, begin + month) == plain_order(drafts));
  }
  SECTION("a window past 2^32 s, one draft, none") {
    const std::int64_t end = begin + (INT64_C(1) << 33);
    std::vector<Draft> drafts(5000);
    for (Draft& d : drafts) d.submit = begin + static_cast<std::int64_t>(rng.uniform() * static_cast<double>(end - begin));
    CHECK(fast_order(drafts, begin, end) == plain_order(drafts));
    drafts.resize(1);
    CHECK(fast_order(drafts, begin, end) == plain_order(drafts));
    drafts[0].submit = begin;
    CHECK(fast_order(drafts, begin, begin + 1) == plain_order(drafts));
    CHECK(fast_order({}, begin, begin + month).empty());
  }
}

TEST_CASE("The balances answer the same whatever the pool of heavy jobs holds", "[synthetic]") {
  // The pool only spares the balances a pass over every draft: pooling every GPU job, the
  // default quarter of the expected GPU-seconds or nothing (every pass over all drafts) must
  // give the same run times and states.
  for (const char* cluster : {"seren", "kalos"}) {
    const SyntheticModel m = shipped_model(cluster);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      Rng rng(seed);
      const std::vector<Draft> drawn = gpu_drafts(rng, 20000);
      std::vector<std::vector<Draft>> results;
      for (const double share : {0.0, GpuTimeTally::kPoolShare, std::numeric_limits<double>::infinity()}) {
        std::vector<Draft> drafts = drawn;
        GpuTimeTally tally(m, share);
        for (std::uint32_t i = 0; i < drafts.size(); ++i) tally.add(i, drafts[i].type, gpu_seconds(drafts[i]));
        if (share == 0) CHECK(tally.pool().size() == drafts.size());
        if (share > 1) CHECK(tally.pool().empty());
        Rng states_rng(seed + 100);
        UniformStream uniforms(states_rng);
        BalanceCarry carry;
        const double total = balance_gpu_time(drafts, 0, m, tally, carry);
        double summed = 0;
        for (const Draft& d : drafts) summed += gpu_seconds(d);
        CHECK(total == summed);
        // The pool now holds each rescaled job, once: the state balance must see each job once.
        std::vector<std::uint32_t> pool = tally.pool();
        std::sort(pool.begin(), pool.end());
        CHECK(std::adjacent_find(pool.begin(), pool.end()) == pool.end());
        for (std::uint32_t i = 0; i < drafts.size(); ++i)
          if (drafts[i].run != drawn[i].run) CHECK(std::binary_search(pool.begin(), pool.end(), i));
        balance_states(drafts, 0, m, tally, total, uniforms, carry);
        results.push_back(std::move(drafts));
      }
      std::size_t rescaled = 0, restated = 0;
      for (std::size_t i = 0; i < drawn.size(); ++i) {
        rescaled += results[0][i].run != drawn[i].run;
        restated += results[0][i].state != drawn[i].state;
        for (std::size_t r = 1; r < results.size(); ++r) {
          CHECK(results[r][i].run == results[0][i].run);
          CHECK(results[r][i].state == results[0][i].state);
        }
      }
      CHECK(rescaled > 0);  // both balances did something to compare
      CHECK(restated > 0);
    }
  }
}

TEST_CASE("StringTable::add_numbers writes the decimal names add() would", "[synthetic]") {
  for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::size_t>>{
           {1, 0}, {1, 1}, {0, 12}, {7, 100}, {99999990, 20}, {1234567890123456789ULL, 3}}) {
    StringTable fast, plain;
    fast.add("before");
    plain.add("before");
    fast.add_numbers(first, count);
    for (std::size_t i = 0; i < count; ++i) plain.add(std::to_string(first + i));
    fast.add("after");
    plain.add("after");
    REQUIRE(fast.size() == plain.size());
    for (std::uint32_t i = 0; i < plain.size(); ++i) CHECK(fast[i] == plain[i]);
  }
}

TEST_CASE("UniformStream draws the uniforms and exponentials of its Rng, in order", "[synthetic]") {
  Rng plain(42), source(42);
  UniformStream stream(source);
  for (int i = 0; i < 1000; ++i) {  // across several blocks
    CHECK(stream.uniform() == plain.uniform());
    CHECK(stream.exponential(90) == plain.exponential(90));
  }
}

}  // namespace acme::test
