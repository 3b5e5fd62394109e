#include "policies/shaped_queue.h"

#include <tuple>

namespace acme {

void ShapedQueue::visit_fitting(const SchedulingPass& pass, const QueueEntry& after, const QueueEntry* before,
                                const std::function<bool(JobId)>& start) {
  const bool bounded = before != nullptr;
  const QueueEntry last = bounded ? *before : QueueEntry{};
  const auto in_window = [&](const QueueEntry& e) { return !bounded || e < last; };
  for (auto it = withdrawn_.upper_bound(after); it != withdrawn_.end() && in_window(*it);) {
    erase((it++)->job);
  }
  // The first job of the window of each shape that fits, the earliest on top.
  using Head = std::tuple<QueueEntry, GroupRef, Group::iterator>;
  const auto later = [](const Head& a, const Head& b) { return std::get<0>(b) < std::get<0>(a); };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  const Cluster& cluster = pass.cluster();
  for (auto group = by_shape_.begin(); group != by_shape_.end(); ++group) {
    if (!cluster.fits_now(pass.request(group->second.begin()->job))) continue;  // tests the shape
    const auto first = group->second.upper_bound(after);
    if (first != group->second.end() && in_window(*first)) heads.push({*first, group, first});
  }
  while (!heads.empty()) {
    auto [entry, group, it] = heads.top();
    heads.pop();
    if (!cluster.fits_now(pass.request(entry.job))) continue;  // nor will the rest of its shape
    const auto next = std::next(it);
    if (start(entry.job)) {
      ranked_.erase(entry);
      entry_of_.erase(entry.job);
      group->second.erase(it);
    }
    if (next != group->second.end() && in_window(*next))
      heads.push({*next, group, next});
    else if (group->second.empty())
      by_shape_.erase(group);
  }
}

}  // namespace acme
