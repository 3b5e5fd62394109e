#include "policies/qos_limits.h"

#include <algorithm>

namespace acme {

QosLimits::QosLimits(Params& params) {
  struct Table {
    const char* key;
    Kind kind;
    const char* doc;
  };
  static constexpr Table kTables[] = {
      {"type_gpu_limit", kTypeGpus,
       "most GPUs all running jobs of a type hold (QOS GrpTRES; 0: none; a larger job starts when none runs)"},
      {"type_job_limit", kTypeJobs, "most jobs of a type running at once (QOS GrpJobs; 0: none)"},
      {"user_gpu_limit", kUserGpus,
       "most GPUs one user's running jobs of a type hold (QOS MaxTRESPerUser; 0: none; a larger job starts when "
       "none runs)"},
      {"user_job_limit", kUserJobs, "most jobs of a type one user runs at once (QOS MaxJobsPerUser; 0: none)"},
  };
  for (const Table& table : kTables) {
    const auto values = params.type_table(table.key, {{"Eval", 0}}, 0, 1e9, table.doc);
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      limit_[table.kind][t] = static_cast<std::int64_t>(values[t].value_or(0.0));
      if (limit_[table.kind][t] > 0) kinds_set_[t] |= 1u << table.kind;
    }
  }
  use_.assign(kJobTypeCount * kKinds, 0);  // every per-type key
}

std::array<QosLimits::Key, QosLimits::kKinds> QosLimits::keys_of(std::uint32_t user, JobType type) {
  return {key(kTypeGpus, user, type), key(kTypeJobs, user, type), key(kUserGpus, user, type),
          key(kUserJobs, user, type)};
}

std::uint64_t QosLimits::tag_of(const JobRequest& r) const {
  const auto t = static_cast<std::size_t>(r.type);
  if (!limits(r.type)) return 0;
  const std::uint64_t user = has_user_limit(t) ? std::uint64_t{r.user} + 1 : 0;
  return 1 + t + kJobTypeCount * user;
}

void QosLimits::charge(std::uint32_t user, JobType type, std::int64_t gpus, int sign) {
  const auto t = static_cast<std::size_t>(type);
  use_[key(kTypeGpus, user, type)] += sign * gpus;
  use_[key(kTypeJobs, user, type)] += sign;
  if (!has_user_limit(t)) return;
  const Key last = key(kUserJobs, user, type);
  if (last >= use_.size()) use_.resize(std::max(last + 1, 2 * use_.size()), 0);
  use_[key(kUserGpus, user, type)] += sign * gpus;
  use_[last] += sign;
}

}  // namespace acme
