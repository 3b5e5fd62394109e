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
// A job may be queued with a run-time estimate, and a walk told to follow a group only through the
// jobs whose estimate is at most a bound (Step::Shorter: backfill's jobs that may start only if
// they end before the reservation); the jobs it passes over are not visited. Each group keeps the
// smallest estimate of every subtree, so the next such job is found in O(log^2 q) whatever the
// number passed over.
//
// Cost: insert, erase, rank, nth O(log q); walk O(g) over the g groups queued from the queue's
// front (O(g log q) from elsewhere), plus O(log q) per job visited (O(log^2 q) following Shorter),
// plus O(g log q) each time the policy asks for the groups to be looked at again.
#pragma once

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "policies/common.h"
#include "policies/function_ref.h"
#include "policies/node_pool.h"
#include "policies/shape.h"
#include "sim/time.h"

namespace acme {

class ShapedQueue {
 public:
  bool empty() const { return ranked_.empty(); }
  bool contains(JobId job) const { return place_of(job) != 0; }
  std::size_t size() const { return ranked_.size(); }
  const QueueEntry& front() const { return *ranked_.begin(); }
  // The queued job's entry. REQUIRES: it is queued.
  const QueueEntry& entry_of(JobId job) const { return places_[place_of(job) - 1].entry; }
  // The estimate it was queued with. REQUIRES: it is queued.
  Time estimate_of(JobId job) const { return places_[place_of(job) - 1].estimate; }
  // Whether the queued job's shape fits the cluster now (Cluster::fits_now), remembered by its
  // group while room only shrinks: O(1) when the shape was found not to fit since the cluster's
  // room_freed() last changed. REQUIRES: the job is queued.
  bool fits_now(const SchedulingPass& pass, JobId job);
  // How many queued jobs come before `e` in the order.
  std::size_t rank(const QueueEntry& e) const { return ranked_.order_of_key(e); }
  // The entry n places after the front; nullptr if the queue is shorter.
  const QueueEntry* nth(std::size_t n) const {
    const auto it = ranked_.find_by_order(n);
    return it == ranked_.end() ? nullptr : &*it;
  }

  // Queues the job of `e` (marked withdrawn if it already left: the core may withdraw a job
  // before the policy's next pass admits it), with its run-time estimate (none: Time::max(), a
  // job a Shorter walk always passes over). REQUIRES: the job is not queued.
  void insert(const SchedulingPass& pass, const QueueEntry& e, std::uint64_t tag = 0, Time estimate = Time::max());
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

  // What a walk's visit tells it: go on with the job's group (Keep); go on with it only through
  // its jobs whose estimate is at most `shorter` (Shorter: a visit of the others would change
  // nothing and Keep, while the walk lasts); leave the group (Leave); the job leaves the queue, the
  // walk takes it out (Take), and asks `wanted` again for every group it is not following, from the
  // job on, and follows every group again in full (Retake: the policy's state changed, as its
  // limits after a start); end the walk (Stop).
  enum class Step : std::uint8_t { Keep, Shorter, Leave, Take, Retake, Stop };
  // Visits, in queue order, the jobs after `after` and before `before` (nullptr: to the end) of
  // the groups `wanted` accepts (asked with one job of each group with a job there, whose jobs it
  // must answer alike: one shape and tag; and again after a Retake) and every withdrawn job there,
  // calling visit(job) for each. A withdrawn job may be visited twice (from its group and as
  // withdrawn) unless the first visit takes it. `shorter` is read when a visit returns Shorter.
  void walk(const QueueEntry& after, const QueueEntry* before, FunctionRef<bool(JobId)> wanted,
            FunctionRef<Step(JobId)> visit, const Time& shorter = kNoBound);
  static constexpr Time kNoBound = Time::max();

  // backfill's and sjf's walk: the jobs after `after` and before `before` (nullptr: to the end)
  // whose shape fits now; start(job) returns Take if it started the job, which then leaves the
  // queue, else Keep, or Shorter with `shorter` set. Withdrawn jobs of the window are taken out.
  void visit_fitting(const SchedulingPass& pass, const QueueEntry& after, const QueueEntry* before,
                     FunctionRef<Step(JobId)> start, const Time& shorter = kNoBound);

 private:
  using Ranked = __gnu_pbds::tree<QueueEntry, __gnu_pbds::null_type, std::less<QueueEntry>, __gnu_pbds::rb_tree_tag,
                                  __gnu_pbds::tree_order_statistics_node_update, ThreadNodeAllocator<char>>;
  // A group's job: its entry and estimate (Time::max() for none), ordered by the entry.
  struct Member {
    QueueEntry entry;
    Time estimate;
    bool operator<(const Member& o) const { return entry < o.entry; }
  };
  // Keeps the smallest estimate of each subtree (pb_ds's node-update contract).
  template <class NodeConstIt, class NodeIt, class Less, class Alloc>
  struct ShortestBelow {
    using metadata_type = Time;
    void operator()(NodeIt it, NodeConstIt end) const {
      Time least = (**it).estimate;
      if (const NodeIt l = it.get_l_child(); l != end) least = std::min(least, l.get_metadata());
      if (const NodeIt r = it.get_r_child(); r != end) least = std::min(least, r.get_metadata());
      const_cast<Time&>(it.get_metadata()) = least;
    }
    virtual NodeConstIt node_begin() const = 0;
    virtual NodeConstIt node_end() const = 0;
    virtual ~ShortestBelow() = default;
  };
  using Members = __gnu_pbds::tree<Member, __gnu_pbds::null_type, std::less<Member>, __gnu_pbds::rb_tree_tag, ShortestBelow,
                                   ThreadNodeAllocator<char>>;
  struct Group {
    Members jobs;
    bool followed = false;  // by the walk under way
    bool shorter = false;   // only through its jobs of estimates up to the walk's bound
    std::uint32_t epoch = 0;  // of the head the walk follows it by; older heads are passed over
    std::uint64_t full_at = ~std::uint64_t{0};  // the cluster's room_freed() when its shape did not fit
  };
  // The group's first job after `from`: any, or (shorter) one whose estimate is at most `bound`.
  static Members::const_iterator next_in(const Members& jobs, const QueueEntry& from, bool shorter, Time bound);
  // The first of `jobs` after `from`: O(1) when `from` is at most the first of them (a walk from
  // the queue's front, as the policies' walks behind their blocked first job, or on from a job the
  // walk just visited at a group's front), else O(log q).
  static Members::const_iterator first_after(const Members& jobs, const QueueEntry& from);
  using GroupMap = std::map<std::pair<Shape, std::uint64_t>, Group>;
  // The group of `key`, made if there is none (from a spare one if any: most groups of a short
  // queue hold one job, made when it is queued and dropped when it starts); drop() keeps an
  // empty group's node (its map node and tree) for the next, and returns the group after it.
  GroupMap::iterator group_of(const GroupMap::key_type& key);
  GroupMap::iterator drop(GroupMap::iterator group);
  std::vector<GroupMap::node_type> spare_groups_;
  struct Place {
    QueueEntry entry;
    Time estimate;
    GroupMap::iterator group;
  };
  // A walk's next job of a group it follows, or of the withdrawn jobs.
  struct Head {
    QueueEntry entry;
    GroupMap::iterator group;  // where it came from: a group, or (withdrawn) the withdrawn jobs
    bool withdrawn;
    std::uint32_t epoch;       // the group's when pushed
  };
  std::vector<Head> heads_;          // the walk's, as a heap (kept to reuse its memory)
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
