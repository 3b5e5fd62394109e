// TEST ONLY: a model feature in a file of its own, as a newcomer would add one (features/README.md),
// built into the test binary and nothing else: its one registration line below is all it takes
// for `acmesim list`, the run configuration, the run builder and the outputs to know it. It
// counts the hooks the Simulation calls (sim/feature.h), delays each start by probe.delay_s, and
// with probe.columns adds a column to each output a feature may add to, whose cell is its row.
#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness.h"
#include "app/app.h"
#include "app/plugin_keys.h"
#include "io/csv_table.h"
#include "io/feature_registry.h"

namespace acme::test {
namespace {

struct ProbeCounts {
  int made = 0, begun = 0, placed = 0, jobs_added = 0, stepping = 0, stepped = 0, ended = 0, held = 0, released = 0,
      wasted = 0, checked = 0;
};
ProbeCounts counts;

// A column of each output (FeatureOutput), whose cell is the row it is asked for (its row's
// interval start, JobId, cause or type): what the sinks pass is checked against the file.
FeatureCell row_itself(const Feature&, std::int64_t row) { return FeatureCell{static_cast<double>(row)}; }
constexpr FeatureColumn kProbeColumns[] = {
    {"probe_interval", "TEST ONLY", "with `probe.columns` only", row_itself},
    {"probe_job", "TEST ONLY", "with `probe.columns` only", row_itself},
    {"probe_cause", "TEST ONLY", "with `probe.columns` only", row_itself},
    {"probe_summary", "TEST ONLY", "with `probe.columns` only", row_itself},
};

class ProbeFeature final : public Feature {
 public:
  ProbeFeature(Time delay, bool columns) : delay_(delay), columns_(columns) {}
  unsigned hooks() const override { return kPlaced | kJobsAdded | kStepping | kStepped | kEnded | kHeld; }
  void begin(const FeatureRun&) override { ++counts.begun; }
  void stepping(Time) override { ++counts.stepping; }
  void stepped(Time) override { ++counts.stepped; }
  void ended(Time) override { ++counts.ended; }
  void run_held(JobId, std::uint64_t, const JobRequest&, Time, Time, double) override { ++counts.held; }
  void run_released(JobId, Time) override { ++counts.released; }
  void wasted(JobId, WasteCause, std::int64_t) override { ++counts.wasted; }
  void check_conservation() const override { ++counts.checked; }
  Time placed(JobId, std::uint64_t, std::uint32_t, const JobRequest&) override {
    ++counts.placed;
    return delay_;
  }
  void jobs_added() override { ++counts.jobs_added; }
  std::span<const FeatureColumn> columns(FeatureOutput output) const override {
    if (!columns_) return {};
    return std::span<const FeatureColumn>(kProbeColumns).subspan(static_cast<std::size_t>(output), 1);
  }

