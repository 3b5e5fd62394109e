// Capacity that changes over time (capacity.events), one test per event kind, on small clusters
// whose schedules are worked out in each test's comment.
#include <catch2/catch.hpp>


#include "harness.h"
#include "features/capacity.h"

namespace acme::test {
namespace {

Workload sft_trace(const std::vector<std::tuple<int, int, int, int>>& jobs) { return trace_of(jobs, "SFT"); }

// A finished run (of a workload that outlives it) and its capacity feature.
struct Run {
  std::unique_ptr<Simulation> sim;
  const Feature* capacity;
  const std::vector<JobOutcome>& jobs() const { return sim->outcomes(); }
  // GPUs in service at `t`, as timeseries.csv's column reads them.
  int in_service(std::int64_t t) const {
    const FeatureColumn& column = capacity->columns(FeatureOutput::Interval)[0];
    REQUIRE(column.name == "gpus_in_service");
    return static_cast<int>(column.cell(*capacity, t).value);
  }
};

// `nodes` nodes of 8 GPUs under fifo with the capacity keys `sets`.
Run run(const Workload& w, int nodes, const std::vector<std::string>& sets) {
  std::vector<YamlValue> values;
  for (const std::string& s : sets) values.push_back(yaml_override(s));
  Params p("capacity", values);
  ClusterSpec spec = small_cluster(nodes);
  std::unique_ptr<Feature> capacity = capacity_feature(read_capacity(p, spec));
  capacity->shape(spec);
  Run r{std::make_unique<Simulation>(w, spec, make_policy("fifo"), ReplayMode::Policy), capacity.get()};
  r.sim->add_feature(std::move(capacity));
  r.sim->run();
  r.sim->check_conservation();
  return r;
}

std::int64_t from_base(std::int64_t s) { return (kGoldenBase + Time::seconds(s)).sec(); }

}  // namespace

TEST_CASE("A drain lets running jobs finish, starts nothing new on its nodes, and ends on time", "[capacity]") {
  // 2 nodes. j1 (8 GPUs, 0-1000) on node 0; node 1 drained from 100 to 600. j2 (8 GPUs) comes at
  // 200: node 0 busy, node 1 drained, so it waits until 600. j3 (4 GPUs) at 50 lands on node 1
  // and runs to 400 although the drain began: node 1 goes down at 400, back at 600.
  const Workload w = sft_trace({{1, 8, 0, 1000}, {1, 8, 200, 100}, {1, 4, 50, 350}});
  const Run r = run(w, 2, {"capacity.events=drain 1-1 from 100s for 500s"});
  CHECK(at(r.jobs()[2].start) == 50);
  CHECK(at(r.jobs()[2].end) == 400);
  CHECK(at(r.jobs()[1].start) == 600);
  CHECK(r.jobs()[1].preemptions == 0);
  // In service: 16 GPUs, 8 from 100 (node 1 cordoned), 16 from 600.
  CHECK(r.in_service(from_base(99)) == 16);
  CHECK(r.in_service(from_base(100)) == 8);
  CHECK(r.in_service(from_base(599)) == 8);
  CHECK(r.in_service(from_base(600)) == 16);
}

TEST_CASE("A drain that kills sends its nodes' jobs back to the queue at once", "[capacity]") {
  // As above with drained_jobs: kill. j3 is preempted at 100 (its 50 s x 4 GPUs wasted) and
  // waits: node 0 is busy to 1000 and node 1 is back at 600, where j3 (first in the queue: queued
  // again at 100, before j2 came) restarts for its whole 350 s, to 950. j2 (8 GPUs) does not fit
  // beside it and starts on node 1 at 950.
  const Workload w = sft_trace({{1, 8, 0, 1000}, {1, 8, 200, 100}, {1, 4, 50, 350}});
  const Run r = run(w, 2, {"capacity.events=drain 1-1 from 100s for 500s", "capacity.drained_jobs=kill"});
  CHECK(r.jobs()[2].preemptions == 1);
  CHECK(at(r.jobs()[2].end) == 600 + 350);
  CHECK(r.jobs()[2].wasted_gpu_seconds == 4 * 50);
  CHECK(at(r.jobs()[1].start) == 950);
}

TEST_CASE("Added nodes are down until they arrive, and a job that needs them waits for them", "[capacity]") {
  // 1 node plus 1 added at 300. j1 needs 2 nodes: it cannot run before 300 and starts then.
  const Workload w = sft_trace({{2, 16, 0, 100}});
  const Run r = run(w, 1, {"capacity.events=add 1 from 300s"});
  CHECK(at(r.jobs()[0].start) == 300);
  CHECK(r.in_service(from_base(0)) == 8);
  CHECK(r.in_service(from_base(300)) == 16);
}

TEST_CASE("A leaf switch down stops the jobs under it and keeps its nodes down meanwhile", "[capacity]") {
  // 4 nodes, leaves of 2. j1 (8 GPUs) on node 0, under leaf 0, which goes down from 100 to 400:
  // j1 stops (as a failure, no checkpoint: its 100 s are lost), and with nodes 0 and 1 down it
  // starts again on node 2 at once and runs its 1000 s: end 1100.
  const Workload w = sft_trace({{1, 8, 0, 1000}});
  const Run r = run(w, 4, {"capacity.events=leaf 0 down from 100s for 300s"});
  CHECK(r.jobs()[0].failures == 1);
  CHECK(at(r.jobs()[0].end) == 1100);
  CHECK(r.in_service(from_base(100)) == 16);
  CHECK(r.in_service(from_base(400)) == 32);
}

TEST_CASE("GPUs in service before the run's first step are those before any event, whatever that step holds down",
          "[capacity]") {
  // 2 nodes, no window: times count from the first event, j1 at 50 (8 GPUs, 100 s). Node 1 is
  // drained from then for 500 s, and two nodes added then: before 50 the cluster had 16 GPUs in
  // service (the added nodes not yet there), from 50 on 24 (node 1 out, nodes 2 and 3 in), from
  // 550 32.
  const Workload w = sft_trace({{1, 8, 50, 100}});
  const Run r = run(w, 2, {"capacity.events=drain 1-1 from 0s for 500s; add 2 from 0s"});
  CHECK(r.in_service(from_base(0)) == 16);
  CHECK(r.in_service(from_base(49)) == 16);
  CHECK(r.in_service(from_base(50)) == 24);
  CHECK(r.in_service(from_base(549)) == 24);
  CHECK(r.in_service(from_base(550)) == 32);
  CHECK(at(r.jobs()[0].start) == 50);
}

// A reservation alone shapes the cluster and is on (its keys recorded), with no hook and no column.
TEST_CASE("Reserved nodes without events make a feature with no hook and no column", "[capacity]") {
  Params p("capacity", {yaml_override("capacity.reserved_nodes=1")});
  ClusterSpec spec = small_cluster(2);
  const std::unique_ptr<Feature> capacity = capacity_feature(read_capacity(p, spec));
  REQUIRE(capacity);
  CHECK(capacity->hooks() == 0);
  CHECK(capacity->columns(FeatureOutput::Interval).empty());
  capacity->shape(spec);
  CHECK(spec.nodes == 2);
  CHECK(spec.reserved_nodes == 1);
  Params none("capacity", {});
  CHECK_FALSE(capacity_feature(read_capacity(none, small_cluster(2))));
}

}  // namespace acme::test
