#include "sim/launch.h"

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <mutex>

#include "sim/random.h"

namespace acme {

Time LaunchModel::draw(std::uint64_t job_key, std::uint32_t start, const JobRequest& r) const {
  const double median = r.gpu_num > 0 ? gpu_median_s : cpu_median_s;
  if (median <= 0) return Time{};
  const double floor = std::min(r.gpu_num > 0 ? gpu_floor_s : cpu_floor_s, median);
  double s = median;
  if (sigma > 0 && median > floor) {
    Rng rng(mix64(mix64(seed ^ 0x4c41554e43ULL) ^ job_key) ^ start);
    // Drawn again past max_s: a draw is kept with probability at least 1/2 (max_s >= the median).
    for (int tries = 0; tries < 64; ++tries) {
      s = floor + (median - floor) * std::exp(sigma * rng.normal());
      if (s <= max_s) break;
    }
  }
  return Time::seconds(std::clamp<std::int64_t>(std::llround(s), 0, std::llround(max_s)));
}

LaunchAhead::LaunchAhead(const LaunchModel& model, const Workload& workload, std::shared_mutex& growth,
                         std::size_t capacity)
    : model_(model), workload_(workload), growth_(growth), capacity_(capacity), drawn_(new std::uint16_t[capacity]) {
  thread_ = std::thread([this] { run(); });
}

LaunchAhead::~LaunchAhead() {
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void LaunchAhead::more() {
  {
    const std::lock_guard lock(mu_);
    more_ = true;
  }
  cv_.notify_one();
}

void LaunchAhead::run() {
  std::size_t ready = 0;
  for (;;) {
    for (bool drawn = true; drawn;) {  // the jobs there now, a batch at a time while the workload cannot grow
      const std::shared_lock lock(growth_);
      const std::size_t end = std::min({capacity_, workload_.size(), ready + 1024});
      drawn = ready < end;
      for (; ready < end; ++ready) {
        const std::int64_t s = model_.draw(workload_.keys[ready], 0, workload_.requests[ready]).sec();
        drawn_[ready] = s < kNotHeld ? static_cast<std::uint16_t>(s) : kNotHeld;
      }
      ready_.store(ready, std::memory_order_release);
    }
    if (ready == capacity_) return;
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stop_ || more_; });
    if (stop_) return;
    more_ = false;
  }
}

}  // namespace acme
