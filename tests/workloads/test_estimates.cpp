// Run-time estimates (workloads/estimates.h) worked out by hand: the time limits a trace records
// (estimate.model recorded), and a type's limit for a job that records none.
#include <catch2/catch.hpp>

#include "harness.h"
#include "workloads/estimates.h"

namespace acme::test {

namespace {

std::vector<Time> estimates_of(const Workload& w, const std::vector<std::string>& settings) {
  std::vector<YamlValue> values;
  for (const std::string& s : settings) values.push_back(yaml_override(s));
  Params params("estimate", values);
  return make_estimates(w, params, 1);
}

}  // namespace

TEST_CASE("recorded estimates are the jobs' time limits, or their type's limit where none is recorded", "[estimates]") {
  Workload w;
  JobRequest sft;
  sft.type = JobType::SFT;
  sft.gpu_num = 8;
  JobRequest eval = sft;
  eval.type = JobType::Eval;
  JobProfile p;
  p.run = Time::seconds(300);
  w.add("a", sft, p);
  w.add("b", eval, p);
  w.add("c", sft, p);
  CHECK(estimates_of(w, {"estimate.model=recorded"}) ==
        std::vector<Time>{Time::seconds(72 * 3600), Time::seconds(24 * 3600), Time::seconds(72 * 3600)});  // none recorded
  w.set_time_limit(0, Time::seconds(500));
  w.set_time_limit(2, Time::seconds(0));  // at least 1 s
  CHECK(jobs_with_time_limits(w) == 2);
  CHECK(estimates_of(w, {"estimate.model=recorded", "estimate.limit_h.Eval=2"}) ==
        std::vector<Time>{Time::seconds(500), Time::seconds(7200), Time::seconds(1)});
  // Jobs added after a limit was set record none until set.
  w.add("d", sft, p);
  CHECK(w.time_limit(3) == Time{});
  // The other models do not read them.
  CHECK(estimates_of(w, {"estimate.model=limit"})[0] == Time::seconds(72 * 3600));
  CHECK(estimates_of(w, {"estimate.factor=1", "estimate.sigma=0"})[0] == Time::seconds(300));
}

}  // namespace acme::test
