// Jobs that wait for another job (Workload::after): submitted when that one ends.
#include <catch2/catch.hpp>

#include "harness.h"

namespace acme::test {
namespace {

JobProfile ends_after(std::int64_t run, JobState state = JobState::Completed) {
  JobProfile p;
  p.run = Time::seconds(run);
  p.final_state = state;
  return p;
}

}  // namespace

TEST_CASE("A job that waits for another is submitted when that one ends", "[dependencies]") {
  // One node of 2 GPUs. gpu (2 GPUs, 100 s) starts at 0; other (2 GPUs, 50 s) waits for it.
  // metric (CPU, 30 s) waits for gpu: submitted at 100 (not at its request's 0), starts at once
  // beside other, ends at 130. tail waits for metric: submitted at 130, ends at 140.
  Workload w;
  const Time t0 = kGoldenBase;
  const JobId gpu = w.add("gpu", JobRequest{t0, 2, 1, 4, JobType::Eval, 0}, ends_after(100));
  w.add("other", JobRequest{t0 + Time::seconds(1), 2, 1, 4, JobType::Pretrain, 0}, ends_after(50));
  const JobId metric = w.add_after(gpu, "metric", JobRequest{t0, 0, 1, 8, JobType::Eval, 0}, ends_after(30));
  const JobId tail = w.add_after(metric, "tail", JobRequest{t0, 0, 1, 1, JobType::CPU, 0}, ends_after(10));
  REQUIRE(w.after.size() == 4);
  CHECK_FALSE(w.waits(gpu));
  CHECK(w.waits(metric));

  Simulation sim(w, small_cluster(1, 2), make_policy("fifo"), ReplayMode::Policy);
  sim.run();
  sim.check_conservation();
  const auto& o = sim.outcomes();
  CHECK(o[1].start == t0 + Time::seconds(100));
  CHECK(submitted(w, o, metric) == t0 + Time::seconds(100));
  CHECK(o[metric].start == t0 + Time::seconds(100));
  CHECK(o[metric].end == t0 + Time::seconds(130));
  CHECK(submitted(w, o, tail) == t0 + Time::seconds(130));
  CHECK(o[tail].end == t0 + Time::seconds(140));
  CHECK(submitted(w, o, 1) == t0 + Time::seconds(1));  // a job that waits for none: its request's time
}

TEST_CASE("A job whose predecessor is rejected or withdrawn is still submitted", "[dependencies]") {
  Workload w;
  const Time t0 = kGoldenBase;
  // 16 GPUs never fit one 8-GPU node: rejected at 0, so its follower is submitted at 0.
  const JobId big = w.add("big", JobRequest{t0, 16, 2, 4, JobType::Eval, 0}, ends_after(100));
  const JobId after_big = w.add_after(big, "after_big", JobRequest{t0, 1, 1, 1, JobType::Eval, 0}, ends_after(5));
  // blocker holds the node until 50; waiting gives up at 20; its follower is submitted at 20.
  w.add("blocker", JobRequest{t0, 8, 1, 4, JobType::Pretrain, 0}, ends_after(50));
  JobProfile gives_up = ends_after(10, JobState::Cancelled);
  gives_up.set_cancel_pending_at(t0 + Time::seconds(20));
  const JobId waiting = w.add("waiting", JobRequest{t0, 8, 1, 4, JobType::Eval, 0}, gives_up);
  const JobId after_waiting = w.add_after(waiting, "after_waiting", JobRequest{t0, 0, 1, 1, JobType::CPU, 0}, ends_after(5));

  // greedy: the CPU-only follower need not wait behind after_big, which waits for a GPU until 50.
  Simulation sim(w, small_cluster(1), make_policy("greedy"), ReplayMode::Policy);
  sim.run();
  sim.check_conservation();
  const auto& o = sim.outcomes();
  CHECK(o[big].state == JobState::Rejected);
  CHECK(submitted(w, o, after_big) == t0);
  CHECK(o[waiting].state == JobState::Cancelled);
  CHECK(submitted(w, o, after_waiting) == t0 + Time::seconds(20));
  CHECK(o[after_waiting].end == t0 + Time::seconds(25));
  CHECK(o[after_big].start == t0 + Time::seconds(50));
}

TEST_CASE("A job may only wait for an earlier job", "[dependencies]") {
  Workload w;
  CHECK_THROWS(w.add_after(0, "first", JobRequest{}, ends_after(1)));
  w.add("a", JobRequest{}, ends_after(1));
  w.add_after(0, "b", JobRequest{}, ends_after(1));
  w.after[0] = 1;  // a hand-made cycle
  CHECK_THROWS_WITH(Simulation(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy),
                    Catch::Contains("only wait for an earlier"));
}

}  // namespace acme::test
