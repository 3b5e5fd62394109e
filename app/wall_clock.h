// Wall-clock time for the commands' progress lines and timings, never for the model (whose time is
// sim/time.h). One definition for app.cpp, sweep.cpp and app_sweep.cpp, which a unity build
// (ACMESIM_UNITY in CMakeLists.txt) compiles in one file.
#pragma once

#include <chrono>

namespace acme {

using WallClock = std::chrono::steady_clock;

// Seconds from `t0` to now.
inline double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

}  // namespace acme
