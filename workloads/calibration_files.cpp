// The files `acmesim calibrate` writes (workloads/calibration.h, write_calibration): their
// columns, and the writing.
#include <filesystem>
#include <string>
#include <string_view>

#include "io/columns.h"
#include "io/csv.h"
#include "workloads/calibration.h"

namespace acme {
namespace {

constexpr Column<CalibrationRow> kStatisticColumns[] = {
    {"statistic", "what is compared: a type's share, a size's, a point of a duration CDF, ...",
     [](const CalibrationRow& r) { return Cell::text(r.statistic); }},
    {"published", "its value in the published statistics (`configs/workloads/<cluster>.published.yaml`)",
     [](const CalibrationRow& r) { return Cell::real(r.published); }},
    {"trace", "its value in the trace", [](const CalibrationRow& r) { return Cell::real(r.trace); }},
    {"difference", "trace - published; relative (%) where the tolerance is relative",
     [](const CalibrationRow& r) { return Cell::real(r.difference); }},
    {"tolerance", "the largest `difference` (in absolute value) that passes",
     [](const CalibrationRow& r) { return Cell::real(r.tolerance); }},
    {"pass", "`pass` or `fail`; `info` for a statistic reported, not gated",
     [](const CalibrationRow& r) { return Cell::text(!r.gated ? "info" : r.pass ? "pass" : "fail"); }},
};

// A point of a figure's CDF.
struct PointRow {
  const CdfSeries& series;
  double x, pct;
};
constexpr Column<PointRow> kPointColumns[] = {
    {"group", "duration: `all` (every GPU job) or a job type; gpu_demand: `jobs` (by jobs) or `gpu_time` (by GPU-time)",
     [](const PointRow& r) { return Cell::text(r.series.group); }},
    {"source", "`published` or `trace`", [](const PointRow& r) { return Cell::text(r.series.source); }},
    {"x", "duration: run time, s; gpu_demand: GPUs a job asks for",
     [](const PointRow& r) { return Cell::real(r.x, 3); }},
    {"pct", "cumulative share at `x`, %", [](const PointRow& r) { return Cell::real(r.pct, 4); }},
};

}  // namespace

void write_calibration(const CalibrationReport& rep, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "data");
  CsvWriter table(dir / "calibration.csv");
  write_table<CalibrationRow>(table, kStatisticColumns, rep.rows);
  table.commit();
  for (std::string_view figure : {"duration", "gpu_demand"}) {
    CsvWriter data(dir / "data" / (std::string(figure == "duration" ? "duration_cdf" : "gpu_demand") + ".csv"));
    write_names<PointRow>(data, kPointColumns);
    data.end_row();
    for (const CdfSeries& s : rep.series) {
      if (s.figure != figure) continue;
      for (const auto& [x, pct] : s.points) {
        write_cells<PointRow>(data, kPointColumns, {s, x, pct});
        data.end_row();
      }
    }
    data.commit();
  }
}

std::vector<FileColumns> calibration_columns() {
  return {{"calibration.csv", {group_doc<CalibrationRow>(kStatisticColumns)}},
          {"data/duration_cdf.csv", {group_doc<PointRow>(kPointColumns)}},
          {"data/gpu_demand.csv", {group_doc<PointRow>(kPointColumns)}}};
}

}  // namespace acme
