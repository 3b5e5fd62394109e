#include "policies/shaped_queue.h"

#include <algorithm>
#include <queue>
#include <vector>

namespace acme {

void ShapedQueue::insert(const SchedulingPass& pass, const QueueEntry& e, std::uint64_t tag) {
  const auto group = groups_.try_emplace({Shape::of(pass.cluster(), pass.request(e.job)), tag}).first;
  group->second.jobs.insert(e);
  ranked_.insert(e);
  if (e.job >= place_of_.size()) place_of_.resize(std::max<std::size_t>(e.job + 1, 2 * place_of_.size()), 0);
  if (free_places_.empty()) {
    places_.push_back({e, group});
    place_of_[e.job] = static_cast<std::uint32_t>(places_.size());
  } else {
    places_[free_places_.back()] = {e, group};
    place_of_[e.job] = free_places_.back() + 1;
    free_places_.pop_back();
  }
  if (!pass.is_pending(e.job)) withdrawn_.insert(e);
}

void ShapedQueue::erase(JobId job) {
  const std::uint32_t p = place_of(job);
  if (p == 0) return;
  const auto [e, group] = places_[p - 1];
  place_of_[job] = 0;
  free_places_.push_back(p - 1);
  ranked_.erase(e);
  if (!withdrawn_.empty()) withdrawn_.erase(e);
  group->second.jobs.erase(e);
  // Inside a walk an empty group stays until the walk ends: the walk may still hold it.
  if (group->second.jobs.empty() && !group->second.followed) groups_.erase(group);
}

void ShapedQueue::walk(const QueueEntry& after, const std::function<bool(JobId)>& wanted,
                       const std::function<Step(JobId)>& visit) {
  struct Head {
    QueueEntry entry;
    GroupMap::iterator group;  // where it came from: a group, or (withdrawn) the withdrawn jobs
    bool withdrawn;
  };
  const auto later = [](const Head& a, const Head& b) { return b.entry < a.entry; };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  const auto follow = [&](GroupMap::iterator group, const QueueEntry& from) {
    const auto first = group->second.jobs.upper_bound(from);
    if (first == group->second.jobs.end() || !wanted(first->job)) return;
    group->second.followed = true;
    heads.push({*first, group, false});
  };
  const auto next_withdrawn = [&](const QueueEntry& from) {
    if (const auto w = withdrawn_.upper_bound(from); w != withdrawn_.end()) heads.push({*w, groups_.end(), true});
  };
  for (auto group = groups_.begin(); group != groups_.end(); ++group) follow(group, after);
  next_withdrawn(after);
  while (!heads.empty()) {
    const Head head = heads.top();
    heads.pop();
    // A job taken through its other way in (as withdrawn, or from its group) is passed over.
    const bool there = head.withdrawn ? withdrawn_.count(head.entry) > 0 : head.group->second.jobs.count(head.entry) > 0;
    const Step step = there ? visit(head.entry.job) : Step::Keep;
    if (step == Step::Stop) break;
    if (step == Step::Take || step == Step::Retake) erase(head.entry.job);
    if (head.withdrawn) {
      next_withdrawn(head.entry);
    } else if (step == Step::Leave) {
      head.group->second.followed = false;
    } else if (const auto next = head.group->second.jobs.upper_bound(head.entry); next != head.group->second.jobs.end()) {
      heads.push({*next, head.group, false});
    } else {
      head.group->second.followed = false;
    }
    if (step == Step::Retake)
      for (auto group = groups_.begin(); group != groups_.end(); ++group)
        if (!group->second.followed) follow(group, head.entry);
  }
  for (auto group = groups_.begin(); group != groups_.end();) {
    group->second.followed = false;
    group = group->second.jobs.empty() ? groups_.erase(group) : std::next(group);
  }
}

void ShapedQueue::visit_fitting(const SchedulingPass& pass, const QueueEntry& after, const QueueEntry* before,
                                const std::function<bool(JobId)>& start) {
  const bool bounded = before != nullptr;
  const QueueEntry last = bounded ? *before : QueueEntry{};
  const Cluster& cluster = pass.cluster();
  walk(
      after, [&](JobId j) { return cluster.fits_now(pass.request(j)); },
      [&](JobId j) {
        if (bounded && !(entry_of(j) < last)) return Step::Stop;
        if (!pass.is_pending(j)) return Step::Take;
        if (!cluster.fits_now(pass.request(j))) return Step::Leave;  // nor will the rest of its shape
        return start(j) ? Step::Take : Step::Keep;
      });
}

}  // namespace acme