 private:
  Time delay_;
  bool columns_;
};

std::unique_ptr<Feature> make_probe(Params& params, const FeatureSetup&) {
  const bool on = params.flag("enabled", false, "TEST ONLY: count the hooks");
  const double delay = params.number("delay_s", 0, 0, 3600, "TEST ONLY: seconds added to each start's delay");
  const bool columns = params.flag("columns", false, "TEST ONLY: a column in each output, its row");
  if (!on) return nullptr;
  ++counts.made;
  return std::make_unique<ProbeFeature>(Time::seconds(static_cast<std::int64_t>(delay)), columns);
}

const FeatureRegistrar kProbe({"probe", "TEST ONLY: counts the hooks of the loop (probe.*)", make_probe});

// One day of Kalos under fifo into `dir`, with `settings` over it; returns jobs.csv.
std::string run_kalos_day(const std::filesystem::path& dir, std::vector<std::string> settings,
                          const std::string& outputs = "jobs,summary,run_json") {
  RunArgs args;
  args.config = (source_dir() / "configs/kalos.yaml").string();
  args.overrides = {"policy.name=fifo", "workload.from=2023-06-01", "workload.to=2023-06-02", "outputs=" + outputs};
  args.overrides.insert(args.overrides.end(), settings.begin(), settings.end());
  args.out_dir = dir.string();
  args.progress = false;
  REQUIRE(run_command(args) == 0);
  return read_file(dir / "jobs.csv");
}

}  // namespace

TEST_CASE("A feature registered by one line is listed, configured, hooked and recorded", "[feature]") {
  bool listed = false;
  for (const KeySection& s : plugin_key_sections()) listed |= s.name == "probe" && s.keys.size() == 3;
  CHECK(listed);

  const auto dir = temp_dir("probe-feature");
  counts = {};
  const std::string off = run_kalos_day(dir / "off", {});
  CHECK(counts.made == 0);  // off: not made, so not in the run's list of features
  CHECK(read_file(dir / "off" / "summary.csv").find("probe.") == std::string::npos);

  const std::string on = run_kalos_day(dir / "on", {"probe.enabled=true"});
  CHECK(counts.made == 1);
  CHECK(counts.begun == 1);
  CHECK(counts.placed > 100);
  CHECK(counts.jobs_added > 0);  // the synthetic jobs are drawn as the replay goes (a feed)
  CHECK(counts.stepping == counts.stepped);  // a step's start and end, every step
  CHECK(counts.stepping > 100);
  CHECK(counts.ended == 1);
  CHECK(counts.held == counts.placed);  // every run placed holds its GPUs until it stops: no failures here
  CHECK(counts.released == counts.held);
  CHECK(counts.wasted > 0);  // Kalos's launch latency holds GPUs idle (waste `launch`)
  CHECK(counts.checked == 1);  // the run's conservation check asks every feature
  CHECK(on == off);  // a delay of 0 changes no job
  // Its keys are recorded with the run's others: columns of summary.csv, keys of run.json.
  const std::string summary = read_file(dir / "on" / "summary.csv");
  CHECK(summary.find("probe.enabled") != std::string::npos);
  CHECK(summary.find("probe.delay_s") != std::string::npos);
  CHECK(read_file(dir / "on" / "run.json").find("\"probe.enabled\"") != std::string::npos);

  // A delay adds to every start: the jobs start later than without it.
  counts = {};
  const std::string delayed = run_kalos_day(dir / "delayed", {"probe.enabled=true", "probe.delay_s=60"});
  CHECK(counts.placed > 100);
  CHECK(delayed != off);
  // A key the feature does not have is refused like any plugin's.
  RunArgs bad;
  bad.config = (source_dir() / "configs/kalos.yaml").string();
  bad.overrides = {"probe.nosuch=1"};
  bad.out_dir = (dir / "bad").string();
  bad.progress = false;
  CHECK_THROWS_WITH(run_command(bad), Catch::Contains("probe.nosuch"));
}

// The cells of a CSV file's column `name`, which must be its last.
std::vector<double> last_column(const std::filesystem::path& path, const std::string& name) {
  const CsvTable t = read_csv(path);
  REQUIRE(!t.header.empty());
  CHECK(t.header.back() == name);
  std::vector<double> out;
  for (const auto& row : t.rows) out.push_back(std::stod(row.back()));
  return out;
}

// The cells of its column `name`, as they are.
std::vector<std::string> column_of(const std::filesystem::path& path, const std::string& name) {
  const CsvTable t = read_csv(path);
  const std::optional<std::size_t> c = t.column(name);
  REQUIRE(c);
  std::vector<std::string> out;
  for (const auto& row : t.rows) out.push_back(row[*c]);
  return out;
}

TEST_CASE("A feature's columns, declared in its own file, end each output's rows with the row they are of",
          "[feature][columns]") {
  const auto dir = temp_dir("probe-columns") / "on";
  run_kalos_day(dir, {"probe.enabled=true", "probe.columns=true"}, "jobs,timeseries,summary,waste");
  const std::vector<double> jobs = last_column(dir / "jobs.csv", "probe_job");
  REQUIRE(jobs.size() > 100);
  for (std::size_t i = 0; i < jobs.size(); ++i) CHECK(jobs[i] == static_cast<double>(i));
  const std::vector<double> intervals = last_column(dir / "timeseries.csv", "probe_interval");
  const std::vector<std::string> starts = column_of(dir / "timeseries.csv", "time_s");
  REQUIRE(intervals.size() == starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) CHECK(intervals[i] == std::stod(starts[i]));
  // wasted_by_cause.csv lists the core's causes, in WasteCause order.
  const std::vector<double> causes = last_column(dir / "wasted_by_cause.csv", "probe_cause");
  REQUIRE(!causes.empty());
  for (std::size_t i = 0; i < causes.size(); ++i) CHECK(causes[i] == static_cast<double>(i));
  CHECK(last_column(dir / "summary.csv", "probe_summary") == std::vector<double>{kJobTypeCount});
  const std::vector<double> by_type = last_column(dir / "summary_by_type.csv", "probe_summary");
  const std::vector<std::string> types = column_of(dir / "summary_by_type.csv", "type");
  REQUIRE(by_type.size() == types.size());
  for (std::size_t i = 0; i < types.size(); ++i)
    CHECK(by_type[i] == static_cast<double>(static_cast<int>(*parse_job_type(types[i]))));
}

}  // namespace acme::test
