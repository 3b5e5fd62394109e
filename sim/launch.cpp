#include "sim/launch.h"

#include <algorithm>
#include <cmath>

#include "sim/random.h"

namespace acme {

Time LaunchModel::draw(JobId job, std::uint32_t start, const JobRequest& r) const {
  const double median = r.gpu_num > 0 ? gpu_median_s : cpu_median_s;
  if (median <= 0) return Time{};
  const bool large = large_min_gpus > 0 && r.gpu_num >= large_min_gpus;
  const double sigma = large ? large_sigma : this->sigma;
  double s = median;
  if (sigma > 0) {
    Rng rng(seed ^ (std::uint64_t{job} << 24) ^ (std::uint64_t{start} << 1) ^ 0x4c41554e43ULL);
    s = median * std::exp(sigma * rng.normal());
  }
  return Time::seconds(std::clamp<std::int64_t>(std::llround(s), 0, 86400));
}

}  // namespace acme
