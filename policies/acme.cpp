// Acme: how Acme's clusters scheduled, as the baseline every what-if is read against.
//
// Seren ran Slurm and Kalos a Kubernetes-style platform; both are modeled by the mechanisms of
// a production LLM cluster, each a key (experiments/baseline/README.md derives the defaults):
//  - Priority: by job type (evaluation lowest) and user, with aging (PriorityRanking's keys).
//  - QOS limits (policies/qos_limits.h): on the GPUs and the jobs all running jobs of a type hold,
//    and one user's (type_gpu_limit, type_job_limit, user_gpu_limit, user_job_limit; 0: none, the
//    defaults). A job held back by a limit does not block the jobs behind it, as in Slurm; a job
//    larger than a limit starts when nothing else holds any of it.
//  - The main scheduler, at every pass: jobs in priority order until the first that does not fit,
//    for GPU and CPU jobs apart (partitions: a blocked GPU job does not hold back CPU jobs).
//  - The backfill scheduler, at multiples of backfill_interval_s while a job is blocked: up to
//    backfill_depth jobs behind it start if they fit and do not delay it (EASY, by estimates).
// The launch latency from placement to start is the platform's, not the policy's (launch.* keys,
// features/launch.h), and so are the nodes reserved for pretraining (capacity.reserved_*, held by the
// cluster's placement); configs/seren.yaml and kalos.yaml set Acme's.
// A limit never makes a job unrunnable: a job larger than a limit starts when nothing else
// holds any of it.
//
// A pass costs O(log q) per job started or held back; a backfill pass adds O(backfill_depth) and
// the reservation (policies/reservation.h). A pass after one that started nothing, with nothing
// arrived, stopped or freed, costs O(1); with only arrivals since, behind the same blocked job,
// its backfill looks at the arrivals only (the jobs queued then are as blocked as they were). A
// job a limit holds back waits out of the queue until a job that counts against that limit stops.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policies/common.h"
#include "policies/qos_limits.h"
#include "policies/registry.h"
#include "policies/reservation.h"
#include "policies/shaped_queue.h"

namespace acme {
namespace {

class AcmePolicy final : public Policy {
 public:
  explicit AcmePolicy(Params& params)
      : ranking_(params),
        limits_(params),
        interval_s_(static_cast<std::int64_t>(params.number(
            "backfill_interval_s", 30, 1, 86400, "seconds between backfill passes (Slurm's bf_interval)"))),
        depth_(static_cast<std::size_t>(params.number(
            "backfill_depth", 500, 1, 1e9, "jobs behind the first blocked one a backfill pass looks at (bf_max_job_test)"))) {}

  void on_queued(JobId job, const JobRequest&) override { gate_.arrived(job); }
  void on_withdrawn(JobId job) override {
    gate_.changed();
    for (ShapedQueue& queue : queues_) queue.withdrawn(job);
  }
  void on_stopped(JobId job) override {
    gate_.changed();
    planner_.stopped(job);
    if (const auto it = charged_.find(job); it != charged_.end()) {
      const Charge c = it->second;
      charged_.erase(it);
      limits_.charge(c.user, c.type, c.gpus, -1);
      for (const std::size_t key : QosLimits::keys_of(c.user, c.type))
        if (limits_.is_set(key) && held_back_.count(key)) freed_.push_back(key);
    }
  }
  bool reads_estimates() const override { return true; }

  void schedule(SchedulingPass& pass) override {
    const bool changed = gate_.open(pass);
    since_backfill_ = since_backfill_ || changed;
    // A backfill pass with nothing new since the last one would start nothing: time only brings
    // the shadow time closer.
    const bool backfill_due = since_backfill_ && pass.now().sec() % interval_s_ == 0;
    if (!changed && !backfill_due) return;
    if (backfill_due) since_backfill_ = false;
    arrived_.clear();
    for (JobId j : gate_.arrivals()) {
      arrived_.push_back({ranking_.key(pass, j), pass.request(j).submit, j});
      enqueue(pass, arrived_.back());
    }
    gate_.arrivals().clear();
    // Only arrivals since the last pass, which started nothing: the jobs queued then are as blocked
    // as they were, behind a head its backfill walked behind then (walked_before_).
    arrivals_only_ = changed && gate_.arrivals_only();
    walked_before_ = walked_;
    walked_ = {};
    for (const std::size_t key : freed_) readmit(pass, key);  // once every stop of this instant is in
    freed_.clear();

    started_now_ = false;
    bool waiting = false;
    for (ShapedQueue& queue : queues_) waiting = scan(pass, queue, backfill_due) || waiting;
    // The next backfill pass, while a blocked job has others behind it and something changed.
    if (waiting && (since_backfill_ || started_now_))
      pass.wake_at(Time::seconds((pass.now().sec() / interval_s_ + 1) * interval_s_));
  }

