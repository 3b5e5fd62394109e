#include "workloads/estimates.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "sim/error.h"
#include "sim/random.h"

namespace acme {

std::vector<Time> make_estimates(const Workload& w, Params& params, std::uint64_t seed) {
  const std::string model = params.choice("model", "noisy", {"noisy", "limit", "percentile", "none"},
                                          "how run-time estimates are made: noisy, limit, percentile or none");
  const double factor = params.number("factor", 2.0, 0.01, 1e6, "noisy: mean overestimate factor");
  const double sigma = params.number("sigma", 0.5, 0, 10, "noisy: log-normal scatter of the factor");
  const double pct = params.number("percentile", 90, 0, 100, "percentile: which percentile of the type's run times");
  const auto limits = params.table("limit_h",
                                   {{"CPU", 24}, {"Eval", 24}, {"Pretrain", 336}, {"SFT", 72}, {"MLLM", 72},
                                    {"Debug", 12}, {"Other", 72}},
                                   0.001, 1e6, "limit: per-type limit, hours");
  params.check_all_used();

  std::array<Time, kJobTypeCount> per_type{};
  if (model == "limit") {
    for (const auto& [name, hours] : limits) {
      const auto t = parse_job_type(name);
      if (!t) throw InputError("estimate.limit_h." + name + ": unknown job type");
      per_type[static_cast<std::size_t>(*t)] = Time::seconds(static_cast<std::int64_t>(std::ceil(hours * 3600)));
    }
  } else if (model == "percentile") {
    std::array<std::vector<std::int64_t>, kJobTypeCount> runs;
    for (std::size_t i = 0; i < w.size(); ++i)
      runs[static_cast<std::size_t>(w.requests[i].type)].push_back(w.profiles[i].run.sec());
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      auto& v = runs[t];
      if (v.empty()) continue;
      const std::size_t rank = std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(pct / 100.0 * static_cast<double>(v.size()))) - (pct > 0 ? 1 : 0));
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
      per_type[t] = Time::seconds(v[rank]);
    }
  }
  const std::uint64_t stream = mix64(seed ^ 0x65737469'6d617465ULL);  // "estimate": apart from the workload's
  std::vector<Time> out(w.size());
  if (model == "none") return out;
  const bool noisy = model == "noisy";
  for (std::size_t i = 0; i < w.size(); ++i) {
    Time e;
    if (noisy) {
      Rng rng(stream ^ w.keys[i]);
      const double s = static_cast<double>(w.profiles[i].run.sec()) * factor * std::exp(sigma * rng.normal());
      e = Time::seconds(static_cast<std::int64_t>(std::ceil(s)));
    } else {
      e = per_type[static_cast<std::size_t>(w.requests[i].type)];
    }
    out[i] = std::max(e, Time::seconds(1));
  }
  return out;
}

}  // namespace acme
