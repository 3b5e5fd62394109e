#include "policies/common.h"

#include <algorithm>

#include "sim/error.h"

namespace acme {

PriorityRanking::PriorityRanking(Params& params) : by_type_(kJobTypeCount, 0.0) {
  const auto types = params.table("type_priority",
                                  {{"Pretrain", 4}, {"Debug", 3}, {"SFT", 2}, {"MLLM", 2}, {"Other", 1}, {"CPU", 1}, {"Eval", 0}},
                                  -1e6, 1e6, "priority of each job type; higher starts first (Acme: evaluation lowest)");
  for (const auto& [name, value] : types) {
    const auto t = parse_job_type(name);
    if (!t) throw InputError("policy.type_priority." + name + ": unknown job type");
    by_type_[static_cast<std::size_t>(*t)] = value;
  }
  for (const auto& [user, value] : params.table("user_priority", {}, -1e6, 1e6, "added to the priority of a user's jobs"))
    by_user_[user] = value;
  aging_per_hour_ = params.number("aging_per_hour", 0, 0, 1e6, "priority gained per hour of waiting");
}

double PriorityRanking::priority_of(const SchedulingPass& pass, JobId job) const {
  double p = by_type_[static_cast<std::size_t>(pass.request(job).type)];
  if (!by_user_.empty())
    if (auto it = by_user_.find(std::string(pass.user_name(job))); it != by_user_.end()) p += it->second;
  return p;
}

double PriorityRanking::key(const SchedulingPass& pass, JobId job) const {
  const double submit_h = static_cast<double>(pass.request(job).submit.sec()) / 3600.0;
  return -(priority_of(pass, job) - aging_per_hour_ * submit_h);
}

bool start_by_preempting(SchedulingPass& pass, JobId job, const std::vector<JobId>& victims,
                         SchedulingPass::Preempt how) {
  if (victims.empty()) return false;
  const JobRequest& r = pass.request(job);
  const Cluster& c = pass.cluster();
  const std::int32_t gpus = even_share(r.gpu_num, r.node_num, 0), cpus = even_share(r.cpu_num, r.node_num, 0);
  const int ready = c.count_nodes_with_room(gpus, cpus, r.node_num);

  struct Node {
    std::int32_t free_gpus, free_cpus;
    std::vector<JobId> victims;  // on this node, in order of preference
  };
  std::unordered_map<std::int32_t, Node> nodes;
  for (JobId v : victims)
    for (const NodeShare& s : pass.placement_of(v)) {
      auto [it, added] = nodes.try_emplace(s.node, Node{c.free_gpus_on(s.node), c.free_cpus_on(s.node), {}});
      it->second.victims.push_back(v);
    }
  // Each node without room: the victims to stop to open it, and the GPUs that costs.
  struct Opening {
    std::int64_t cost;
    std::int32_t node;
    std::size_t stop;  // how many of the node's victims
  };
  std::vector<Opening> openings;
  for (auto& [id, n] : nodes) {
    if (n.free_gpus >= gpus && n.free_cpus >= cpus) continue;  // counted in `ready`
    std::int32_t g = n.free_gpus, k = n.free_cpus;
    std::int64_t cost = 0;
    std::size_t i = 0;
    while (i < n.victims.size() && (g < gpus || k < cpus)) {
      for (const NodeShare& s : pass.placement_of(n.victims[i]))
        if (s.node == id) g += s.gpus, k += s.cpus, cost += s.gpus;
      ++i;
    }
    if (g >= gpus && k >= cpus) openings.push_back({cost, id, i});
  }
  if (ready + static_cast<std::int64_t>(openings.size()) < r.node_num) return false;
  std::sort(openings.begin(), openings.end(),
            [](const Opening& a, const Opening& b) { return a.cost != b.cost ? a.cost < b.cost : a.node < b.node; });
  std::vector<JobId> stop;
  for (std::size_t o = 0; o + ready < static_cast<std::size_t>(r.node_num); ++o) {
    const Node& n = nodes.at(openings[o].node);
    stop.insert(stop.end(), n.victims.begin(), n.victims.begin() + static_cast<std::ptrdiff_t>(openings[o].stop));
  }
  std::sort(stop.begin(), stop.end());
  stop.erase(std::unique(stop.begin(), stop.end()), stop.end());
  for (JobId v : stop) pass.preempt(v, how);
  return pass.try_start(job);
}

void drop_withdrawn(const SchedulingPass& pass, JobQueue& queue) {
  while (!queue.empty() && !pass.is_pending(queue.begin()->job)) queue.erase(queue.begin());
}

}  // namespace acme
