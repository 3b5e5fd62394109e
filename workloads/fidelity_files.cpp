// The files `acmesim validate` writes (workloads/fidelity.h, write_fidelity): their columns, and
// the writing.
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "io/columns.h"
#include "io/csv.h"
#include "workloads/fidelity.h"

namespace acme {
namespace {

// A row of fidelity.csv: a group's, or the utilization row (group none).
struct GroupRow {
  const FidelityRow* group;
  const UtilizationSeries& u;
  double max_cdf_gap;
};
Cell count(std::size_t v) { return Cell::integer(static_cast<std::int64_t>(v)); }
// A count of the group's; blank in the utilization row.
template <std::size_t FidelityRow::*Field>
Cell group_count(const GroupRow& r) { return r.group ? count(r.group->*Field) : Cell::blank(); }
// A percentile of the recorded or simulated delays; blank in the utilization row.
template <DelaySummary FidelityRow::*Side, std::int64_t DelaySummary::*Percentile>
Cell percentile(const GroupRow& r) { return r.group ? Cell::integer(r.group->*Side.*Percentile) : Cell::blank(); }

constexpr std::string_view kMeans =
    "mean queueing delay (start - submit) of the jobs compared, s; for `utilization`, mean GPU utilization, % (a "
    "job's GPUs counted from its start to its end in both: the replay's launch latency, which a trace does not "
    "record, is left out)";
constexpr std::string_view kPercentiles = "nearest-rank percentiles of the delays: p50, p90, p99";

constexpr Column<GroupRow> kGroupColumns[] = {
    {"group", "as above",
     [](const GroupRow& r) { return Cell::text(r.group ? std::string_view(r.group->group) : "utilization"); }},
    {"jobs", "jobs of the group (empty for `utilization`)", group_count<&FidelityRow::jobs>},
    {"compared",
     "jobs that started both in the record and in the replay; for `utilization`, intervals (`metrics.interval_s`)",
     [](const GroupRow& r) { return r.group ? count(r.group->compared) : count(r.u.recorded_pct.size()); }},
    {"not_started_recorded",
     "jobs the trace never started (empty `start_time`, or CANCELLED with `start_time == end_time`): left out",
     group_count<&FidelityRow::not_started_recorded>},
    {"not_started_simulated",
     "jobs the trace started and the replay did not (withdrawn while pending, or REJECTED): left out",
     group_count<&FidelityRow::not_started_simulated>},
    {"mismatched",
     "jobs compared whose simulated delay differs from the recorded one, plus jobs started on one side only",
     group_count<&FidelityRow::mismatched>},
    {"recorded_mean", kMeans,
     [](const GroupRow& r) { return Cell::real(r.group ? r.group->recorded.mean_s : r.u.recorded_mean_pct); }},
    {"simulated_mean", kMeans,
     [](const GroupRow& r) { return Cell::real(r.group ? r.group->simulated.mean_s : r.u.simulated_mean_pct); }},
    {"recorded_p50_s", kPercentiles, percentile<&FidelityRow::recorded, &DelaySummary::p50_s>},
    {"simulated_p50_s", kPercentiles, percentile<&FidelityRow::simulated, &DelaySummary::p50_s>},
    {"recorded_p90_s", kPercentiles, percentile<&FidelityRow::recorded, &DelaySummary::p90_s>},
    {"simulated_p90_s", kPercentiles, percentile<&FidelityRow::simulated, &DelaySummary::p90_s>},
    {"recorded_p99_s", kPercentiles, percentile<&FidelityRow::recorded, &DelaySummary::p99_s>},
    {"simulated_p99_s", kPercentiles, percentile<&FidelityRow::simulated, &DelaySummary::p99_s>},
    {"mean_abs_diff",
     "mean over the jobs compared of the absolute difference of their two delays, s; for `utilization`, mean over "
     "intervals of the absolute difference, percentage points",
     [](const GroupRow& r) { return Cell::real(r.group ? r.group->mean_abs_diff_s : r.u.mean_abs_diff_points); }},
    {"cdf_gap",
     "largest vertical distance between the two empirical CDFs of the group's delays (Kolmogorov-Smirnov), 0 to 1",
     [](const GroupRow& r) { return r.group ? Cell::real(r.group->cdf_gap, 4) : Cell::blank(); }},
    {"max_cdf_gap", "the tolerance in force",
     [](const GroupRow& r) { return r.group ? Cell::real(r.max_cdf_gap, 4) : Cell::blank(); }},
    {"result",
     "`pass` or `fail` for gated groups; `too_few` for a GPU group with fewer than `validate.min_jobs` jobs compared "
     "(not judged); `info` for the CPU group and the utilization row",
     [](const GroupRow& r) { return Cell::text(r.group ? r.group->result() : "info"); }},
};

// A row of utilization.csv: an interval.
struct IntervalRow {
  std::int64_t time_s;
  double recorded_pct, simulated_pct;
};
constexpr std::string_view kUtilization = "mean allocated GPUs over the interval over cluster GPUs, %";
constexpr Column<IntervalRow> kIntervalColumns[] = {
    {"time_s", "interval start, aligned to multiples of `metrics.interval_s`",
     [](const IntervalRow& r) { return Cell::integer(r.time_s); }},
    {"recorded_pct", kUtilization, [](const IntervalRow& r) { return Cell::real(r.recorded_pct, 3); }},
    {"simulated_pct", kUtilization, [](const IntervalRow& r) { return Cell::real(r.simulated_pct, 3); }},
};

// A row of queue_cdf.csv: a point of a group's CDF.
struct CdfRow {
  const DelayCdf& cdf;
  std::int64_t delay_s;
  double share;
};
constexpr Column<CdfRow> kCdfColumns[] = {
    {"group", "as in `fidelity.csv`", [](const CdfRow& r) { return Cell::text(r.cdf.group); }},
    {"source", "`recorded` or `simulated`", [](const CdfRow& r) { return Cell::text(r.cdf.source); }},
    {"delay_s", "a queueing delay, s: 0 and about ten points per decade",
     [](const CdfRow& r) { return Cell::integer(r.delay_s); }},
    {"cdf", "share of the jobs compared with at most that delay",
     [](const CdfRow& r) { return Cell::real(r.share, 5); }},
};

}  // namespace

void write_fidelity(const FidelityReport& rep, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const UtilizationSeries& u = rep.utilization;
  CsvWriter t(dir / "fidelity.csv");
  write_names<GroupRow>(t, kGroupColumns);
  t.end_row();
  for (const FidelityRow& r : rep.rows) {
    write_cells<GroupRow>(t, kGroupColumns, {&r, u, rep.tolerance.max_cdf_gap});
    t.end_row();
  }
  write_cells<GroupRow>(t, kGroupColumns, {nullptr, u, rep.tolerance.max_cdf_gap});
  t.end_row();
  t.commit();

  CsvWriter series(dir / "utilization.csv");
  write_names<IntervalRow>(series, kIntervalColumns);
  series.end_row();
  for (std::size_t k = 0; k < u.recorded_pct.size(); ++k) {
    const std::int64_t time_s = u.from.sec() + static_cast<std::int64_t>(k) * u.interval.sec();
    write_cells<IntervalRow>(series, kIntervalColumns, {time_s, u.recorded_pct[k], u.simulated_pct[k]});
    series.end_row();
  }
  series.commit();

  CsvWriter cdf(dir / "queue_cdf.csv");
  write_names<CdfRow>(cdf, kCdfColumns);
  cdf.end_row();
  for (const DelayCdf& c : rep.cdfs)
    for (const auto& [x, share] : c.points) {
      write_cells<CdfRow>(cdf, kCdfColumns, {c, x, share});
      cdf.end_row();
    }
  cdf.commit();
}

std::vector<FileColumns> fidelity_columns() {
  return {{"fidelity.csv", {group_doc<GroupRow>(kGroupColumns)}},
          {"utilization.csv", {group_doc<IntervalRow>(kIntervalColumns)}},
          {"queue_cdf.csv", {group_doc<CdfRow>(kCdfColumns)}}};
}

}  // namespace acme
