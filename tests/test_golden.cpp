// Golden scenarios: hand-checked schedules (see tests/golden/README.md), compared line by line.
#include <catch2/catch.hpp>

#include "harness.h"
#include "sim/sink.h"

namespace acme::test {
namespace {

const Time kBase = *parse_timestamp("2023-03-01 00:00:00+00:00");

std::string rel(const std::optional<Time>& t) { return t ? std::to_string((*t - kBase).sec()) : ""; }

// Replays a golden trace and renders each job as "job_id,state,start,end,queue_s,gpu_seconds".
std::vector<std::string> replay(const std::string& trace, const ClusterSpec& cluster, const std::string& policy,
                                ReplayMode mode, Sink* sink = nullptr) {
  const auto path = source_dir() / "tests" / "golden" / trace;
  const Workload w = read_acme_trace(path.string(), {});
  Simulation sim(w, cluster, make_policy(policy), mode);
  if (sink) sim.add_sink(*sink);
  sim.run();
  const Conservation c = sim.check_conservation();
  REQUIRE(c.ended == w.size());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobOutcome& o = sim.outcomes()[i];
    const std::string queue = o.start ? std::to_string((*o.start - w.requests[i].submit).sec()) : "";
    out.push_back(std::string(w.names[static_cast<std::uint32_t>(i)]) + "," + std::string(name(o.state)) + "," +
                  rel(o.start) + "," + rel(o.end) + "," + queue + "," + std::to_string(o.gpu_seconds));
  }
  if (sink) sink->finish(RunRecord{w, cluster, mode, sim.outcomes(), {}, c});
  return out;
}

std::vector<std::string> expected(const std::string& file) {
  return lines_of(read_file(source_dir() / "tests" / "golden" / file));
}

}  // namespace

TEST_CASE("FIFO holds every job behind a blocked head, as worked out by hand", "[golden]") {
  CHECK(replay("six_jobs.csv", small_cluster(2), "fifo", ReplayMode::Policy) == expected("six_jobs.fifo.expected"));
}

TEST_CASE("Greedy lets small jobs overtake a blocked large one, as worked out by hand", "[golden]") {
  CHECK(replay("six_jobs.csv", small_cluster(2), "greedy", ReplayMode::Policy) ==
        expected("six_jobs.greedy.expected"));
}

TEST_CASE("Recorded replay starts jobs at their recorded times and holds jobs that never started",
          "[golden]") {
  CHECK(replay("six_jobs.csv", small_cluster(2), "fifo", ReplayMode::Recorded) ==
        expected("six_jobs.recorded.expected"));
}

TEST_CASE("Recorded replay delays a job the modeled cluster cannot start and rejects one that never fits",
          "[golden]") {
  CHECK(replay("recorded_delay.csv", small_cluster(1), "fifo", ReplayMode::Recorded) ==
        expected("recorded_delay.recorded.expected"));
}

TEST_CASE("The time series of the FIFO scenario matches the hand-computed rows", "[golden]") {
  const auto dir = temp_dir("golden-ts");
  auto sink = make_sink("timeseries", SinkSettings{dir, Time::seconds(50), 16});
  replay("six_jobs.csv", small_cluster(2), "fifo", ReplayMode::Policy, sink.get());
  auto rows = lines_of(read_file(dir / "timeseries.csv"));
  REQUIRE(rows.size() >= 2);
  rows[0].replace(0, 6, "time");  // time_s holds epoch seconds: make them relative to the base
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto comma = rows[i].find(',');
    rows[i] = std::to_string(std::stoll(rows[i].substr(0, comma)) - kBase.sec()) + rows[i].substr(comma);
  }
  CHECK(rows == expected("six_jobs.fifo.timeseries.expected"));
}

}  // namespace acme::test
