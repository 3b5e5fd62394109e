#include "policies/shaped_queue.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace acme {

void ShapedQueue::insert(const SchedulingPass& pass, const QueueEntry& e, std::uint64_t tag, Time estimate) {
  const auto group = group_of({Shape::of(pass.cluster(), pass.request(e.job)), tag});
  if (estimate <= Time{}) estimate = Time::max();  // none given
  group->second.jobs.insert({e, estimate});
  ranked_.insert(e);
  if (e.job >= place_of_.size()) place_of_.resize(std::max<std::size_t>(e.job + 1, 2 * place_of_.size()), 0);
  if (free_places_.empty()) {
    places_.push_back({e, estimate, group});
    place_of_[e.job] = static_cast<std::uint32_t>(places_.size());
  } else {
    places_[free_places_.back()] = {e, estimate, group};
    place_of_[e.job] = free_places_.back() + 1;
    free_places_.pop_back();
  }
  if (!pass.is_pending(e.job)) withdrawn_.insert(e);
}

void ShapedQueue::erase(JobId job) {
  const std::uint32_t p = place_of(job);
  if (p == 0) return;
  const auto [e, estimate, group] = places_[p - 1];
  place_of_[job] = 0;
  free_places_.push_back(p - 1);
  ranked_.erase(e);
  if (!withdrawn_.empty()) withdrawn_.erase(e);
  group->second.jobs.erase({e, estimate});
  // Inside a walk an empty group stays until the walk ends: the walk may still hold it.
  if (group->second.jobs.empty() && !group->second.followed) drop(group);
}

ShapedQueue::GroupMap::iterator ShapedQueue::group_of(const GroupMap::key_type& key) {
  const auto at = groups_.lower_bound(key);
  if (at != groups_.end() && at->first == key) return at;
  if (spare_groups_.empty()) return groups_.try_emplace(at, key);
  GroupMap::node_type node = std::move(spare_groups_.back());
  spare_groups_.pop_back();
  node.key() = key;
  node.mapped().full_at = ~std::uint64_t{0};  // of another shape
  return groups_.insert(at, std::move(node));
}

ShapedQueue::GroupMap::iterator ShapedQueue::drop(GroupMap::iterator group) {
  const auto next = std::next(group);
  spare_groups_.push_back(groups_.extract(group));
  return next;
}

bool ShapedQueue::fits_now(const SchedulingPass& pass, JobId job) {
  const GroupMap::iterator it = places_[place_of(job) - 1].group;
  Group& group = it->second;
  const Cluster& cluster = pass.cluster();
  const std::uint64_t room = cluster.room_freed();
  if (group.full_at == room) return false;
  if (it->first.first.fits_now(cluster)) return true;
  group.full_at = room;
  return false;
}

ShapedQueue::Members::const_iterator ShapedQueue::next_in(const Members& jobs, const QueueEntry& from, bool shorter,
                                                          Time bound) {
  if (!shorter) return first_after(jobs, from);
  // Down the tree: the first member after `from` in a subtree whose smallest estimate is in bound.
  const auto end = jobs.node_end();
  const auto first = [&](auto self, Members::node_const_iterator n) -> Members::const_iterator {
    if (n == end || bound < n.get_metadata()) return jobs.end();
    if (!(from < (**n).entry)) return self(self, n.get_r_child());
    if (const auto left = self(self, n.get_l_child()); left != jobs.end()) return left;
    if (!(bound < (**n).estimate)) return *n;
    return self(self, n.get_r_child());
  };
  return first(first, jobs.node_begin());
}

ShapedQueue::Members::const_iterator ShapedQueue::first_after(const Members& jobs, const QueueEntry& from) {
  const auto first = jobs.begin();
  if (first == jobs.end() || from < first->entry) return first;  // a walk from the queue's front
  if (first->entry == from) return std::next(first);
  return jobs.upper_bound({from, Time{}});
}

