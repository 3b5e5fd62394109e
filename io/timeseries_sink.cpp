// timeseries.csv and links.csv (io/sinks.h).
#include "io/sinks.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "io/columns.h"
#include "io/csv.h"
#include "io/fragmentation.h"
#include "io/feature_columns.h"
#include "sim/feature.h"
#include "sim/link_sharing.h"
#include "sim/topology.h"

namespace acme {
namespace {

// The cluster's state at an instant, as the facts tell it.
struct ClusterState {
  std::int64_t allocated = 0, running = 0, pending = 0, gpus_pending = 0, unusable = 0, blocked = 0, recovering = 0;
};

// What an interval's row of timeseries.csv is written from.
struct IntervalRow {
  std::int64_t time_s, total_gpus;
  const ClusterState& at;  // at time_s
  double allocated_mean;
};

constexpr std::string_view kAtInstant = "the state at the instant `time_s`, after every event of that instant";

constexpr Column<IntervalRow> kIntervalColumns[] = {
    {"time_s", "start of the interval", [](const IntervalRow& r) { return Cell::integer(r.time_s); }},
    {"gpus_total", "GPUs in the cluster", [](const IntervalRow& r) { return Cell::integer(r.total_gpus); }},
    {"gpus_allocated", kAtInstant, [](const IntervalRow& r) { return Cell::integer(r.at.allocated); }},
    {"jobs_running", kAtInstant, [](const IntervalRow& r) { return Cell::integer(r.at.running); }},
    {"jobs_pending", kAtInstant, [](const IntervalRow& r) { return Cell::integer(r.at.pending); }},
    {"gpus_pending", kAtInstant, [](const IntervalRow& r) { return Cell::integer(r.at.gpus_pending); }},
    {"gpus_free_unusable",
     "free GPUs on nodes with fewer free GPUs than the smallest per-node share of any waiting job (0 when no GPU job "
     "waits)",
     [](const IntervalRow& r) { return Cell::integer(r.at.unusable); }},
    {"gpus_blocked_by_fragmentation",
     "GPUs asked for by waiting jobs that have enough free GPUs in total but not enough nodes with room for their "
     "share",
     [](const IntervalRow& r) { return Cell::integer(r.at.blocked); }},
    {"gpus_allocated_mean", "mean allocated GPUs over the interval",
     [](const IntervalRow& r) { return Cell::real(r.allocated_mean); }},
    {"jobs_recovering",
     "jobs stopped by an injected failure and not yet queued again (detection and diagnosis), at the instant `time_s`",
     [](const IntervalRow& r) { return Cell::integer(r.at.recovering); }},
};

// A row of links.csv: an interval's load of a link tier.
struct LinkRow {
  const LinkLoadRow& load;
  std::string busiest;  // the busiest link's name; empty: none
};

constexpr Column<LinkRow> kLinkColumns[] = {
    {"time_s", "start of the interval (as in `timeseries.csv`)",
     [](const LinkRow& r) { return Cell::integer(r.load.time_s); }},
    {"tier", "`nic`, `leaf_uplink` or `pod_uplink`",
     [](const LinkRow& r) { return Cell::text(kLinkTierNames[static_cast<std::size_t>(r.load.tier)]); }},
    {"links", "links of the tier", [](const LinkRow& r) { return Cell::integer(r.load.links); }},
    {"mean_load",
     "traffic carried / capacity, averaged over the tier's links and the interval (a link asked for more than it "
     "carries counts as 1)",
     [](const LinkRow& r) { return Cell::real(r.load.mean_load, 4); }},
    {"peak_load", "the largest demand / capacity of any link of the tier during the interval",
     [](const LinkRow& r) { return Cell::real(r.load.peak_load, 4); }},
    {"busiest_link",
     "the link of the peak, named as in `network.faults` (`leaf 1-spine 0`); empty when the tier carried nothing",
     [](const LinkRow& r) { return r.load.busiest_link >= 0 ? Cell::text(r.busiest) : Cell::blank(); }},
};

// timeseries.csv: one row per interval [time_s, time_s + interval). The snapshot columns hold
// the state at the instant time_s, after every event of that instant; gpus_allocated_mean is the
// mean over the interval. Intervals are aligned to multiples of the interval since the epoch.
// Fragmentation (GPUs only; cores are not considered): gpus_free_unusable are free GPUs on nodes
// with fewer free GPUs than the smallest per-node share of any pending job (0 when no GPU job
// waits); gpus_blocked_by_fragmentation is the GPU demand of pending jobs for which enough GPUs
// are free in total but not enough nodes have room for their share.
class TimeseriesSink final : public Sink {
 public:
  explicit TimeseriesSink(const SinkSettings& s)
      : path_(s.out_dir / "timeseries.csv"),
        links_path_(s.out_dir / "links.csv"),
        capture_(s.capture), renames_(s.renames),
        links_(s.links),
        topology_(s.topology),
        feature_columns_(s.features, FeatureOutput::Interval),
        interval_(s.interval.sec()),
        total_gpus_(s.total_gpus),
        fragmentation_(s.nodes, s.gpus_per_node) {
    write_names<IntervalRow>(rows_, kIntervalColumns);
    feature_columns_.write_names(rows_);
    rows_.end_row();
  }

