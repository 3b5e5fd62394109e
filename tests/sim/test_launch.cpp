#include <catch2/catch.hpp>

#include "sim/launch.h"

namespace acme::test {

// The draws of sim/launch.h by hand: sigma 0 gives the median exactly; a job of at least
// large_min_gpus GPUs draws with large_sigma, the others with sigma; CPU jobs use their median.
TEST_CASE("Large jobs draw their launch latency with their own sigma", "[launch]") {
  LaunchModel m;
  m.gpu_median_s = 14;
  m.cpu_median_s = 9;
  m.sigma = 2;
  m.large_min_gpus = 256;
  m.large_sigma = 0;
  JobRequest small, large, cpu;
  small.gpu_num = 8;
  large.gpu_num = 256;
  cpu.gpu_num = 0;
  bool small_varies = false;
  for (JobId j = 0; j < 50; ++j) {
    CHECK(m.draw(j, 0, large) == Time::seconds(14));  // at the median: sigma 0
    small_varies = small_varies || m.draw(j, 0, small) != Time::seconds(14);
    CHECK(m.draw(j, 0, small) == m.draw(j, 0, small));  // keyed by (seed, the job's key, start)
  }
  CHECK(small_varies);
  m.sigma = 0;
  CHECK(m.draw(7, 0, cpu) == Time::seconds(9));
  large.gpu_num = 255;  // below large_min_gpus: the general sigma (now 0 too)
  CHECK(m.draw(7, 1, large) == Time::seconds(14));
  m.large_min_gpus = 0;  // off: large jobs draw like the others
  m.sigma = 2;
  large.gpu_num = 1024;
  small.gpu_num = 1024;
  CHECK(m.draw(3, 0, large) == m.draw(3, 0, small));
  bool large_varies = false;
  for (JobId j = 0; j < 50; ++j) large_varies = large_varies || m.draw(j, 0, large) != Time::seconds(14);
  CHECK(large_varies);
}

}  // namespace acme::test
