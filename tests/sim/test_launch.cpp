#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "features/launch.h"

namespace acme::test {

// The draws of features/launch.h by hand: sigma 0 gives the median exactly; CPU jobs use their own
// median and floor; the same (job, start) gives the same draw.
TEST_CASE("Launch latency: the median of each kind, keyed draws", "[launch]") {
  LaunchModel m;
  m.gpu_median_s = 14;
  m.cpu_median_s = 9;
  m.gpu_floor_s = 4;
  m.cpu_floor_s = 3;
  JobRequest gpu, cpu;
  gpu.gpu_num = 8;
  cpu.gpu_num = 0;
  CHECK(m.draw(7, 0, gpu) == Time::seconds(14));  // sigma 0: the median
  CHECK(m.draw(7, 0, cpu) == Time::seconds(9));
  m.sigma = 2;
  bool varies = false;
  for (JobId j = 0; j < 50; ++j) {
    varies = varies || m.draw(j, 0, gpu) != Time::seconds(14);
    CHECK(m.draw(j, 0, gpu) == m.draw(j, 0, gpu));  // keyed by (seed, job, start)
  }
  CHECK(varies);
  CHECK(m.draw(3, 0, gpu) != m.draw(3, 1, gpu));  // a restart draws anew (these two differ)
}

// A type's own median and floor (Kalos's pretraining starts later, its Other jobs sooner): sigma 0
// gives each type's median; the types not named take the GPU job's; a CPU job its own.
TEST_CASE("Launch latency: a GPU job type's own median and floor", "[launch]") {
  LaunchModel m;
  m.gpu_median_s = 14;
  m.cpu_median_s = 9;
  m.type_median_s[static_cast<std::size_t>(JobType::Other)] = 11;
  m.type_floor_s[static_cast<std::size_t>(JobType::Pretrain)] = 20;  // above the median: the median
  JobRequest r;
  r.gpu_num = 8;
  r.type = JobType::Other;
  CHECK(m.draw(1, 0, r) == Time::seconds(11));
  r.type = JobType::Eval;
  CHECK(m.draw(1, 0, r) == Time::seconds(14));
  r.type = JobType::Pretrain;
  CHECK(m.draw(1, 0, r) == Time::seconds(14));
  m.sigma = 1;  // the floor holds every draw up: at most the median
  for (JobId j = 0; j < 100; ++j) CHECK(m.draw(j, 0, r) == Time::seconds(14));
  r.type = JobType::Other;
  r.gpu_num = 0;  // a CPU-only job of a GPU type takes the CPU median
  m.sigma = 0;
  CHECK(m.draw(1, 0, r) == Time::seconds(9));
  // Only a type's median on: the model is on.
  LaunchModel only;
  only.type_median_s[static_cast<std::size_t>(JobType::Eval)] = 3;
  CHECK(only.enabled());
  only.on = false;  // launch.enabled: false
  CHECK_FALSE(only.enabled());
  CHECK_FALSE(LaunchModel{}.enabled());
}

// A floor plus a bounded spread: over a million draws of a wide spread (sigma 2.25, the old
// Kalos fit that reached a day), none is below the floor or past max_s, and the median holds.
TEST_CASE("Launch latency never exceeds its maximum nor falls below its floor", "[launch]") {
  LaunchModel m;
  m.gpu_median_s = 14;
  m.gpu_floor_s = 5;
  m.sigma = 2.25;
  m.max_s = 300;
  JobRequest r;
  r.gpu_num = 1;
  std::vector<std::int64_t> drawn;
  drawn.reserve(1'000'000);
  for (JobId j = 0; j < 1'000'000; ++j) drawn.push_back(m.draw(j, 0, r).sec());
  CHECK(*std::min_element(drawn.begin(), drawn.end()) >= 5);
  CHECK(*std::max_element(drawn.begin(), drawn.end()) <= 300);
  std::nth_element(drawn.begin(), drawn.begin() + 500'000, drawn.end());
  // Cutting the spread at max_s moves the median a little below 14 (about 13).
  CHECK(drawn[500'000] >= 12);
  CHECK(drawn[500'000] <= 14);
}

// A job starts when its slowest node is ready: with sigma 0 a slow start waits the base draw plus
// slow_median_s exactly, one of n nodes slow with probability 1 - (1 - share)^n (a 1-node job
// share, a 64-node job about 1 - 0.9^64 here), the other starts keep their base draw (the slow
// prologs draw from a generator of their own), and no sum passes max_s.
TEST_CASE("Launch latency: a job waits for its slowest node", "[launch]") {
  LaunchModel m;
  m.gpu_median_s = 2;
  m.sigma = 1;
  m.max_s = 300;
  LaunchModel slow = m;
  slow.node_slow_share = 0.1;
  slow.slow_median_s = 40;
  JobRequest one, many;
  one.gpu_num = 8;
  many.gpu_num = 512;
  many.node_num = 64;
  int slow_one = 0, slow_many = 0;
  for (JobId j = 0; j < 10'000; ++j) {
    const std::int64_t base = m.draw(j, 0, one).sec(), with = slow.draw(j, 0, one).sec();
    CHECK((with == base || std::abs(with - base - 40) <= 1));  // rounded together
    slow_one += with != base;
    slow_many += slow.draw(j, 0, many) != m.draw(j, 0, many);
  }
  CHECK(slow_one > 900);  // 10% of 10,000, give or take sampling
  CHECK(slow_one < 1100);
  CHECK(slow_many > 9'900);  // 1 - 0.9^64: 99.9%
  slow.slow_sigma = 2;  // a wide slow prolog never takes the sum past max_s
  std::int64_t most = 0;
  for (JobId j = 0; j < 100'000; ++j) most = std::max(most, slow.draw(j, 0, many).sec());
  CHECK(most <= 300);
  CHECK(most >= 290);
}

}  // namespace acme::test
