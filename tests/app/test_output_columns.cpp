// Every column of every output (io/columns.h): documented in configs/README.md as `acmesim list
// columns` prints it, and written as its table declares: a run's outputs with the model features
// off and on, validate's and calibrate's files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string_view>

#include "harness.h"
#include "app/app.h"
#include "io/csv_table.h"
#include "io/feature_registry.h"
#include "io/sinks.h"
#include "workloads/calibration.h"
#include "workloads/fidelity.h"

namespace acme::test {
namespace {

// The column tables of `text`, each from its first marker line to its last (columns_markdown's
// blocks).
std::vector<std::string> column_tables(const std::string& text) {
  std::vector<std::string> tables;
  for (std::size_t at = 0; (at = text.find("<!-- columns of ", at)) != std::string::npos;) {
    const std::size_t end = text.find("<!-- end of columns of ", at);
    REQUIRE(end != std::string::npos);
    const std::size_t line_end = text.find('\n', end);
    tables.push_back(text.substr(at, line_end + 1 - at));
    at = line_end;
  }
  return tables;
}

// One short run with every output, the model features named in `sets` on, into `dir`.
void run_with(const std::filesystem::path& dir, const std::vector<std::string>& sets) {
  std::filesystem::create_directories(dir);
  const std::string config = (dir / "run.yaml").string();
  std::ofstream(config) << "cluster: " << (source_dir() / "configs/clusters/kalos.yaml").string()
                        << "\nworkload:\n  model: " << (source_dir() / "configs/workloads/kalos.yaml").string()
                        << "\n  from: 2023-06-01\n  to: 2023-06-03\n";
  RunArgs args;
  args.config = config;
  args.overrides = sets;
  std::string outputs = "outputs=";  // every one but the console's table
  for (const SinkEntry& e : sink_table())
    if (e.name != "console") outputs += std::string(e.name) + ",";
  outputs.pop_back();
  args.overrides.push_back(outputs);
  args.out_dir = (dir / "out").string();
  args.progress = false;
  REQUIRE(run_command(args) == 0);
}

// Checks that each CSV file in `dir` has the header its columns give with the groups `on`, and
// a cell per column in every row (read_csv refuses a row of another length).
void check_headers(const std::filesystem::path& dir, std::span<const std::string_view> on) {
  std::size_t files = 0;
  for (const FileColumns& f : output_columns()) {
    const std::filesystem::path path = dir / f.file;
    // links.csv comes with contention only, and a file all of whose columns come with a feature
    // (training.csv) with it only.
    const bool with_feature = std::any_of(f.groups.begin(), f.groups.end(), [&](const ColumnGroupDoc& g) {
      return g.when.empty() || std::find(on.begin(), on.end(), g.when) != on.end();
    });
    const bool contention = std::find(on.begin(), on.end(), kWithContention) != on.end();
    if (!with_feature || (f.file == "links.csv" && !contention)) {
      CHECK(!std::filesystem::exists(path));
      continue;
    }
    INFO(f.file);
    const CsvTable t = read_csv(path);
    std::vector<std::string> expected = column_names(f, on);
    if (f.file.starts_with("summary")) {  // after every configuration key
      const CsvTable run_config = read_csv(dir / "summary.csv");
      const auto first = run_config.column("cluster_gpus");
      REQUIRE(first);
      expected.insert(expected.begin(), run_config.header.begin(),
                      run_config.header.begin() + static_cast<std::ptrdiff_t>(*first));
    }
    CHECK(t.header == expected);
    CHECK(!t.rows.empty());
    ++files;
  }
  CHECK(files >= 7);
}

// Checks that each file of `files` in `dir` has the header its columns give, and rows.
void check_files(const std::filesystem::path& dir, const std::vector<FileColumns>& files) {
  for (const FileColumns& f : files) {
    INFO(f.file);
    const CsvTable t = read_csv(dir / f.file);
    CHECK(t.header == column_names(f, {}));
    CHECK(!t.rows.empty());
  }
}

}  // namespace

TEST_CASE("configs/README.md lists every output file's columns as `acmesim list columns` prints them",
          "[columns][docs]") {
  const std::vector<std::string> printed = column_tables(columns_markdown(every_file_columns()));
  const std::vector<std::string> documented = column_tables(read_file(source_dir() / "configs/README.md"));
  INFO("scripts/columns_doc.py rewrites configs/README.md's column tables from `build/acmesim list columns`");
  CHECK(printed.size() == documented.size());
  for (const std::string& table : printed)
    CHECK(std::find(documented.begin(), documented.end(), table) != documented.end());
  CHECK(printed.size() >= 11);
}

TEST_CASE("Every CSV file a sink writes has its columns listed, and no other file has", "[columns]") {
  std::vector<std::string_view> written, listed;
  for (const SinkEntry& e : sink_table())
    for (std::string_view file : e.files)
      if (file.ends_with(".csv")) written.push_back(file);
  for (const FileColumns& f : output_columns()) {
    listed.push_back(f.file);
    INFO(f.file);
    for (const ColumnGroupDoc& g : f.groups)
      for (const ColumnDoc& c : g.columns) {
        CHECK(!c.name.empty());
        CHECK(!c.doc.empty());
      }
  }
  CHECK(listed == written);
}

TEST_CASE("Every output file's header is its columns, model features off and on, with a cell per column in every row",
          "[columns]") {
  const auto dir = temp_dir("output-columns");
  run_with(dir / "off", {});
  check_headers(dir / "off" / "out", {});
  run_with(dir / "on", {"power.enabled=true", "network.slowdown=true", "network.contention=true",
                        "failures.enabled=true", "capacity.events=drain 0-3 from 6h for 6h; add 2 from 1d",
                        "stragglers.enabled=true"});
  const std::string_view capacity = feature_of_key("capacity.events")->columns[0][0].when;
  const std::string_view on[] = {kWithPower, kWithContention, capacity, kWithStragglers, kWithFailures};
  check_headers(dir / "on" / "out", on);
}

TEST_CASE("validate's and calibrate's files have the header their columns give, with a cell per column in every row",
          "[columns]") {
  FidelityReport report;
  FidelityRow gpu;
  gpu.group = "GPU";
  gpu.jobs = gpu.compared = 2;
  report.rows = {gpu};
  report.cdfs = {{"GPU", "recorded", {{0, 0.5}, {10, 1.0}}}};
  report.utilization.recorded_pct = report.utilization.simulated_pct = {10, 20};
  const auto dir = temp_dir("validate-calibrate-columns");
  write_fidelity(report, dir / "validate");
  check_files(dir / "validate", fidelity_columns());
  CHECK(read_csv(dir / "validate" / "fidelity.csv").rows.size() == 2);  // the group's, then the utilization row

  CalibrationReport calibration;
  calibration.rows = {{"type mix % of jobs: CPU", 45, 44, -1, 1, true, true}};
  calibration.series = {{"duration", "all", "trace", {{1, 10}, {2, 100}}}, {"gpu_demand", "jobs", "trace", {{8, 100}}}};
  write_calibration(calibration, dir / "calibrate");
  check_files(dir / "calibrate", calibration_columns());
}

}  // namespace acme::test