void ShapedQueue::walk(const QueueEntry& after, const QueueEntry* before, FunctionRef<bool(JobId)> wanted,
                       FunctionRef<Step(JobId)> visit, const Time& shorter) {
  // The next job of each group followed, earliest first (a heap kept in heads_, reused).
  const auto later = [](const Head& a, const Head& b) { return b.entry < a.entry; };
  heads_.clear();
  const std::optional<QueueEntry> end = before ? std::optional(*before) : std::nullopt;  // `before` may be taken
  const auto in_window = [&](const QueueEntry& e) { return !end || e < *end; };
  const auto push = [&](const Head& h) {
    heads_.push_back(h);
    std::push_heap(heads_.begin(), heads_.end(), later);
  };
  // Follows the group from its first job after `from` (of those in bound, if shorter).
  const auto push_next = [&](GroupMap::iterator group, const QueueEntry& from) {
    Group& g = group->second;
    if (const auto next = next_in(g.jobs, from, g.shorter, shorter); next != g.jobs.end() && in_window(next->entry)) {
      push({next->entry, group, false, g.epoch});
    } else {
      g.followed = false;
    }
  };
  // A group's jobs are alike to `wanted` (one shape and tag): it is asked with the group's first
  // job after `from`, if that is in the window.
  const auto follow = [&](GroupMap::iterator group, const QueueEntry& from) {
    Group& g = group->second;
    g.shorter = false;
    const auto first = first_after(g.jobs, from);
    if (first == g.jobs.end() || !in_window(first->entry) || !wanted(first->entry.job)) return;
    g.followed = true;
    push({first->entry, group, false, g.epoch});
  };
  const auto next_withdrawn = [&](const QueueEntry& from) {
    if (const auto w = withdrawn_.upper_bound(from); w != withdrawn_.end() && in_window(*w))
      push({*w, groups_.end(), true, 0});
  };
  for (auto group = groups_.begin(); group != groups_.end(); ++group) follow(group, after);
  next_withdrawn(after);
  while (!heads_.empty()) {
    std::pop_heap(heads_.begin(), heads_.end(), later);
    const Head head = heads_.back();
    heads_.pop_back();
    if (!head.withdrawn && head.epoch != head.group->second.epoch) continue;  // followed again since
    // A job taken through its other way in (as withdrawn, or from its group) is passed over.
    const bool there = head.withdrawn ? withdrawn_.count(head.entry) > 0
                                      : contains(head.entry.job) && entry_of(head.entry.job) == head.entry;
    const Step step = there ? visit(head.entry.job) : Step::Keep;
    if (step == Step::Stop) break;
    if (step == Step::Take || step == Step::Retake) erase(head.entry.job);
    if (head.withdrawn) {
      next_withdrawn(head.entry);
    } else if (step == Step::Leave) {
      head.group->second.followed = false;
    } else {
      head.group->second.shorter = head.group->second.shorter || step == Step::Shorter;
      push_next(head.group, head.entry);
    }
    if (step != Step::Retake) continue;
    for (auto group = groups_.begin(); group != groups_.end(); ++group) {
      Group& g = group->second;
      if (!g.followed) {
        follow(group, head.entry);
      } else if (g.shorter) {  // in full again, from here: its head in the heap is passed over
        g.shorter = false;
        ++g.epoch;
        push_next(group, head.entry);
      }
    }
  }
  for (auto group = groups_.begin(); group != groups_.end();) {
    group->second.followed = false;
    group->second.shorter = false;
    group = group->second.jobs.empty() ? drop(group) : std::next(group);
  }
}

void ShapedQueue::visit_fitting(const SchedulingPass& pass, const QueueEntry& after, const QueueEntry* before,
                                FunctionRef<Step(JobId)> start, const Time& shorter) {
  walk(
      after, before, [&](JobId j) { return fits_now(pass, j); },
      [&](JobId j) {
        if (!pass.is_pending(j)) return Step::Take;
        if (!fits_now(pass, j)) return Step::Leave;  // nor will the rest of its shape
        return start(j);
      },
      shorter);
}

}  // namespace acme
