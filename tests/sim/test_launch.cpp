#include <catch2/catch.hpp>

#include <algorithm>
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

}  // namespace acme::test
