// Greedy: every pass walks the queue oldest first and starts each job that fits now. A blocked
// job keeps its place but does not hold back the jobs behind it (no reservation, so a large job
// may wait long). This is how `replay: recorded` places jobs that the modeled cluster could not
// start at their recorded time.
//
// The queue is kept as groups of one shape (policies/shape.h), each oldest first. A pass merges
// the groups whose first job fits, oldest job first, and drops a group at its first job that does
// not fit: the same jobs start in the same order as a walk of the whole queue, since room only
// shrinks during a pass. When no room came back since the last pass, only the groups that gained
// a job are looked at: the others did not fit then and cannot now. A pass costs O(g log g) over
// the g shapes it looks at, plus O(log g) per job started or dropped as withdrawn; never O(queue).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "policies/registry.h"
#include "policies/shape.h"

namespace acme {
namespace {

class GreedyPolicy final : public Policy {
 public:
  void on_queued(JobId job, const JobRequest&) override { arrivals_.push_back(job); }

  void schedule(SchedulingPass& pass) override {
    const Cluster& cluster = pass.cluster();
    const bool room_back = cluster.room_freed() != room_seen_;
    room_seen_ = cluster.room_freed();
    for (JobId j : arrivals_) {
      const auto group = groups_.try_emplace(Shape::of(cluster, pass.request(j))).first;
      group->second.jobs.push_back({next_++, j});
      if (!group->second.touched) touched_.push_back(group), group->second.touched = true;
    }
    arrivals_.clear();
    if (room_back) {
      touched_.clear();
      for (auto group = groups_.begin(); group != groups_.end(); ++group) touched_.push_back(group);
    }
    start_in_order(pass);
  }

 private:
  struct Group {
    std::deque<std::pair<std::uint64_t, JobId>> jobs;  // (place in the queue, job), oldest first
    bool touched = false;                              // gained a job since the last pass
  };
  using GroupRef = std::map<Shape, Group>::iterator;

  using Head = std::pair<std::uint64_t, GroupRef>;  // (place of the group's first job, group)
  static bool later(const Head& a, const Head& b) { return a.first > b.first; }
  // A min-heap of heads_ by place (kept between passes for its memory).
  void push_head(const Head& h) {
    heads_.push_back(h);
    std::push_heap(heads_.begin(), heads_.end(), later);
  }

  // Starts every job of the touched groups that fits, oldest first; clears touched_.
  void start_in_order(SchedulingPass& pass) {
    const Cluster& cluster = pass.cluster();
    heads_.clear();
    for (GroupRef group : touched_) {
      group->second.touched = false;
      if (!drop_withdrawn(pass, group->second))
        groups_.erase(group);
      else if (group->first.fits_now(cluster))
        push_head({group->second.jobs.front().first, group});
    }
    touched_.clear();
    while (!heads_.empty()) {
      std::pop_heap(heads_.begin(), heads_.end(), later);
      const GroupRef group = heads_.back().second;
      heads_.pop_back();
      std::deque<std::pair<std::uint64_t, JobId>>& jobs = group->second.jobs;
      if (!pass.try_start(jobs.front().second)) continue;  // no room left for this shape
      jobs.pop_front();
      if (drop_withdrawn(pass, group->second)) {
        if (group->first.fits_now(cluster)) push_head({jobs.front().first, group});
      } else {
        groups_.erase(group);
      }
    }
  }

  // Drops the group's first jobs while they are no longer pending; whether any job is left.
  static bool drop_withdrawn(const SchedulingPass& pass, Group& group) {
    while (!group.jobs.empty() && !pass.is_pending(group.jobs.front().second)) group.jobs.pop_front();
    return !group.jobs.empty();
  }

  std::vector<JobId> arrivals_;     // queued since the last pass
  std::map<Shape, Group> groups_;   // pending jobs by shape
  std::vector<GroupRef> touched_;   // groups to look at in the next pass
  std::vector<Head> heads_;         // start_in_order's heap
  std::uint64_t next_ = 0;          // the next place in the queue
  std::uint64_t room_seen_ = ~std::uint64_t{0};  // Cluster::room_freed() at the last pass
};

const PolicyRegistrar kGreedy({"greedy",
    "start every pending job that fits, oldest first; later jobs may overtake a blocked one "
    "(the scheduler of replay: recorded)",
    [](Params&) -> std::unique_ptr<Policy> { return std::make_unique<GreedyPolicy>(); }, 20});

}  // namespace

}  // namespace acme
