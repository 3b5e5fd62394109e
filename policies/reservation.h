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
// are kept in that order), plus O(n) for the n nodes open to the head when they are not the whole
// cluster; cached until the head, the running jobs or the cluster's room change.
// started() and stopped() are O(log r) over the r running jobs.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "sim/policy.h"

namespace acme {

class ShadowPlanner {
 public:
  struct Reservation {
    Time shadow = Time::max();
    std::int64_t spare_gpus = 0;  // GPUs free at the shadow time, on the head's nodes, beyond its need
    bool no_room = false;         // no estimate frees room for the head: the shadow time is now
  };

  // The policy started `job` (REQUIRES: pass.is_running(job); started again without a stop, its
  // expected end is replaced), or a job it started stopped.
  void started(const SchedulingPass& pass, JobId job);
  void stopped(JobId job);

  // The reservation of `head`, a pending job that does not fit now.
  Reservation reservation(const SchedulingPass& pass, JobId head);

  // Whether `job` may start now without delaying `res`'s job: it ends before the shadow time, or
  // takes only spare GPUs. Once it started, backfilled() takes the spare GPUs it uses.
  static bool may_backfill(const SchedulingPass& pass, JobId job, const Reservation& res) {
    return ends_before_shadow(pass, job, res) || pass.request(job).gpu_num <= res.spare_gpus;
  }
  static void backfilled(const SchedulingPass& pass, JobId job, Reservation& res) {
    if (!ends_before_shadow(pass, job, res)) res.spare_gpus -= pass.request(job).gpu_num;
  }

 private:
  static bool ends_before_shadow(const SchedulingPass& pass, JobId job, const Reservation& res) {
    const Time estimate = pass.estimate(job);
    return estimate > Time{} && pass.now() + estimate <= res.shadow;
  }
  Reservation reserve(const SchedulingPass& pass, JobId head);

  std::set<std::pair<Time, JobId>> by_end_;  // (expected end, job) of the running jobs
  std::vector<std::optional<Time>> end_of_;   // [job]: its expected end in by_end_; none when not running
  std::vector<std::pair<std::int32_t, std::int32_t>> free_;
  std::vector<std::int32_t> touched_;
  std::uint64_t running_changes_ = 0;  // jobs started or stopped so far
  std::optional<Reservation> cached_;
  JobId cached_head_ = 0;
  std::uint64_t cached_changes_ = 0, cached_room_ = 0;
};

}  // namespace acme
