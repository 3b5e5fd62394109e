#include "policies/reservation.h"

#include <algorithm>

namespace acme {

void ShadowPlanner::started(const SchedulingPass& pass, JobId job) {
  ++running_changes_;
  if (job >= end_of_.size()) end_of_.resize(std::max<std::size_t>(job + 1, 2 * end_of_.size()));
  if (end_of_[job]) by_end_.erase({*end_of_[job], job});
  end_of_[job] = pass.expected_end(job);
  by_end_.emplace(*end_of_[job], job);
}

void ShadowPlanner::stopped(JobId job) {
  ++running_changes_;
  if (job >= end_of_.size() || !end_of_[job]) return;
  by_end_.erase({*end_of_[job], job});
  end_of_[job].reset();
}

// The last reservation made if the head, the running jobs and the cluster's room are the same as
// then (room that shrank with no job starting means a node went down, and its jobs stopped first).
ShadowPlanner::Reservation ShadowPlanner::reservation(const SchedulingPass& pass, JobId head) {
  const std::uint64_t room = pass.cluster().room_freed();
  if (!cached_ || cached_head_ != head || cached_changes_ != running_changes_ || cached_room_ != room) {
    cached_ = reserve(pass, head);
    cached_head_ = head;
    cached_changes_ = running_changes_;
    cached_room_ = room;
  }
  if (cached_->no_room) return Reservation{pass.now(), 0, false, cached_->open};
  return *cached_;
}

// Walks running jobs by expected end, freeing their GPUs and cores on a copy of the nodes they
// use, until enough nodes have room for the head.
ShadowPlanner::Reservation ShadowPlanner::reserve(const SchedulingPass& pass, JobId head) {
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
  const Cluster::NodeRange open = c.nodes_open_to(r);
  std::int64_t fitting = c.count_nodes_with_room(gpus, cpus, r.node_num, open);  // nodes with room for a share
  // GPUs free on the nodes open to the head: a job kept to another part of the cluster (the
  // nodes reserved for pretraining, or the rest) neither takes them nor frees them.
  std::int64_t free_gpus = c.free_gpus_in(open);
  Reservation res;
  // The running jobs by (expected end, job), only as far as the walk goes.
  for (auto next = by_end_.begin(); next != by_end_.end() && fitting < r.node_num; ++next) {
    const auto [end, job] = *next;
    for (const NodeShare& s : pass.placement_of(job)) {
      if (s.node < open.first || s.node >= open.last) continue;  // never counts for the head
      auto before = free_on(s.node);
      const bool was = before.first >= gpus && before.second >= cpus;
      before.first += s.gpus;
      before.second += s.cpus;
      if (free_[static_cast<std::size_t>(s.node)].first < 0) touched_.push_back(s.node);
      free_[static_cast<std::size_t>(s.node)] = before;
      fitting += !was && before.first >= gpus && before.second >= cpus;
      free_gpus += s.gpus;
    }
    res.shadow = end;
  }
  res.open = open;
  if (fitting < r.node_num) return Reservation{Time::max(), 0, true, open};  // protect the head
  res.spare_gpus = free_gpus - r.gpu_num;
  return res;
}

}  // namespace acme
