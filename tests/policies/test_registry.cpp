// A policy compiled only into the tests (newcomer_policy.cpp) registers itself as every shipped
// policy does: the registry lists it and makes it by name, and the suites over every policy
// (test_policies.cpp, test_invariants.cpp, sim/test_conservation.cpp, workloads/test_feed.cpp)
// run it, with no other edit than its file and its line in tests/CMakeLists.txt; so does the
// command line built with it (ctest cli_new_policy).
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "harness.h"

namespace acme::test {
namespace {

// Reads estimates without saying so.
class SilentEstimateReader final : public Policy {
 public:
  void on_queued(JobId job, const JobRequest&) override { queue_.push_back(job); }
  void schedule(SchedulingPass& pass) override {
    for (JobId j : queue_)
      if (pass.is_pending(j) && pass.estimate(j) > Time{}) pass.try_start(j);
  }

 private:
  std::vector<JobId> queue_;
};

}  // namespace

TEST_CASE("A policy that registers itself from its own file is listed after the shipped ones and made by name",
          "[registry]") {
  const auto table = policy_table();
  REQUIRE(table.size() >= 8);
  CHECK(table.back().name == "newcomer");
  for (std::size_t i = 1; i < table.size(); ++i) {
    INFO(table[i - 1].name << " before " << table[i].name);
    CHECK((table[i - 1].order < table[i].order ||
           (table[i - 1].order == table[i].order && table[i - 1].name < table[i].name)));
  }
  CHECK(make_policy("newcomer") != nullptr);
  CHECK_THROWS_WITH(make_policy("nosuch"), Catch::Contains("newcomer"));
}

TEST_CASE("Registering a policy name twice stops the program", "[registry]") {
  CHECK_THROWS_AS(PolicyRegistrar({"fifo", "again", nullptr}), std::logic_error);
}

TEST_CASE("A policy that reads estimates without declaring reads_estimates() is reported as a bug",
          "[registry][contract]") {
  Workload w;
  for (int i = 0; i < 3; ++i) {
    JobRequest r;
    r.type = JobType::SFT;
    r.submit = *parse_timestamp("2023-03-01") + Time::seconds(60 * i);
    r.gpu_num = 8;
    r.node_num = 1;
    r.cpu_num = 8;
    r.user = w.users.intern("u");
    JobProfile p;
    p.final_state = JobState::Completed;
    p.set_recorded_start(r.submit);
    p.run = Time::seconds(3600);
    w.add("j" + std::to_string(i), r, p);
  }
  Simulation sim(w, small_cluster(2), std::make_unique<SilentEstimateReader>(), ReplayMode::Policy);
  CHECK_THROWS_WITH(sim.run(), Catch::Contains("reads_estimates()"));
}

}  // namespace acme::test
