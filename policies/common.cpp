#include "policies/common.h"

#include <algorithm>


namespace acme {

PriorityRanking::PriorityRanking(Params& params) : by_type_(kJobTypeCount, 0.0) {
  const auto types = params.type_table("type_priority",
                                       {{"Pretrain", 4}, {"Debug", 3}, {"SFT", 2}, {"MLLM", 2}, {"Other", 1}, {"CPU", 1}, {"Eval", 0}},
                                       -1e6, 1e6, "priority of each job type; higher starts first (Acme: evaluation lowest)");
  for (std::size_t t = 0; t < kJobTypeCount; ++t) by_type_[t] = types[t].value_or(0.0);
  for (const auto& [user, value] : params.table("user_priority", {}, -1e6, 1e6, "added to the priority of a user's jobs", 0))
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

namespace {

// A running victim's hold on one node.
struct Share {
  std::int32_t node;
  std::uint32_t rank;  // the victim's place in the victims' list
  std::int32_t gpus, cpus;
  JobId victim;
};

// `in` (in rank order) into `out` by node, then rank; `nodes`: the cluster's.
void sort_by_node(const std::vector<Share>& in, int nodes, std::vector<Share>& out) {
  if (in.size() * 16 < static_cast<std::size_t>(nodes)) {
    out.assign(in.begin(), in.end());
    std::sort(out.begin(), out.end(), [](const Share& a, const Share& b) { return a.node != b.node ? a.node < b.node : a.rank < b.rank; });
    return;
  }
  out.resize(in.size());
  thread_local std::vector<std::uint32_t> at;  // where each node's shares go
  at.assign(static_cast<std::size_t>(nodes) + 1, 0);
  for (const Share& s : in) ++at[static_cast<std::size_t>(s.node) + 1];
  for (std::size_t n = 1; n < at.size(); ++n) at[n] += at[n - 1];
  for (const Share& s : in) out[at[static_cast<std::size_t>(s.node)]++] = s;
}

}  // namespace

bool start_by_preempting(SchedulingPass& pass, JobId job, const std::vector<JobId>& victims,
                         SchedulingPass::Preempt how) {
  if (victims.empty()) return false;
  const JobRequest& r = pass.request(job);
  const Cluster& c = pass.cluster();
  // Not even every victim stopped would free enough GPUs: nothing to plan.
  std::int64_t could_free = c.free_gpus();
  for (JobId v : victims) could_free += pass.request(v).gpu_num;
  if (could_free < r.gpu_num) return false;
  const std::int32_t gpus = even_share(r.gpu_num, r.node_num, 0), cpus = even_share(r.cpu_num, r.node_num, 0);
  const Cluster::NodeRange open = c.nodes_open_to(r);
  const int ready = c.count_nodes_with_room(gpus, cpus, r.node_num, open);

  // Every (node, victim) share, by node, each node's victims in order of preference: they come
  // in victim order, and a counting sort by node keeps it (O(shares + nodes); a comparison sort
  // when the shares are few against the nodes). Scratch space kept between calls: a pass plans
  // without allocating once warm.
  thread_local std::vector<Share> pushed, shares;
  pushed.clear();
  for (std::uint32_t i = 0; i < victims.size(); ++i)
    for (const NodeShare& s : pass.placement_of(victims[i]))
      if (s.node >= open.first && s.node < open.last) pushed.push_back({s.node, i, s.gpus, s.cpus, victims[i]});
  // Each node opened holds a victim's share: too few shares, too few nodes (and no sort).
  if (ready + static_cast<std::int64_t>(pushed.size()) < r.node_num) return false;
  sort_by_node(pushed, c.node_count(), shares);
  // Each node without room: the victims to stop to open it (a run of `shares`), and the GPUs that costs.
  struct Opening {
    std::int64_t cost;
    std::int32_t node;
    std::size_t first, stop;  // shares[first, first + stop)
  };
  thread_local std::vector<Opening> openings;
  openings.clear();
  for (std::size_t begin = 0, end = 0; begin < shares.size(); begin = end) {
    const std::int32_t node = shares[begin].node;
    for (end = begin; end < shares.size() && shares[end].node == node; ++end) {
    }
    std::int32_t g = c.free_gpus_on(node), k = c.free_cpus_on(node);
    if (g >= gpus && k >= cpus) continue;  // counted in `ready`
    std::int64_t cost = 0;
    std::size_t i = begin;
    for (; i < end && (g < gpus || k < cpus); ++i) g += shares[i].gpus, k += shares[i].cpus, cost += shares[i].gpus;
    if (g >= gpus && k >= cpus) openings.push_back({cost, node, begin, i - begin});
  }
  if (ready + static_cast<std::int64_t>(openings.size()) < r.node_num) return false;
  // The cheapest nodes to open, by (cost, node): which, not in what order (their victims are
  // sorted below), so a selection rather than a sort.
  const std::size_t wanted = ready < r.node_num ? static_cast<std::size_t>(r.node_num - ready) : 0;
  if (wanted > 0)
    std::nth_element(openings.begin(), openings.begin() + static_cast<std::ptrdiff_t>(wanted - 1), openings.end(),
                     [](const Opening& a, const Opening& b) { return a.cost != b.cost ? a.cost < b.cost : a.node < b.node; });
  std::vector<JobId> stop;
  for (std::size_t o = 0; o < wanted; ++o)
    for (std::size_t i = 0; i < openings[o].stop; ++i) stop.push_back(shares[openings[o].first + i].victim);
  std::sort(stop.begin(), stop.end());
  stop.erase(std::unique(stop.begin(), stop.end()), stop.end());
  for (JobId v : stop) pass.preempt(v, how);
  return pass.try_start(job);
}

void drop_withdrawn(const SchedulingPass& pass, JobQueue& queue) {
  while (!queue.empty() && !pass.is_pending(queue.begin()->job)) queue.erase(queue.begin());
}

}  // namespace acme
