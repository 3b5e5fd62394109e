// Reading the launch latency's keys (launch.*) into a LaunchModel (sim/launch.h).
#pragma once

#include "io/params.h"
#include "sim/launch.h"

namespace acme {

// Reads launch.gpu_median_s, launch.cpu_median_s, launch.sigma and launch.seed, with defaults.
LaunchModel read_launch_model(Params& params);

}  // namespace acme
