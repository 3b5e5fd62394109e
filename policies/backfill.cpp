// EASY backfill over FIFO or priority order (policy.order).
//
// Jobs start in order while they fit. When the first one does not, it gets a reservation: the
// earliest time (the shadow time) at which, by the running jobs' estimated ends, enough nodes
// will have room for it. Later jobs, up to policy.depth of them, may then start now if they
// fit and either end (by their estimate) before the shadow time or use only GPUs the reserved
// job will not need then. Estimates are the users' (estimate.* in the configuration);
// a job without one never ends before the shadow time. True run times are never used.
//
// A pass costs O(log q) per job started, plus O(r) for the shadow time over r running jobs and
// O(depth) for the backfill scan: the whole queue is never rescanned. The shadow time is kept
// until the head, the running jobs or the free room change. A pass after one that started
// nothing, with no arrival, withdrawal or freed room between them, costs O(1).
#include <optional>
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"
#include "policies/reservation.h"

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
  void on_withdrawn(JobId) override { gate_.changed(); }
  void on_stopped(JobId job) override {
    gate_.changed();
    planner_.stopped(job);
  }

  bool reads_estimates() const override { return true; }

  void schedule(SchedulingPass& pass) override {
    // Nothing arrived, left, started or ended and no room came back since a pass that started
    // nothing: the same jobs are blocked (time only brings the shadow time closer).
    if (!gate_.open(pass)) return;
    for (JobId j : gate_.arrivals())
      queue_.insert({by_priority_ ? ranking_.key(pass, j) : 0.0, pass.request(j).submit, j});
    gate_.arrivals().clear();
    for (drop_withdrawn(pass, queue_); !queue_.empty(); drop_withdrawn(pass, queue_)) {
      if (!pass.try_start(queue_.begin()->job)) break;
      started(pass, queue_.begin()->job);
      queue_.erase(queue_.begin());
    }
    if (queue_.empty()) return;
    const JobId head = queue_.begin()->job;
    std::optional<ShadowPlanner::Reservation> res;  // made when the first candidate with room turns up
    std::size_t scanned = 0;
    const Cluster& cluster = pass.cluster();
    for (auto it = std::next(queue_.begin()); it != queue_.end() && scanned < depth_; ++scanned) {
      const JobId j = it->job;
      if (!pass.is_pending(j)) {
        it = queue_.erase(it);  // withdrawn
        continue;
      }
      if (!cluster.fits_now(pass.request(j))) {
        ++it;
        continue;
      }
      if (!res) res = planner_.reservation(pass, head);
      if (ShadowPlanner::may_backfill(pass, j, *res) && pass.try_start(j)) {
        ShadowPlanner::backfilled(pass, j, *res);
        started(pass, j);
        it = queue_.erase(it);
      } else {
        ++it;
      }
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
  JobQueue queue_;
  ShadowPlanner planner_;
};

const PolicyRegistrar kBackfill({"backfill",
    "EASY backfill over FIFO or priority order, using run-time estimates (estimate.*), never "
    "true run times",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<BackfillPolicy>(params); }, 50});

}  // namespace

}  // namespace acme
