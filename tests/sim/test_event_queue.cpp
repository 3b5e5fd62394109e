#include <catch2/catch.hpp>

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

}  // namespace acme
