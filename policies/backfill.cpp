// EASY backfill over FIFO or priority order (policy.order).
//
// Jobs start in order while they fit. When the first one does not, it gets a reservation: the
// earliest time (the shadow time) at which, by the running jobs' estimated ends, enough nodes
// will have room for it. Later jobs, up to policy.depth of them, may then start now if they
// fit and either end (by their estimate) before the shadow time or use only GPUs the reserved
// job will not need then. Estimates are the users' (estimate.* in the configuration);
// a job without one never ends before the shadow time. True run times are never used.
//
// A pass costs O(log q) per job started, plus O(r) for the shadow time over r running jobs and,
// for the backfill scan, O(g) over the g shapes queued plus O(log q) per job of the window whose
// shape fits (policies/shaped_queue.h): the jobs that cannot fit are never looked at. The shadow
// time is kept until the head, the running jobs or the free room change. A pass after one that
// started nothing, with no arrival, withdrawal or freed room between them, costs O(1).
#include <algorithm>
#include <optional>
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"
#include "policies/reservation.h"
#include "policies/shaped_queue.h"

namespace acme {
namespace {

class BackfillPolicy final : public Policy {
 public:
  explicit BackfillPolicy(Params& params)
      : by_priority_(params.choice("order", "fifo", {"fifo", "priority"}, "queue order: fifo or priority") == "priority"),
        ranking_(params),
        depth_(static_cast<std::size_t>(params.number("depth", 256, 1, 1e9, "jobs behind the first blocked one "
                                                                                "considered for backfill per pass"))) {}

  void on_queued(JobId job, const JobRequest&) override { gate_.arrived(job); }
  void on_withdrawn(JobId job) override {
    gate_.changed();
    queue_.withdrawn(job);
  }
  void on_stopped(JobId job) override {
    gate_.changed();
    planner_.stopped(job);
  }

  bool reads_estimates() const override { return true; }

  void schedule(SchedulingPass& pass) override {
    // Nothing arrived, left, started or ended and no room came back since a pass that started
    // nothing: the same jobs are blocked (time only brings the shadow time closer).
    if (!gate_.open(pass)) return;
    const Cluster& cluster = pass.cluster();
    arrived_.clear();
    for (JobId j : gate_.arrivals()) {
      arrived_.push_back({by_priority_ ? ranking_.key(pass, j) : 0.0, pass.request(j).submit, j});
      queue_.insert(pass, arrived_.back(), 0, pass.estimate(j));
    }
    gate_.arrivals().clear();
    bool same_head = gate_.arrivals_only();
    for (queue_.drop_withdrawn_front(pass); !queue_.empty(); queue_.drop_withdrawn_front(pass)) {
      const JobId head = queue_.front().job;
      if (!pass.try_start(head)) break;
      started(pass, head);
      queue_.erase(head);
      same_head = false;
    }
    if (queue_.empty()) return;
    const QueueEntry head = queue_.front();
    same_head = same_head && head == last_head_;
    last_head_ = head;
    // The window: the depth_ jobs behind the head. After a pass that started nothing, with only
    // arrivals since and the same head, the jobs that were queued then are as blocked as they were
    // (no more room, the same reservation, time later): only the arrivals are looked at. Else
    // every job of the window whose shape fits.
    std::optional<ShadowPlanner::Reservation> res;  // made when the first candidate with room turns up
    Time shorter;  // with res: the estimates that end before its shadow time
    using Step = ShapedQueue::Step;
    const auto try_backfill = [&](JobId j) {
      if (!res) {
        res = planner_.reservation(pass, head.job);
        shorter = res->shadow - pass.now();
      }
      // Not allowed: neither are the jobs of its shape with longer estimates (room only shrinks).
      if (!ShadowPlanner::may_backfill(pass, j, *res)) return Step::Shorter;
      if (!pass.try_start(j)) return Step::Keep;
      ShadowPlanner::backfilled(pass, j, *res);
      started(pass, j);
      return Step::Take;
    };
    const QueueEntry* end = queue_.nth(depth_ + 1);
    if (!same_head) return queue_.visit_fitting(pass, head, end, try_backfill, shorter);
    std::sort(arrived_.begin(), arrived_.end());
    for (const QueueEntry& e : arrived_) {
      if (end && !(e < *end)) break;
      if (head < e && cluster.fits_now(pass.request(e.job)) && try_backfill(e.job) == Step::Take)
        queue_.erase(e.job);
    }
  }

 private:
  void started(const SchedulingPass& pass, JobId j) {
    gate_.changed();  // the reservation may differ with this job running
    planner_.started(pass, j);
  }

  bool by_priority_;
  PriorityRanking ranking_;
  std::size_t depth_;
  PassGate gate_;
  ShapedQueue queue_;
  std::vector<QueueEntry> arrived_;  // the pass's arrivals
  QueueEntry last_head_;             // the first blocked job of the last pass
  ShadowPlanner planner_;
};

const PolicyRegistrar kBackfill({"backfill",
    "EASY backfill over FIFO or priority order, using run-time estimates (estimate.*), never "
    "true run times",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<BackfillPolicy>(params); }, 50});

}  // namespace

}  // namespace acme
