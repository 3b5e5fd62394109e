// EASY backfill's reservation for the first blocked job, shared by the policies that backfill.
//
// A ShadowPlanner follows the running jobs' expected ends (by the users' estimates, never true run
// times) and answers, for a blocked job, its shadow time: the earliest time at which enough nodes
// will have room for it, and the GPUs free then, on the nodes open to it (capacity.reserved_*),
// beyond what it needs: GPUs of a part of the cluster it may not use are no one's spare. A later
// job may start now without delaying it if it ends (by its estimate) before the shadow time or
// takes only spare GPUs. A job without an estimate never ends before the shadow time.
//
// Cost: reservation() is O(k) for the k running jobs it walks by expected end (the running jobs
// are kept in that order); cached until the head, the running jobs or the cluster's room change.
// started() and stopped() are O(log r) over the r running jobs.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "policies/node_pool.h"
#include "sim/policy.h"

namespace acme {

class ShadowPlanner {
 public:
  struct Reservation {
    Time shadow = Time::max();
    std::int64_t spare_gpus = 0;  // GPUs free at the shadow time, on the head's nodes, beyond its need
    bool no_room = false;         // no estimate frees room for the head: the shadow time is now
    Cluster::NodeRange open;      // the nodes open to the head
  };

  // The policy started `job` (REQUIRES: pass.is_running(job); started again without a stop, its
  // expected end is replaced), or a job it started stopped.
  void started(const SchedulingPass& pass, JobId job);
  void stopped(JobId job);

  // The reservation of `head`, a pending job that does not fit now.
  Reservation reservation(const SchedulingPass& pass, JobId head);

  // Whether `job` may start now without delaying `res`'s job: it ends before the shadow time,
  // takes only spare GPUs, or is placed on none of the head's nodes (a job of the other part of a
  // reserved cluster, or a reserved type that has room on its own nodes, where it goes first).
  // Once it started, backfilled() takes the spare GPUs it uses on the head's nodes.
  static bool may_backfill(const SchedulingPass& pass, JobId job, const Reservation& res) {
    return ends_before_shadow(pass, job, res) || pass.request(job).gpu_num <= res.spare_gpus ||
           placed_apart(pass, job, res);
  }
  static void backfilled(const SchedulingPass& pass, JobId job, Reservation& res) {
    if (ends_before_shadow(pass, job, res)) return;
    for (const NodeShare& s : pass.placement_of(job))
      if (s.node >= res.open.first && s.node < res.open.last) res.spare_gpus -= s.gpus;
  }

 private:
  static bool ends_before_shadow(const SchedulingPass& pass, JobId job, const Reservation& res) {
    const Time estimate = pass.estimate(job);
    return estimate > Time{} && pass.now() + estimate <= res.shadow;
  }
  Reservation reserve(const SchedulingPass& pass, JobId head);
  static bool placed_apart(const SchedulingPass& pass, JobId job, const Reservation& res) {
    const Cluster& c = pass.cluster();
    const JobRequest& r = pass.request(job);
    const Cluster::NodeRange mine = c.nodes_open_to(r);
    if (mine.last <= res.open.first || mine.first >= res.open.last) return true;
    // Open to every node while it fits the part before the reservation: a reserved type that may
    // spill, placed on the reserved nodes first (Cluster::place). Apart from a head kept before
    // them if it has room there now.
    const int from = c.reserved_from(), nodes = c.node_count();
    if (from == nodes || res.open.last > from || mine.first != 0 || mine.last != nodes || r.node_num > from)
      return false;
    return c.count_nodes_with_room(even_share(r.gpu_num, r.node_num, 0), even_share(r.cpu_num, r.node_num, 0),
                                   r.node_num, {from, nodes}) >= r.node_num;
  }

  PooledSet<std::pair<Time, JobId>> by_end_;  // (expected end, job) of the running jobs
  std::vector<OptionalTime> end_of_;  // [job]: its expected end in by_end_; none when not running (8 bytes)
  std::vector<std::pair<std::int32_t, std::int32_t>> free_;
  std::vector<std::int32_t> touched_;
  std::uint64_t running_changes_ = 0;  // jobs started or stopped so far
  std::optional<Reservation> cached_;
  JobId cached_head_ = 0;
  std::uint64_t cached_changes_ = 0, cached_room_ = 0;
};

}  // namespace acme
