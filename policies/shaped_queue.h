// Pending jobs in a policy's order, ranked and grouped by shape, so that a pass that looks at the
// jobs of a window of the queue (backfill: the `depth` jobs behind the first blocked one) pays for
// the jobs that could start, not for every job in the window.
//
// An entry's rank is its place in the queue (O(log q)); nth(n) is the entry n places after the
// front. Jobs are also kept in groups: one per shape (policies/shape.h) and tag (a policy's own
// split, such as the QOS limits a job counts against; 0 by default). All the jobs of a shape fit
// now or none does, and room only shrinks while a pass starts jobs, so walk() can follow only the
// groups a policy wants (those that fit), each until the policy leaves it.
//
// A withdrawn job keeps its place (it still counts in a rank, as in a walk of the queue) until the
// policy takes it out: withdrawn() marks it, and walk() visits every marked job on its way, whatever
// its group. A policy whose windows do not count withdrawn jobs erase()s them instead.
//
// Cost: insert, erase, rank, nth O(log q); walk O(g) over the g groups queued, plus O(log q) per
// job visited, plus O(g) each time the policy asks for the groups to be looked at again.
#pragma once

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
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
  const QueueEntry& entry_of(JobId job) const { return places_[place_of(job) - 1].entry; }
  // How many queued jobs come before `e` in the order.
  std::size_t rank(const QueueEntry& e) const { return ranked_.order_of_key(e); }
  // The entry n places after the front; nullptr if the queue is shorter.
  const QueueEntry* nth(std::size_t n) const {
    const auto it = ranked_.find_by_order(n);
    return it == ranked_.end() ? nullptr : &*it;
  }

  // Queues the job of `e` (marked withdrawn if it already left: the core may withdraw a job
  // before the policy's next pass admits it). REQUIRES: the job is not queued.
  void insert(const SchedulingPass& pass, const QueueEntry& e, std::uint64_t tag = 0);
  // Takes the job out of the queue, if it is queued.
  void erase(JobId job);
  // The queued job left the queue without starting: it keeps its place until erased (see above).
  void withdrawn(JobId job) {
    if (const std::uint32_t p = place_of(job)) withdrawn_.insert(places_[p - 1].entry);
  }
  // Drops the withdrawn jobs at the front.
  void drop_withdrawn_front(const SchedulingPass& pass) {
    while (!empty() && !pass.is_pending(front().job)) erase(front().job);
  }

  // What a walk's visit tells it: go on with the job's group (Keep); leave the group (Leave); the
  // job leaves the queue, the walk takes it out (Take), and asks `wanted` again for every group it
  // is not following, from the job on (Retake: the policy's state changed, as its limits after a
  // start); end the walk (Stop).
  enum class Step : std::uint8_t { Keep, Leave, Take, Retake, Stop };
  // Visits, in queue order, the jobs after `after` of the groups `wanted` accepts (asked with each
  // group's first job after `after`, and again after a Retake) and every withdrawn job, calling
  // visit(job) for each. A withdrawn job may be visited twice (from its group and as withdrawn)
  // unless the first visit takes it.
  void walk(const QueueEntry& after, const std::function<bool(JobId)>& wanted,
            const std::function<Step(JobId)>& visit);

  // backfill's and sjf's walk: the jobs after `after` and before `before` (nullptr: to the end)
  // whose shape fits now; start(job) returns whether it started the job, which then leaves the
  // queue. Withdrawn jobs of the window are taken out.
  void visit_fitting(const SchedulingPass& pass, const QueueEntry& after, const QueueEntry* before,
                     const std::function<bool(JobId)>& start);

 private:
  using Ranked = __gnu_pbds::tree<QueueEntry, __gnu_pbds::null_type, std::less<QueueEntry>, __gnu_pbds::rb_tree_tag,
                                  __gnu_pbds::tree_order_statistics_node_update>;
  struct Group {
    std::set<QueueEntry> jobs;
    bool followed = false;  // by the walk under way
  };
  using GroupMap = std::map<std::pair<Shape, std::uint64_t>, Group>;
  struct Place {
    QueueEntry entry;
    GroupMap::iterator group;
  };
  Ranked ranked_;                    // every queued job, in order, with ranks
  GroupMap groups_;                  // the same jobs by shape and tag
  // [job]: its Place in places_ + 1, 0 when not queued (4 bytes a job; places_ holds the queued).
  std::uint32_t place_of(JobId job) const { return job < place_of_.size() ? place_of_[job] : 0; }
  std::vector<std::uint32_t> place_of_;
  std::vector<Place> places_;
  std::vector<std::uint32_t> free_places_;  // indices into places_ of erased jobs, for reuse
  std::set<QueueEntry> withdrawn_;   // queued jobs that were withdrawn
};

}  // namespace acme
