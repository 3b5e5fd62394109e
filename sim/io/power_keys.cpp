#include "sim/io/power_keys.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sim/error.h"

namespace acme {
namespace {

// Seren's busy power per GPU, deciles, W: derived by scripts/fit_power.py from AcmeTrace's
// measured quantiles of Seren's GPU power, less its idle share (configs/kalos.yaml has Kalos's).
const std::vector<std::pair<std::string, double>> kSerenBusy = {
    {"p0", 74}, {"p10", 82}, {"p20", 91}, {"p30", 112}, {"p40", 165}, {"p50", 218},
    {"p60", 271}, {"p70", 321}, {"p80", 369}, {"p90", 403}, {"p100", 466}};

}  // namespace

PowerSettings read_power_settings(Params& params, std::uint64_t seed) {
  PowerSettings s;
  s.seed = seed;
  s.enabled = params.flag("enabled", false, "model power and energy: energy_kwh in jobs.csv, power_kw in "
                                            "timeseries.csv, energy columns in the summaries and waste");
  s.idle_w = params.number("idle_w", 60, 0, 5000, "power of a GPU with no job on an up node, W (AcmeTrace: 60 W)");
  s.held_w = params.number("held_w", 90, 0, 5000,
                           "power of a GPU a job holds without computing (launch, reload, checkpoint save, "
                           "evaluation idle share, recovery hold), W (an assumption)");
  const auto busy = params.table("busy_w", kSerenBusy, 0, 5000,
                                 "busy power of a job's GPUs: quantiles p0, p10, ..., p100 of the per-job draw, W "
                                 "(scripts/fit_power.py, from the cluster's measured GPU power)");
  s.busy_w.assign(kSerenBusy.size(), 0.0);
  for (const auto& [name, value] : busy) {
    std::size_t i = 0;
    while (i < kSerenBusy.size() && kSerenBusy[i].first != name) ++i;
    if (i == kSerenBusy.size())
      throw InputError("power.busy_w." + name + ": not a quantile (valid: p0, p10, ..., p100)");
    s.busy_w[i] = value;
  }
  for (std::size_t i = 1; i < s.busy_w.size(); ++i)
    if (s.busy_w[i] < s.busy_w[i - 1])
      throw InputError("power.busy_w." + kSerenBusy[i].first + ": quantiles must not fall (" +
                       std::to_string(std::lround(s.busy_w[i])) + " W after " + std::to_string(std::lround(s.busy_w[i - 1])) +
                       " W)");
  s.node_w = params.number("node_w", 940, 0, 1e6,
                           "power of an up GPU node besides its GPUs (CPUs, memory, NICs, fans), W (AcmeTrace: a "
                           "node's lowest draw, 1,421 W, less 8 idle GPUs)");
  s.psu_loss = params.number("psu_loss", 0.096, 0, 0.99, "share of input power lost in power supplies (AcmeTrace: 9.6%)");
  s.pue = params.number("pue", 1.0, 1.0, 10, "facility power over IT power (1: cooling and the rest not counted)");
  s.cap_kw = params.number("cap_kw", 0, 0, 1e9,
                           "cap on the cluster's facility power, kW (0: none); above it running jobs are throttled");
  s.min_clock = params.number("min_clock", 0.5, 0.05, 1,
                              "lowest clock fraction a cap may impose (progress x clock, GPU power above held_w x "
                              "clock^3)");
  if (s.cap_kw > 0 && !s.enabled)
    throw InputError("power.cap_kw: needs power.enabled: true (the cap acts on the modeled power)");
  return s;
}

}  // namespace acme
