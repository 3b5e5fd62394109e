#include "io/power_keys.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sim/error.h"

namespace acme {
namespace {

// Seren's running power per job GPU, deciles, W: scripts/fit_power.py, AcmeTrace's measured
// quantiles of Seren's GPU power (configs/kalos.yaml has Kalos's).
const std::vector<std::pair<std::string, double>> kSerenJob = {
    {"p0", 60}, {"p10", 63}, {"p20", 65}, {"p30", 72}, {"p40", 84}, {"p50", 96},
    {"p60", 174}, {"p70", 251}, {"p80", 325}, {"p90", 395}, {"p100", 466}};

}  // namespace

PowerSettings read_power_settings(Params& params, std::uint64_t seed) {
  PowerSettings s;
  s.seed = seed;
  s.enabled = params.flag("enabled", false, "model power and energy: energy_kwh in jobs.csv, power_kw in "
                                            "timeseries.csv, energy columns in the summaries and waste");
  s.idle_w = params.number("idle_w", 60, 0, 5000, "power of a GPU with no job on an up node, W (AcmeTrace: 60 W)");
  s.held_w = params.number("held_w", 66, 0, 5000,
                           "power of a GPU a job holds without computing (launch, reload, checkpoint save, "
                           "evaluation idle share, recovery hold), W (AcmeTrace: measured p25, among the samples "
                           "at 0% utilization)");
  const auto table = params.table("job_w", kSerenJob, 0, 5000,
                                  "power of a running job's GPUs when not held: quantiles p0, p10, ..., p100 of the "
                                  "per-job draw, W (scripts/fit_power.py: the cluster's measured GPU power)");
  s.job_w.assign(kSerenJob.size(), 0.0);
  for (const auto& [name, value] : table) {
    std::size_t i = 0;
    while (i < kSerenJob.size() && kSerenJob[i].first != name) ++i;
    if (i == kSerenJob.size())
      throw InputError("power.job_w." + name + ": not a quantile (valid: p0, p10, ..., p100)");
    s.job_w[i] = value;
  }
  for (std::size_t i = 1; i < s.job_w.size(); ++i)
    if (s.job_w[i] < s.job_w[i - 1])
      throw InputError("power.job_w." + kSerenJob[i].first + ": quantiles must not fall (" +
                       std::to_string(std::lround(s.job_w[i])) + " W after " + std::to_string(std::lround(s.job_w[i - 1])) +
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
  s.clock_step = params.number("clock_step", 0.02, 0, 0.5,
                               "headroom a cap keeps below the clock that fits, and the room it waits for before "
                               "raising the clock again (0: follow the cap exactly, retiming every running job at "
                               "each event while it binds)");
  if (s.cap_kw > 0 && !s.enabled)
    throw InputError("power.cap_kw: needs power.enabled: true (the cap acts on the modeled power)");
  return s;
}

}  // namespace acme
