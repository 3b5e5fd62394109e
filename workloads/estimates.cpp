#include "workloads/estimates.h"

#include <algorithm>
#include <cmath>

#include "sim/error.h"
#include "sim/random.h"

namespace acme {

Estimator::Estimator(Params& params, std::uint64_t seed)
    : model_(model_of(params.choice("model", "noisy", {"noisy", "limit", "recorded", "percentile", "none"},
                                    "how run-time estimates are made: noisy, limit, recorded, percentile or none"))),
      factor_(params.number("factor", 2.0, 0.01, 1e6, "noisy: mean overestimate factor")),
      sigma_(params.number("sigma", 0.5, 0, 10, "noisy: log-normal scatter of the factor")),
      percentile_(params.number("percentile", 90, 0, 100, "percentile: which percentile of the type's run times")),
      stream_(mix64(seed ^ 0x65737469'6d617465ULL)) {  // "estimate": apart from the workload's
  const auto limits = params.table("limit_h",
                                   {{"CPU", 24}, {"Eval", 24}, {"Pretrain", 336}, {"SFT", 72}, {"MLLM", 72},
                                    {"Debug", 12}, {"Other", 72}},
                                   0.001, 1e6, "limit: per-type limit, hours (recorded: of a job that records none)");
  params.check_all_used();
  if (model_ != Model::Limit && model_ != Model::Recorded) return;
  for (const auto& [name, hours] : limits) {
    const auto t = parse_job_type(name);
    if (!t) throw InputError("estimate.limit_h." + name + ": unknown job type");
    per_type_[static_cast<std::size_t>(*t)] = Time::seconds(static_cast<std::int64_t>(std::ceil(hours * 3600)));
  }
}

Estimator::Model Estimator::model_of(const std::string& name) {
  return name == "noisy"        ? Model::Noisy
         : name == "limit"      ? Model::Limit
         : name == "recorded"   ? Model::Recorded
         : name == "percentile" ? Model::Percentile
                                : Model::None;
}

std::vector<Time> Estimator::all(const Workload& w) {
  if (model_ == Model::Percentile) {
    std::array<std::vector<std::int64_t>, kJobTypeCount> runs;
    for (std::size_t i = 0; i < w.size(); ++i)
      runs[static_cast<std::size_t>(w.requests[i].type)].push_back(w.profiles[i].run.sec());
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      auto& v = runs[t];
      if (v.empty()) continue;
      const std::size_t rank =
          std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(percentile_ / 100.0 * static_cast<double>(v.size()))) -
                                     (percentile_ > 0 ? 1 : 0));
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
      per_type_[t] = Time::seconds(v[rank]);
    }
  }
  std::vector<Time> out(w.size());
  if (model_ == Model::None) return out;
  for (std::size_t i = 0; i < w.size(); ++i) out[i] = estimate(w, static_cast<JobId>(i));
  return out;
}

Time Estimator::estimate(const Workload& w, JobId job) const {
  if (model_ == Model::None) return Time{};
  Time e;
  if (model_ == Model::Noisy) {
    Rng rng(stream_ ^ w.keys[job]);
    const double s = static_cast<double>(w.profiles[job].run.sec()) * factor_ * std::exp(sigma_ * rng.normal());
    e = Time::seconds(static_cast<std::int64_t>(std::ceil(s)));
  } else if (const Time limit = w.time_limit(job); model_ == Model::Recorded && limit > Time{}) {
    e = limit;
  } else {
    e = per_type_[static_cast<std::size_t>(w.requests[job].type)];
  }
  return std::max(e, Time::seconds(1));
}

std::size_t jobs_with_time_limits(const Workload& w) {
  const auto recorded = [](std::uint32_t s) { return s > 0; };
  return static_cast<std::size_t>(std::count_if(w.time_limits.begin(), w.time_limits.end(), recorded));
}

std::vector<Time> make_estimates(const Workload& w, Params& params, std::uint64_t seed) {
  return Estimator(params, seed).all(w);
}

}  // namespace acme
