// wasted_by_cause.csv (io/sinks.h): its columns, and the sink that writes them.
#include "io/sinks.h"

#include <filesystem>

#include "io/columns.h"
#include "io/csv.h"
#include "io/feature_columns.h"

namespace acme {
namespace {

// A cause's row.
struct CauseRow {
  std::size_t cause;
  const RunRecord& run;
};

constexpr Column<CauseRow> kCauseColumns[] = {
    {"cause", "the cause: each has its row (a model feature's only in runs with it), described below", [](const CauseRow& r) { return Cell::text(kWasteCauseNames[r.cause]); }},
    {"gpu_hours", "wasted GPU-hours of the cause",
     [](const CauseRow& r) {
       return Cell::real(static_cast<double>(r.run.conservation.wasted_by_cause[r.cause]) / 3600.0);
     }},
};
// wasted_by_cause.csv: wasted GPU-hours by cause, one row per cause: every cause of the core, and
// those of the run's model features (Conservation::causes_listed).
class WasteSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit WasteSink(const SinkSettings& s)
      : path_(s.out_dir / "wasted_by_cause.csv"),
        capture_(s.capture),
        renames_(s.renames),
        feature_columns_(s.features, FeatureOutput::Cause) {}
  void finish(const RunRecord& run) override {
    CsvWriter csv(path_, capture_, renames_);
    write_names<CauseRow>(csv, kCauseColumns);
    feature_columns_.write_names(csv);
    csv.end_row();
    for (std::size_t c = 0; c < kWasteCauseCount; ++c) {
      if (!run.conservation.listed(c)) continue;
      write_cells<CauseRow>(csv, kCauseColumns, {c, run});
      feature_columns_.write_cells(csv, static_cast<std::int64_t>(c));
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  FeatureColumnsOf feature_columns_;  // the run's features' columns of the file
};

}  // namespace

std::unique_ptr<Sink> make_waste_sink(const SinkSettings& settings) { return std::make_unique<WasteSink>(settings); }

std::vector<FileColumns> waste_columns() {
  return {{"wasted_by_cause.csv", with_feature_columns({group_doc<CauseRow>(kCauseColumns)}, FeatureOutput::Cause)}};
}

}  // namespace acme
