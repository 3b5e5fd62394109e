#include "policies/common.h"

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
  const JobRequest& r = pass.request(job);
  std::int64_t gpus = pass.cluster().free_gpus(), cpus = pass.cluster().free_cpus();
  for (JobId v : victims) {
    gpus += pass.request(v).gpu_num;
    cpus += pass.request(v).cpu_num;
  }
  if (gpus < r.gpu_num || cpus < r.cpu_num) return false;
  for (JobId v : victims) {
    pass.preempt(v, how);
    if (pass.try_start(job)) return true;
  }
  return false;
}

void drop_withdrawn(const SchedulingPass& pass, JobQueue& queue) {
  while (!queue.empty() && !pass.is_pending(queue.begin()->job)) queue.erase(queue.begin());
}

}  // namespace acme
