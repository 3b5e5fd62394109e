// Golden scenarios: hand-checked schedules (see tests/golden/README.md), compared line by line.
#include <catch2/catch.hpp>

#include "harness.h"
#include "io/sinks.h"

namespace acme::test {
namespace {

// The rows of a timeseries.csv with time_s made relative to kGoldenBase (the header says "time").
std::vector<std::string> relative_rows(const std::filesystem::path& file) {
  auto rows = lines_of(read_file(file));
  REQUIRE(rows.size() >= 2);
  rows[0].replace(0, 6, "time");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto comma = rows[i].find(',');
    rows[i] = std::to_string(std::stoll(rows[i].substr(0, comma)) - kGoldenBase.sec()) + rows[i].substr(comma);
  }
  return rows;
}

}  // namespace

TEST_CASE("FIFO holds every job behind a blocked head, as worked out by hand", "[golden]") {
  CHECK(replay_golden("six_jobs.csv", small_cluster(2), "fifo", ReplayMode::Policy) == golden_expected("six_jobs.fifo.expected"));
}

TEST_CASE("Greedy lets small jobs overtake a blocked large one, as worked out by hand", "[golden]") {
  CHECK(replay_golden("six_jobs.csv", small_cluster(2), "greedy", ReplayMode::Policy) ==
        golden_expected("six_jobs.greedy.expected"));
}

TEST_CASE("Recorded replay starts jobs at their recorded times and holds jobs that never started",
          "[golden]") {
  CHECK(replay_golden("six_jobs.csv", small_cluster(2), "fifo", ReplayMode::Recorded) ==
        golden_expected("six_jobs.recorded.expected"));
}

TEST_CASE("Recorded replay delays a job the modeled cluster cannot start and rejects one that never fits",
          "[golden]") {
  CHECK(replay_golden("recorded_delay.csv", small_cluster(1), "fifo", ReplayMode::Recorded) ==
        golden_expected("recorded_delay.recorded.expected"));
}

TEST_CASE("The time series of the FIFO scenario matches the hand-computed rows", "[golden]") {
  const auto dir = temp_dir("golden-ts");
  auto sink = make_sink("timeseries", SinkSettings{dir, Time::seconds(50), 16, 2, 8});
  replay_golden("six_jobs.csv", small_cluster(2), "fifo", ReplayMode::Policy, {}, sink.get());
  CHECK(relative_rows(dir / "timeseries.csv") == golden_expected("six_jobs.fifo.timeseries.expected"));
}

TEST_CASE("The time series counts free GPUs no waiting job can use and demand blocked by fragmentation",
          "[golden]") {
  const auto dir = temp_dir("golden-frag");
  auto sink = make_sink("timeseries", SinkSettings{dir, Time::seconds(50), 16, 2, 8});
  replay_golden("fragmentation.csv", small_cluster(2), "fifo", ReplayMode::Policy, {}, sink.get());
  CHECK(relative_rows(dir / "timeseries.csv") == golden_expected("fragmentation.fifo.timeseries.expected"));
}

}  // namespace acme::test
