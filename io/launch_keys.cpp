#include "io/launch_keys.h"

namespace acme {

LaunchModel read_launch_model(Params& params) {
  LaunchModel m;
  m.gpu_median_s = params.number("gpu_median_s", 0, 0, 3600,
                                 "median seconds from placement to start of a GPU job (Slurm prolog, pod start); 0: none");
  m.cpu_median_s = params.number("cpu_median_s", 0, 0, 3600, "the same for a CPU-only job; 0: none");
  m.sigma = params.number("sigma", 0, 0, 4, "log-normal sigma of the launch latency; 0: always the median");
  m.large_min_gpus = static_cast<std::int32_t>(params.number(
      "large_min_gpus", 0, 0, 1e6, "jobs of at least this many GPUs draw their latency with large_sigma; 0: none"));
  m.large_sigma = params.number("large_sigma", 0, 0, 4,
                                "log-normal sigma of those jobs' latency (warm nodes kept for large jobs); 0: the median");
  m.seed = static_cast<std::uint64_t>(params.number("seed", 1, 0, 9.0e15, "seed of the launch-latency draws"));
  return m;
}

}  // namespace acme
