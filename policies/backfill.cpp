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
    ++running_changes_;
    if (job < expected_.size() && expected_[job]) {
     ends_.erase({*expected_[job], job});
     expected_[job] = OptionalTime{};
    }
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
    std::optional<Reservation> res;  // made when the first candidate with room turns up
    std::int64_t spare = 0;
    std::size_t scanned = 0;
    const Cluster& cluster = pass.cluster();
    for (auto it = std::next(queue_.begin()); it != queue_.end() && scanned < depth_; ++scanned) {
     const JobId j = it->job;
     if (!pass.is_pending(j)) {
       it = queue_.erase(it);  // withdrawn
       continue;
     }
     const JobRequest& r = pass.request(j);
     if (!cluster.fits_now(r)) {
       ++it;
       continue;
     }
     if (!res) {
       res = reservation(pass, head);
       spare = res->spare_gpus;
     }
     const Time estimate = pass.estimate(j);
     const bool ends_in_time = estimate > Time{} && pass.now() + estimate <= res->shadow;
     if ((ends_in_time || r.gpu_num <= spare) && pass.try_start(j)) {
       if (!ends_in_time) spare -= r.gpu_num;
       started(pass, j);
       it = queue_.erase(it);
     } else {
       ++it;
     }
    }
  }

 private:
  struct Reservation {
    Time shadow = Time::max();
    std::int64_t spare_gpus = 0;  // GPUs free at the shadow time beyond what the head needs
    bool no_room = false;         // no estimate frees room for the head: the shadow time is now
  };

  void started(const SchedulingPass& pass, JobId j) {
    gate_.changed();  // the reservation may differ with this job running
    ++running_changes_;
    const Time end = pass.expected_end(j);
    if (j >= expected_.size()) expected_.resize(std::max<std::size_t>(j + 1, 2 * expected_.size()));
    expected_[j] = end;
    ends_.insert({end, j});
  }

  // The head's reservation: the last one made if the head, the running jobs and the cluster's
  // room are the same as then (room that shrank with no job starting means a node went down, and
  // its jobs stopped first).
  Reservation reservation(const SchedulingPass& pass, JobId head) {
    const std::uint64_t room = pass.cluster().room_freed();
    if (!cached_ || cached_head_ != head || cached_changes_ != running_changes_ || cached_room_ != room) {
     cached_ = reserve(pass, head);
     cached_head_ = head;
     cached_changes_ = running_changes_;
     cached_room_ = room;
    }
    if (cached_->no_room) return Reservation{pass.now(), 0};
    return *cached_;
  }

  // Walks running jobs by expected end, freeing their GPUs and cores on a copy of the nodes they
  // use, until enough nodes have room for the head.
  Reservation reserve(const SchedulingPass& pass, JobId head) {
    const JobRequest& r = pass.request(head);
    const Cluster& c = pass.cluster();
    const std::int32_t gpus = even_share(r.gpu_num, r.node_num, 0), cpus = even_share(r.cpu_num, r.node_num, 0);
    // Free (GPUs, cores) of the nodes touched so far, on scratch space reset before returning.
    if (free_.size() != static_cast<std::size_t>(c.node_count())) free_.assign(static_cast<std::size_t>(c.node_count()), {-1, -1});
    auto free_on = [&](std::int32_t n) {
     const auto& f = free_[static_cast<std::size_t>(n)];
     return f.first >= 0 ? f : std::make_pair(c.free_gpus_on(n), c.free_cpus_on(n));
    };
    struct Reset {
     std::vector<std::pair<std::int32_t, std::int32_t>>& free;
     std::vector<std::int32_t>& touched;
     ~Reset() {
       for (auto n : touched) free[static_cast<std::size_t>(n)] = {-1, -1};
       touched.clear();
     }
    } reset{free_, touched_};
    std::int64_t fitting = c.count_nodes_with_room(gpus, cpus, r.node_num);  // nodes with room for a share
    std::int64_t free_gpus = c.free_gpus();
    Reservation res;
    for (auto it = ends_.begin(); it != ends_.end() && fitting < r.node_num; ++it) {
     for (const NodeShare& s : pass.placement_of(it->second)) {
       auto before = free_on(s.node);
       const bool was = before.first >= gpus && before.second >= cpus;
       before.first += s.gpus;
       before.second += s.cpus;
       if (free_[static_cast<std::size_t>(s.node)].first < 0) touched_.push_back(s.node);
       free_[static_cast<std::size_t>(s.node)] = before;
       fitting += !was && before.first >= gpus && before.second >= cpus;
     }
     free_gpus += pass.request(it->second).gpu_num;
     res.shadow = it->first;
    }
    if (fitting < r.node_num) return Reservation{Time::max(), 0, true};  // protect the head
    res.spare_gpus = free_gpus - r.gpu_num;
    return res;
  }

  bool by_priority_;
  PriorityRanking ranking_;
  std::size_t depth_;
  PassGate gate_;
  JobQueue queue_;
  std::vector<OptionalTime> expected_;  // [job]: a running job's expected end
  std::set<std::pair<Time, JobId>> ends_;
  std::vector<std::pair<std::int32_t, std::int32_t>> free_;
  std::vector<std::int32_t> touched_;
  std::uint64_t running_changes_ = 0;  // jobs started or stopped so far
  std::optional<Reservation> cached_;
  JobId cached_head_ = 0;
  std::uint64_t cached_changes_ = 0, cached_room_ = 0;
};

const PolicyRegistrar kBackfill({"backfill",
    "EASY backfill over FIFO or priority order, using run-time estimates (estimate.*), never "
    "true run times",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<BackfillPolicy>(params); }, 50});

}  // namespace

}  // namespace acme
