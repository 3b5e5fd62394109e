// The Simulation (sim/simulation.h): the end of a run, and its conservation check.
#include "sim/simulation.h"

#include <stdexcept>
#include <string>

namespace acme {

void Simulation::free_run_state() {
  std::unordered_map<JobId, Run>().swap(restarted_);
  std::vector<bool>().swap(in_restarted_);
  std::vector<CurrentRun>().swap(current_);
  std::vector<Time>().swap(estimates_);
  std::vector<std::uint32_t>().swap(slot_);
  std::vector<Placement>().swap(held_);
  std::vector<JobId>().swap(held_by_);
  std::vector<std::uint32_t>().swap(free_slots_);
  std::vector<JobId>().swap(release_order_);
  std::vector<std::uint32_t>().swap(followers_begin_);
  std::vector<JobId>().swap(followers_);
}

Conservation Simulation::check_conservation() const {
  Conservation c;
  c.jobs = workload_.size();
  c.ended = ended_;
  c.integral_gpu_seconds = allocated_integral_;
  c.wasted_by_cause = wasted_;
  c.causes_listed = causes_listed_;
  std::int64_t wasted_jobs = 0;
  for (std::size_t i = 0; i < status_.size(); ++i) {
    wasted_jobs += outcomes_[i].wasted_gpu_seconds;
    if (status_[i] != Status::Ended)
      throw std::logic_error("conservation: job " + std::string(workload_.names[static_cast<std::uint32_t>(i)]) +
                             " never ended (the policy left it pending with nothing left to happen)");
    c.job_gpu_seconds += outcomes_[i].gpu_seconds;
  }
  if (c.ended != c.jobs)
    throw std::logic_error("conservation: " + std::to_string(c.ended) + " job ends for " +
                           std::to_string(c.jobs) + " jobs");
  if (cluster_.allocated_gpus() != 0)
    throw std::logic_error("conservation: " + std::to_string(cluster_.allocated_gpus()) +
                           " GPUs still allocated at the end of the run");
  if (cluster_.allocated_cpus() != 0)
    throw std::logic_error("conservation: " + std::to_string(cluster_.allocated_cpus()) +
                           " CPU cores still allocated at the end of the run");
  for (const auto& f : features_) f->check_conservation();
  std::int64_t wasted_causes = 0;
  for (auto w : wasted_) wasted_causes += w;
  if (wasted_jobs != wasted_causes || wasted_jobs > c.job_gpu_seconds)
    throw std::logic_error("conservation: wasted GPU-seconds by job (" + std::to_string(wasted_jobs) +
                           ") and by cause (" + std::to_string(wasted_causes) + ") disagree");
  if (c.job_gpu_seconds != c.integral_gpu_seconds)
    throw std::logic_error("conservation: jobs hold " + std::to_string(c.job_gpu_seconds) +
                           " GPU-seconds but the allocation integral is " +
                           std::to_string(c.integral_gpu_seconds));
  return c;
}

}  // namespace acme
