// Reading the power model's keys (power.*) into PowerSettings (sim/power.h).
#pragma once

#include <cstdint>

#include "io/params.h"
#include "sim/power.h"

namespace acme {

// Reads power.enabled, power.idle_w, power.held_w, power.job_w.p0 .. p100 (every 10), power.node_w,
// power.psu_loss, power.pue, power.cap_kw, power.min_clock and power.clock_step. Throws
// InputError for a value out of range, a quantile name that is not one of those, quantiles that
// fall, or a cap without the model.
PowerSettings read_power_settings(Params& params, std::uint64_t seed);

}  // namespace acme
