#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"

namespace acme {

TEST_CASE("Events pop by time, then kind (ends before withdrawals), then insertion order", "[events]") {
  EventQueue q;
  q.push(Time::seconds(5), EventKind::QueueTimeout, 1);
  q.push(Time::seconds(5), EventKind::JobEnd, 2);
  q.push(Time::seconds(3), EventKind::QueueTimeout, 3);
  q.push(Time::seconds(5), EventKind::JobEnd, 4);
  q.push(Time::seconds(5), EventKind::QueueTimeout, 5);
  std::vector<JobId> order;
  while (!q.empty()) order.push_back(q.pop().job);
  CHECK(order == std::vector<JobId>{3, 2, 4, 1, 5});
}

TEST_CASE("Pushes and pops in any mix give the order of a sort by (time, kind, insertion)", "[events]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    EventQueue q;
    std::vector<std::tuple<std::int64_t, int, JobId>> pending;  // (time, kind, insertion = job)
    JobId pushed = 0;
    const int times = 1 + static_cast<int>(rng() % 20);  // few distinct times: many ties
    for (int op = 0; op < 2000; ++op) {
      if (pending.empty() || rng() % 3 != 0) {
        const auto t = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(times));
        const auto kind = static_cast<int>(rng() % 9);
        q.push(Time::seconds(t), static_cast<EventKind>(kind), pushed);
        pending.emplace_back(t, kind, pushed++);
        continue;
      }
      const auto first = std::min_element(pending.begin(), pending.end());
      REQUIRE(q.size() == pending.size());
      const Event e = q.pop();
      REQUIRE(e.job == std::get<2>(*first));
      REQUIRE(e.time == Time::seconds(std::get<0>(*first)));
      REQUIRE(static_cast<int>(e.kind) == std::get<1>(*first));
      pending.erase(first);
    }
  }
}

}  // namespace acme
