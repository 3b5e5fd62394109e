// Power and energy, a model feature (sim/feature.h) in one module: what the cluster's GPUs and
// nodes draw, the energy of each job, of idle GPUs, of node overhead and of each cause of waste,
// and a cap on the cluster's power that throttles every running job (sim/power.h has the model,
// its sources and the meter the outputs read). Off unless power.enabled.
//
// Hooks: held (a run holds its GPUs for its planned length, at its mix of held and running power;
// a recovery hold at held power; waste charged at held or running power), stepping (the meter
// closes an interval's row at the first step at or past its end: timeseries.csv reads it mid-run),
// stepped (the cluster's power after a step's events and pass: a new level, and under a cap a new
// clock, FeatureControl::set_clock, which retimes every running job), ended (the last interval
// closed), jobs_added (a fed run's meter grows). Its column of timeseries.csv is power_kw; it
// gives the other outputs the meter (power_meter(): jobs.csv's energy_kwh, the summaries' and
// wasted_by_cause.csv's energy) and checks that the jobs', idle GPUs' and nodes' energy add up to
// the integral of cluster power.
//
// A run's per-GPU running power is drawn per GPU keyed by (seed, the job's identity, GPU), so
// every policy, row order and thread count sees the same draws for the same job.
#pragma once

#include <cstdint>
#include <memory>

#include "io/params.h"
#include "sim/feature.h"
#include "sim/power.h"

namespace acme {

// Reads power.enabled, power.idle_w, power.held_w, power.job_w.p0 .. p100 (every 10), power.node_w,
// power.psu_loss, power.pue, power.cap_kw, power.min_clock and power.clock_step. Throws
// InputError for a value out of range, a quantile name that is not one of those, quantiles that
// fall, or a cap without the model.
PowerSettings read_power_settings(Params& params, std::uint64_t seed);

// The feature of `settings` (none unless enabled), its meter's rows `interval` long.
std::unique_ptr<Feature> power_feature(const PowerSettings& settings, Time interval);

}  // namespace acme
