#include "io/launch_keys.h"

namespace acme {

LaunchModel read_launch_model(Params& params) {
  LaunchModel m;
  m.max_s = params.number("max_s", 600, 1, 3600, "no launch latency exceeds this many seconds (drawn again past it)");
  m.gpu_median_s = params.number("gpu_median_s", 0, 0, m.max_s,
                                 "median seconds from placement to start of a GPU job (Slurm prolog, pod start); 0: none");
  m.cpu_median_s = params.number("cpu_median_s", 0, 0, m.max_s, "the same for a CPU-only job; 0: none");
  m.gpu_floor_s = params.number("gpu_floor_s", 0, 0, m.max_s,
                                "least seconds from placement to start of a GPU job (its fixed steps); "
                                "a floor above the median is the median");
  m.cpu_floor_s = params.number("cpu_floor_s", 0, 0, m.max_s, "the same for a CPU-only job");
  m.sigma = params.number("sigma", 0, 0, 4, "log-normal sigma of the latency above the floor; 0: always the median");
  m.seed = static_cast<std::uint64_t>(params.number("seed", 1, 0, 9.0e15, "seed of the launch-latency draws"));
  return m;
}

}  // namespace acme
