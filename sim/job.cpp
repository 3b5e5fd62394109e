#include "sim/job.h"

#include <stdexcept>
#include <string>

namespace acme {

std::optional<JobType> parse_job_type(std::string_view s) {
  for (std::size_t i = 0; i < kJobTypeCount; ++i)
    if (kJobTypeNames[i] == s) return static_cast<JobType>(i);
  return std::nullopt;
}

std::optional<JobState> parse_job_state(std::string_view s) {
  for (std::size_t i = 0; i < kJobStateCount; ++i)
    if (kJobStateNames[i] == s) return static_cast<JobState>(i);
  return std::nullopt;
}

bool is_failure(JobState s) {
  return s == JobState::Failed || s == JobState::Timeout || s == JobState::NodeFail;
}

std::uint32_t StringTable::add(std::string_view s) {
  blob_.append(s);
  offsets_.push_back(static_cast<std::uint32_t>(blob_.size()));
  return static_cast<std::uint32_t>(offsets_.size() - 2);
}

std::uint32_t UserTable::intern(std::string_view name) {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  const std::uint32_t id = names_.add(name);
  index_.emplace(std::string(name), id);
  return id;
}

JobId Workload::add(std::string_view job_name, const JobRequest& r, const JobProfile& p) {
  names.add(job_name);
  requests.push_back(r);
  profiles.push_back(p);
  if (!after.empty()) after.push_back(kNoJob);
  return static_cast<JobId>(requests.size() - 1);
}

JobId Workload::add_after(JobId predecessor, std::string_view job_name, const JobRequest& r, const JobProfile& p) {
  if (predecessor >= requests.size())
    throw std::logic_error("Workload::add_after: job " + std::to_string(predecessor) + " is not in the workload yet");
  if (after.empty()) after.assign(requests.size(), kNoJob);
  const JobId job = add(job_name, r, p);
  after[job] = predecessor;
  return job;
}

}  // namespace acme
