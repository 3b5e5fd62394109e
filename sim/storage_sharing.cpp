#include "sim/storage_sharing.h"

#include <algorithm>
#include <cmath>

namespace acme {

StorageSharing::StorageSharing(double capacity_gbps) : capacity_gbps_(capacity_gbps) {}

void StorageSharing::advance(Time now) {
  const auto seconds = static_cast<double>((now - last_).sec());
  last_ = now;
  if (seconds <= 0) return;
  for (std::uint32_t id : live_) {
    Slot& s = slots_[id];
    s.left_gb = std::max(0.0, s.left_gb - s.gbps * scale_ * seconds);
  }
}

Time StorageSharing::end_at(Time now, const Slot& s) const {
  if (!(s.left_gb > 0)) return now;
  return now + Time::seconds(std::max<std::int64_t>(1, std::llround(s.left_gb / (s.gbps * scale_))));
}

void StorageSharing::rescale(Time now, std::vector<Moved>& moved) {
  const double scale = demand_gbps_ > capacity_gbps_ ? capacity_gbps_ / demand_gbps_ : 1.0;
  if (scale == scale_) return;
  scale_ = scale;
  for (std::uint32_t id : live_) {
    Slot& s = slots_[id];
    const Time end = end_at(now, s);
    if (end == s.end) continue;
    s.end = end;
    moved.push_back({id, ++s.version, end});
  }
}

std::uint32_t StorageSharing::add(Time now, JobId job, std::uint32_t what, double gb, double gbps,
                                  std::vector<Moved>& moved) {
  advance(now);
  std::uint32_t id;
  if (free_.empty()) {
    id = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Slot& s = slots_[id];
  s.job = job, s.what = what, s.left_gb = gb * 8.0, s.gbps = gbps, s.live = true;
  ++s.version;
  demand_gbps_ += gbps;
  rescale(now, moved);  // the others first
  live_.push_back(id);
  peak_ = std::max(peak_, live_.size());
  s.end = end_at(now, s);
  moved.push_back({id, s.version, s.end});
  return id;
}

bool StorageSharing::current(std::uint32_t id, std::uint32_t version) const {
  return id < slots_.size() && slots_[id].live && slots_[id].version == version;
}

void StorageSharing::remove(Time now, std::uint32_t id, std::vector<Moved>& moved) {
  advance(now);
  Slot& s = slots_[id];
  s.live = false;
  ++s.version;
  live_.erase(std::find(live_.begin(), live_.end(), id));
  free_.push_back(id);
  demand_gbps_ = 0;  // summed again: a running sum taken apart in another order drifts
  for (std::uint32_t other : live_) demand_gbps_ += slots_[other].gbps;
  rescale(now, moved);
}

void StorageSharing::remove_job(Time now, JobId job, std::vector<Moved>& moved) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id : live_)
    if (slots_[id].job == job) ids.push_back(id);
  for (std::uint32_t id : ids) remove(now, id, moved);
}

}  // namespace acme
