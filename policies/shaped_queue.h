// Pending jobs in a policy's order, ranked and grouped by shape, so that a pass that looks at the
// jobs of a window of the queue (backfill: the `depth` jobs behind the first blocked one) pays for
// the jobs that could start, not for every job in the window.
//
// An entry's rank is its place in the queue (O(log q)); nth(n) is the entry n places after the
// front. Jobs are also kept by shape (policies/shape.h): all the jobs of a shape fit now or none
// does, and room only shrinks while a pass starts jobs, so visit_fitting() walks only the shapes
// that fit, each until its first job that does not.
//
// A withdrawn job keeps its place (it still counts in a window, as in a walk of the queue) until
// a pass walks over it: visit_fitting() and drop_withdrawn_front() drop those they pass.
//
// Cost: insert, erase O(log q); nth O(log q); visit_fitting O(g log q) over the g shapes queued,
// plus O(log g) per job it visits and O(log q) per withdrawn job it drops.
#pragma once

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policies/common.h"
#include "policies/shape.h"

namespace acme {

class ShapedQueue {
 public:
  bool empty() const { return ranked_.empty(); }
  std::size_t size() const { return ranked_.size(); }
  const QueueEntry& front() const { return *ranked_.begin(); }
  // The queued job's entry. REQUIRES: it is queued.
  const QueueEntry& entry_of(JobId job) const { return entry_of_.at(job).entry; }

  // REQUIRES: the job is not queued.
  void insert(const Cluster& cluster, const JobRequest& r, const QueueEntry& e) {
    const auto group = by_shape_.try_emplace(Shape::of(cluster, r)).first;
    group->second.insert(e);
    ranked_.insert(e);
    entry_of_.emplace(e.job, Place{e, group});
  }
  // Takes the job out of the queue, if it is queued.
  void erase(JobId job) {
    const auto it = entry_of_.find(job);
    if (it == entry_of_.end()) return;
    const auto [e, group] = it->second;
    entry_of_.erase(it);
    ranked_.erase(e);
    withdrawn_.erase(e);
    group->second.erase(e);
    if (group->second.empty()) by_shape_.erase(group);
  }
  // The job left the queue without starting: it keeps its place, and so counts in a window, until
  // a pass walks over it (for a policy whose window counts withdrawn jobs; else erase() it).
  void withdrawn(JobId job) {
    if (const auto it = entry_of_.find(job); it != entry_of_.end()) withdrawn_.insert(it->second.entry);
  }
  // Drops the withdrawn jobs at the front.
  void drop_withdrawn_front(const SchedulingPass& pass) {
    while (!empty() && !pass.is_pending(front().job)) erase(front().job);
  }

  // The entry n places after the front; nullptr if the queue is shorter.
  const QueueEntry* nth(std::size_t n) const {
    const auto it = ranked_.find_by_order(n);
    return it == ranked_.end() ? nullptr : &*it;
  }

  // Walks, in queue order, the jobs after `after` and before `before` (nullptr: to the end) whose
  // shape fits now, and calls start(job) for each: it returns whether it started the job, which
  // then leaves the queue. A shape is left at its first job that does not fit; the withdrawn jobs
  // of the window are dropped.
  void visit_fitting(const SchedulingPass& pass, const QueueEntry& after, const QueueEntry* before,
                     const std::function<bool(JobId)>& start);

 private:
  using Ranked = __gnu_pbds::tree<QueueEntry, __gnu_pbds::null_type, std::less<QueueEntry>, __gnu_pbds::rb_tree_tag,
                                  __gnu_pbds::tree_order_statistics_node_update>;
  using Group = std::set<QueueEntry>;
  using GroupRef = std::map<Shape, Group>::iterator;
  struct Place {
    QueueEntry entry;
    GroupRef group;
  };
  Ranked ranked_;                               // every queued job, in order, with ranks
  std::map<Shape, Group> by_shape_;             // the same jobs by shape
  std::unordered_map<JobId, Place> entry_of_;
  std::set<QueueEntry> withdrawn_;              // queued jobs that were withdrawn
};

}  // namespace acme