  void on_fact(const Fact& f) override {
    const std::int64_t t = f.time.sec();
    if (!started_) {
      started_ = true;
      row_start_ = floor_div(t, interval_) * interval_;
      last_ = row_start_;
    }
    advance(t);
    const JobRequest& r = *f.request;
    const std::int64_t g = r.gpu_num;
    switch (f.kind) {
      case FactKind::Queued: wait(r, +1); break;
      case FactKind::Started: wait(r, -1); ++now_.running; now_.allocated += g; hold(*f.placement, -1); break;
      case FactKind::Ended: --now_.running; now_.allocated -= g; hold(*f.placement, +1); break;
      case FactKind::Preempted: --now_.running; now_.allocated -= g; hold(*f.placement, +1); wait(r, +1); break;
      case FactKind::Withdrawn: wait(r, -1); break;
      case FactKind::Rejected: break;
      case FactKind::Failed: --now_.running; ++now_.recovering; give_back(*f.placement); break;
      case FactKind::Requeued: --now_.recovering; give_back(*f.placement); wait(r, +1); break;
    }
  }

  void finish(const RunRecord&) override {
    if (started_) {  // the interval holding the last event
      area_ += now_.allocated * (row_start_ + interval_ - last_);
      emit_row();
    }
    rows_.commit();
    if (links_) write_links();
  }

 private:
  static std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b < 0); }

  void wait(const JobRequest& r, int sign) {
    now_.pending += sign;
    now_.gpus_pending += sign * r.gpu_num;
    fragmentation_.wait(r, sign);
  }
  // What a failed job gives back (all or part of what it held).
  void give_back(const Placement& p) {
    now_.allocated -= gpus_of(p);
    hold(p, +1);
  }
  void hold(const Placement& p, int sign) { fragmentation_.hold(p, sign); }

  // Accounts time up to instant t, before the events of t are applied.
  void advance(std::int64_t t) {
    while (t >= row_start_ + interval_) {
      area_ += now_.allocated * (row_start_ + interval_ - last_);
      last_ = row_start_ + interval_;
      emit_row();
      row_start_ += interval_;
      area_ = 0;
      snapshot_taken_ = false;
    }
    if (!snapshot_taken_ && t > row_start_) take_snapshot();
    area_ += now_.allocated * (t - last_);
    last_ = t;
  }
  void take_snapshot() {
    snapshot_ = now_;
    const Fragmentation::Counts f = fragmentation_.count(total_gpus_ - now_.allocated);
    snapshot_.unusable = f.unusable;
    snapshot_.blocked = f.blocked;
    snapshot_taken_ = true;
  }
  void emit_row() {
    if (!snapshot_taken_) take_snapshot();
    const double mean = static_cast<double>(area_) / static_cast<double>(interval_);
    const IntervalRow row{row_start_, total_gpus_, snapshot_, mean};
    write_cells<IntervalRow>(rows_, kIntervalColumns, row);
    feature_columns_.write_cells(rows_, row_start_);
    rows_.end_row();
  }
  // links.csv: per interval and link tier, the mean and peak load and the busiest link.
  void write_links() {
    CsvWriter out(links_path_, capture_, renames_);
    write_names<LinkRow>(out, kLinkColumns);
    out.end_row();
    for (const LinkLoadRow& r : links_->rows()) {
      write_cells<LinkRow>(out, kLinkColumns, {r, r.busiest_link >= 0 ? topology_->link_name(r.busiest_link) : ""});
      out.end_row();
    }
    out.commit();
  }

  std::filesystem::path path_, links_path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const LinkSharing* links_;
  const Topology* topology_;
  FeatureColumnsOf feature_columns_;  // the run's features' columns of the file
  std::int64_t interval_;
  std::int64_t total_gpus_;
  CsvWriter rows_{path_, capture_, renames_};
  bool started_ = false, snapshot_taken_ = false;
  std::int64_t row_start_ = 0, last_ = 0, area_ = 0;
  ClusterState now_, snapshot_;
  Fragmentation fragmentation_;
};

}  // namespace

std::unique_ptr<Sink> make_timeseries_sink(const SinkSettings& settings) {
  return std::make_unique<TimeseriesSink>(settings);
}

std::vector<FileColumns> timeseries_columns() {
  return {{"timeseries.csv", with_feature_columns({group_doc<IntervalRow>(kIntervalColumns)}, FeatureOutput::Interval)},
          {"links.csv", {group_doc<LinkRow>(kLinkColumns)}}};
}

}  // namespace acme
