#include <catch2/catch.hpp>

#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "harness.h"
#include "workloads/synthetic_admission.h"
#include "workloads/synthetic_stream.h"

namespace acme::test {
namespace {

Draft job(std::int64_t submit, std::int32_t gpus, std::int64_t run, std::uint32_t user) {
  return Draft{submit, run, gpus, gpus * 16, user, gpus >= 50 ? JobType::Pretrain : JobType::Eval, JobState::Completed};
}

// Offers the jobs in submit order, as the week drawer does; returns what is submitted, in order.
std::vector<Draft> admit_all(Admission& a, const std::vector<Draft>& jobs, std::int64_t until) {
  std::vector<Draft> out;
  for (const Draft& d : jobs) {
    a.release_until(d.submit, out);
    if (a.admit(d)) out.push_back(d);
  }
  a.release_until(until, out);
  return out;
}

}  // namespace

TEST_CASE("A large job waits exactly until the drawn demand lets it in, FIFO, and small jobs never wait",
          "[synthetic][admission]") {
  Admission a(LargeJobsModel{50, 100}, 1000);
  const std::vector<Draft> jobs = {
      job(0, 40, 100, 1),   // small: in flight until 100
      job(10, 60, 50, 2),   // large, 40 + 60 = 100 fits: in at once, until 60
      job(20, 70, 10, 3),   // large, 100 + 70: waits
      job(30, 10, 200, 4),  // small, admitted over the cap: until 230
      job(40, 50, 5, 5),    // large: behind job 3, although it fits at 60 (demand 50 then)
  };
  const std::vector<Draft> out = admit_all(a, jobs, 999);
  REQUIRE(out.size() == 5);
  const std::vector<std::pair<std::uint32_t, std::int64_t>> expected = {{1, 0}, {2, 10}, {4, 30}, {3, 100}, {5, 110}};
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("job " << i);
    CHECK(out[i].user == expected[i].first);
    CHECK(out[i].submit == expected[i].second);
    const Draft& drawn = jobs[expected[i].first - 1];  // all else kept
    CHECK(out[i].gpus == drawn.gpus);
    CHECK(out[i].run == drawn.run);
    CHECK(out[i].type == drawn.type);
  }
  CHECK(a.waiting() == 0);
  CHECK(a.drop_waiting() == 0);
}

TEST_CASE("A large job the window's end finds waiting is dropped", "[synthetic][admission]") {
  Admission a(LargeJobsModel{50, 100}, 1000);
  const std::vector<Draft> jobs = {job(800, 10, 1000, 1), job(900, 100, 10, 2), job(950, 1, 10, 3)};
  const std::vector<Draft> out = admit_all(a, jobs, 5000);  // releases stop before the end anyway
  REQUIRE(out.size() == 2);
  CHECK(out[1].user == 3);
  CHECK(a.drop_waiting() == 1);
}

TEST_CASE("With max_concurrent_gpus 0 every job is submitted as drawn", "[synthetic][admission]") {
  Admission a(LargeJobsModel{50, 0}, 1000);
  const std::vector<Draft> jobs = {job(0, 500, 1000, 1), job(1, 500, 1000, 2)};
  const std::vector<Draft> out = admit_all(a, jobs, 999);
  REQUIRE(out.size() == 2);
  CHECK(out[1].submit == 1);
}

TEST_CASE("On weeks of both clusters the drawn demand never exceeds the cap when a large job is submitted",
          "[synthetic][admission]") {
  for (const std::string cluster : {"seren", "kalos"}) {
    const SyntheticModel m = shipped_model(cluster);
    REQUIRE(m.large_jobs.on());
    const Workload w = generate_workload(m, *parse_timestamp("2023-06-01"), *parse_timestamp("2023-06-22"), 1.0, 4, 8);
    using End = std::pair<std::int64_t, std::int32_t>;
    std::priority_queue<End, std::vector<End>, std::greater<>> ends;
    std::int64_t demand = 0, large_demand = 0, checked = 0;
    std::priority_queue<End, std::vector<End>, std::greater<>> large_ends;
    for (std::size_t i = 0; i < w.size(); ++i) {
      const JobRequest& r = w.requests[i];
      const std::int64_t t = r.submit.sec(), run = w.profiles[i].run.sec();
      if (i > 0) REQUIRE(w.requests[i - 1].submit <= r.submit);
      for (; !ends.empty() && ends.top().first <= t; ends.pop()) demand -= ends.top().second;
      for (; !large_ends.empty() && large_ends.top().first <= t; large_ends.pop()) large_demand -= large_ends.top().second;
      if (r.gpu_num >= m.large_jobs.min_gpus) {
        INFO(cluster << " job " << i + 1 << " at " << t);
        REQUIRE(demand + r.gpu_num <= m.large_jobs.max_concurrent_gpus);
        large_ends.emplace(t + run, r.gpu_num);
        large_demand += r.gpu_num;
        REQUIRE(large_demand <= m.large_jobs.max_concurrent_gpus);
        ++checked;
      }
      ends.emplace(t + run, r.gpu_num);
      demand += r.gpu_num;
    }
    CHECK(checked > 10);
  }
}

}  // namespace acme::test

namespace acme::test {

TEST_CASE("The cap on large jobs scales with the cluster and never falls below the largest job", "[synthetic][admission]") {
  const LargeJobsModel seren{256, 2288, 2288};
  CHECK(seren.on_cluster(2288, 1024).max_concurrent_gpus == 2288);   // its own cluster: as set
  CHECK(seren.on_cluster(80000, 1024).max_concurrent_gpus == 80000);  // 10,000 nodes: the same share
  CHECK(seren.on_cluster(1144, 1024).max_concurrent_gpus == 1144);    // half
  CHECK(seren.on_cluster(800, 1024).max_concurrent_gpus == 1024);     // never below the largest job
  const LargeJobsModel kalos{256, 1536, 2416};
  CHECK(kalos.on_cluster(4832, 1024).max_concurrent_gpus == 3072);
  CHECK_FALSE(LargeJobsModel{256, 0, 2288}.on_cluster(80000, 1024).on());  // off stays off
}

}  // namespace acme::test
