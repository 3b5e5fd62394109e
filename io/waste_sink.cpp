// wasted_by_cause.csv (io/sinks.h).
#include "io/sinks.h"

#include <filesystem>

#include "io/csv.h"
#include "sim/power.h"

namespace acme {
namespace {

// wasted_by_cause.csv: wasted GPU-hours by cause, one row per cause, every cause listed.
class WasteSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit WasteSink(const SinkSettings& s)
      : path_(s.out_dir / "wasted_by_cause.csv"), capture_(s.capture), renames_(s.renames), power_(s.power) {}
  void finish(const RunRecord& run) override {
    CsvWriter csv(path_, capture_, renames_);
    csv.text("cause").text("gpu_hours");
    if (power_) csv.text("energy_kwh");
    csv.end_row();
    for (std::size_t c = 0; c < kWasteCauseCount; ++c) {
      csv.text(kWasteCauseNames[c]).real(static_cast<double>(run.conservation.wasted_by_cause[c]) / 3600.0);
      if (power_) csv.real(power_->wasted_kwh(static_cast<WasteCause>(c)), 1);
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const PowerMeter* power_;
};

}  // namespace

std::unique_ptr<Sink> make_waste_sink(const SinkSettings& settings) { return std::make_unique<WasteSink>(settings); }

}  // namespace acme