 private:
  // Back into the queue: the jobs the limit `key` held back, in queue order, as many as its
  // headroom now lets start (one that then does not is held back again). So a held job is looked
  // at when a job counting against its limit stops, not at every pass. Held jobs are grouped by
  // GPUs, so a readmission looks at the first of each group: O(sizes) a job readmitted or not,
  // however many are held.
  void readmit(const SchedulingPass& pass, std::size_t key) {
    const auto held = held_back_.find(key);
    if (held == held_back_.end()) return;
    const std::int64_t room = limits_.headroom(key);
    std::int64_t taken = 0;  // GPUs of the jobs readmitted so far, as if started
    while (room - taken > 0) {
      auto first = held->second.end();  // the group whose first job is the earliest that fits
      for (auto group = held->second.begin(); group != held->second.end(); ++group) {
        const bool fits = taken == 0 ? limits_.admits(key, group->first)
                                     : QosLimits::demand(key, group->first) <= room - taken;
        if (fits && (first == held->second.end() || *group->second.begin() < *first->second.begin()))
          first = group;
      }
      if (first == held->second.end()) break;
      taken += QosLimits::demand(key, first->first);
      --held_jobs_;
      enqueue(pass, *first->second.begin());
      first->second.erase(first->second.begin());
      if (first->second.empty()) held->second.erase(first);
    }
    if (held->second.empty()) held_back_.erase(held);
  }

  void enqueue(const SchedulingPass& pass, const QueueEntry& e) {
    const JobRequest& r = pass.request(e.job);
    queues_[r.gpu_num > 0].insert(pass, e, limits_.tag_of(r), pass.estimate(e.job));
  }
  void hold(std::size_t limit, const JobRequest& r, const QueueEntry& e) {
    held_back_[limit][r.gpu_num].insert(e);
    ++held_jobs_;
  }

  // One partition's queue: the main scheduler, and the backfill scheduler when due. Returns
  // whether a job is blocked while others wait (queued, or held back by a limit).
  bool scan(SchedulingPass& pass, ShapedQueue& queue, bool backfill_due) {
    std::optional<QueueEntry> head;  // the first job that does not fit
    Blocked& blocked = blocked_[&queue - queues_];
    while (!queue.empty()) {
      const QueueEntry first = queue.front();
      const JobRequest& r = pass.request(first.job);
      if (!pass.is_pending(first.job)) {
        queue.erase(first.job);  // withdrawn
      } else if (const auto limit = limits_.binding(r)) {
        hold(*limit, r, first);  // set aside until that limit frees (readmit)
        queue.erase(first.job);
      } else if (!blocked.still(pass, first.job) && start(pass, first.job)) {
        queue.erase(first.job);
      } else {
        head = first;
        blocked = {first.job, pass.cluster().room_freed()};
        break;
      }
    }
    if (head && backfill_due) {
      const std::size_t part = static_cast<std::size_t>(&queue - queues_);
      if (arrivals_only_ && !started_now_ && walked_before_[part] == *head) {
        backfill_arrivals(pass, queue, *head);
      } else {
        Walk walk(queue.rank(*head));
        backfill(pass, queue, *head, *head, walk);
      }
      walked_[part] = *head;
    }
    return head && queue.size() + held_jobs_ > 1;
  }

  // A backfill walk behind the blocked head: its rank, its reservation (made when the first
  // candidate with room turns up) and the jobs the walk started (out of the queue, but counted).
  struct Walk {
    explicit Walk(std::size_t rank) : head_rank(rank) {}
    std::size_t head_rank;
    std::optional<ShadowPlanner::Reservation> res;
    Time shorter;  // with res: the estimates that end before its shadow time
    std::size_t started = 0;
  };

  // The backfill scheduler: the jobs behind `head` in order (from `from` on), withdrawn ones and
  // those a limit binds set aside without being counted, until depth_ have been counted; each
  // that fits starts if it does not delay `head`. Only the groups that fit or that a limit binds
  // are walked (policies/shaped_queue.h): a job's count is its rank behind the head, once the jobs
  // set aside before it are out of the queue, plus the jobs this walk started. A start against a
  // limit asks again which groups it binds.
  void backfill(SchedulingPass& pass, ShapedQueue& queue, const QueueEntry& head, const QueueEntry& from, Walk& walk) {
    queue.walk(
        from, nullptr, [&](JobId j) { return wanted(pass, queue, j); },
        [&](JobId j) { return visit(pass, queue, head, walk, j); },
        walk.shorter);
  }

  // Whether a backfill walk visits the job's group: it fits now, or a limit binds it (to be held).
  bool wanted(const SchedulingPass& pass, ShapedQueue& queue, JobId j) const {
    return limits_.binding(pass.request(j)).has_value() || queue.fits_now(pass, j);
  }

  // The same walk when the last pass, behind the same head, started nothing and only jobs arrived
  // since: the jobs queued then are as blocked as they were (no more room, the same reservation,
  // time later, the same limits), so only the arrivals are visited, in queue order, each as the
  // walk would (a job of a group that neither fits nor is bound is one the walk passes over). A
  // start against a limit makes the walk ask again about every job after it: the walk goes on
  // from there in full.
  void backfill_arrivals(SchedulingPass& pass, ShapedQueue& queue, const QueueEntry& head) {
    using Step = ShapedQueue::Step;
    Walk walk(queue.rank(head));
    std::sort(arrived_.begin(), arrived_.end());  // queue order
    for (const QueueEntry& e : arrived_) {
      if (!(head < e) || !queue.contains(e.job)) continue;  // ahead of the head, started or held back
      if (!wanted(pass, queue, e.job)) continue;
      const Step step = visit(pass, queue, head, walk, e.job);
      if (step == Step::Stop) return;
      if (step == Step::Take || step == Step::Retake) queue.erase(e.job);
      if (step == Step::Retake) return backfill(pass, queue, head, e, walk);
    }
  }

  // One job of a backfill walk (ShapedQueue::walk's visit).
  ShapedQueue::Step visit(SchedulingPass& pass, ShapedQueue& queue, const QueueEntry& head, Walk& walk, JobId j) {
    using Step = ShapedQueue::Step;
    const QueueEntry& e = queue.entry_of(j);
    const std::size_t counted_before = queue.rank(e) - walk.head_rank - 1 + walk.started;
    if (counted_before > depth_) return Step::Stop;
    if (!pass.is_pending(j)) return Step::Take;
    const JobRequest& r = pass.request(j);
    if (const auto limit = limits_.binding(r)) {
      hold(*limit, r, e);
      return Step::Take;
    }
    if (counted_before + 1 > depth_) return Step::Stop;
    if (!queue.fits_now(pass, j)) return Step::Leave;
    if (!walk.res) {
      walk.res = planner_.reservation(pass, head.job);
      walk.shorter = walk.res->shadow - pass.now();
    }
    // Not allowed: neither are the jobs of its group with longer estimates (its shape and limits
    // decide the rest, and room only shrinks in a pass).
    if (!ShadowPlanner::may_backfill(pass, j, *walk.res)) return Step::Shorter;
    if (!start(pass, j)) return Step::Keep;
    ShadowPlanner::backfilled(pass, j, *walk.res);
    ++walk.started;
    return limits_.tag_of(r) != 0 ? Step::Retake : Step::Take;
  }

  bool start(SchedulingPass& pass, JobId j) {
    if (!pass.try_start(j)) return false;
    const JobRequest& r = pass.request(j);
    gate_.changed();
    started_now_ = true;
    planner_.started(pass, j);
    if (limits_.limits(r.type)) {
      charged_[j] = {r.gpu_num, r.user, r.type};
      limits_.charge(r.user, r.type, r.gpu_num, 1);
    }
    return true;
  }

  PriorityRanking ranking_;
  QosLimits limits_;
  std::int64_t interval_s_;
  std::size_t depth_;

  // The job a partition's main scheduler last found no room for, and the cluster's room_freed()
  // then: while neither changed, it still finds none (room only shrank), so it is not placed again.
  struct Blocked {
    JobId job = 0;
    std::uint64_t room = ~std::uint64_t{0};
    bool still(const SchedulingPass& pass, JobId j) const { return j == job && pass.cluster().room_freed() == room; }
  };

  PassGate gate_;
  Blocked blocked_[2];
  ShapedQueue queues_[2];  // pending jobs by priority: CPU jobs, GPU jobs (Slurm's partitions)
  // Pending jobs a QOS limit holds back, by the limit's key and then by GPUs, out of the queue.
  std::unordered_map<std::size_t, std::map<std::int32_t, JobQueue>> held_back_;
  std::vector<std::size_t> freed_;      // keys of limits a stop freed since the last pass
  std::size_t held_jobs_ = 0;           // in held_back_
  bool since_backfill_ = false;  // anything changed since the last backfill pass
  bool started_now_ = false;     // the pass under way started a job
  bool arrivals_only_ = false;   // the pass under way comes after one that started nothing, with only arrivals since
  std::vector<QueueEntry> arrived_;  // the pass's arrivals
  // Each partition's head its last pass's backfill walked behind, and the pass before's.
  std::array<std::optional<QueueEntry>, 2> walked_, walked_before_;
  ShadowPlanner planner_;
  struct Charge {  // what a job the policy started counts against its limits
    std::int32_t gpus = 0;
    std::uint32_t user = 0;
    JobType type = JobType::CPU;
  };
  std::unordered_map<JobId, Charge> charged_;  // the running jobs of types with limits: memory by running jobs, not ids
};

const PolicyRegistrar kAcme({"acme",
    "how Acme scheduled, the baseline: type priority, QOS limits per type and user, a main scheduler and a "
    "backfill scheduler every interval (configs/seren.yaml and kalos.yaml add Acme's reservation, cap and launch)",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<AcmePolicy>(params); }, 5});

}  // namespace

}  // namespace acme
