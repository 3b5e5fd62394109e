// timeseries.csv and links.csv (io/sinks.h).
#include "io/sinks.h"

#include <cstdint>
#include <filesystem>

#include "io/csv.h"
#include "io/fragmentation.h"
#include "sim/capacity.h"
#include "sim/link_sharing.h"
#include "sim/power.h"
#include "sim/topology.h"

namespace acme {
namespace {

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
        capacity_(s.capacity),
        power_(s.power),
        interval_(s.interval.sec()),
        total_gpus_(s.total_gpus),
        fragmentation_(s.nodes, s.gpus_per_node) {
    for (std::string_view h : {"time_s", "gpus_total", "gpus_allocated", "jobs_running", "jobs_pending",
                               "gpus_pending", "gpus_free_unusable", "gpus_blocked_by_fragmentation",
                               "gpus_allocated_mean", "jobs_recovering"})
      rows_.text(h);
    if (links_) rows_.text("peak_uplink_load");
    if (capacity_) rows_.text("gpus_in_service");
    if (power_) rows_.text("power_kw");
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
  struct State {
    std::int64_t allocated = 0, running = 0, pending = 0, gpus_pending = 0, unusable = 0, blocked = 0, recovering = 0;
  };
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
    rows_.integer(row_start_).integer(total_gpus_).integer(snapshot_.allocated).integer(snapshot_.running);
    rows_.integer(snapshot_.pending).integer(snapshot_.gpus_pending).integer(snapshot_.unusable);
    rows_.integer(snapshot_.blocked);
    rows_.real(static_cast<double>(area_) / static_cast<double>(interval_));
    rows_.integer(snapshot_.recovering);
    if (links_) rows_.real(links_->peak_uplink_load(row_start_));
    if (capacity_) rows_.integer(capacity_->at(row_start_));
    if (power_) rows_.real(power_->mean_kw(row_start_), 1);
    rows_.end_row();
  }
  // links.csv: per interval and link tier, the mean and peak load and the busiest link.
  void write_links() {
    CsvWriter out(links_path_, capture_, renames_);
    for (std::string_view h : {"time_s", "tier", "links", "mean_load", "peak_load", "busiest_link"}) out.text(h);
    out.end_row();
    for (const LinkLoadRow& r : links_->rows()) {
      out.integer(r.time_s).text(kLinkTierNames[static_cast<std::size_t>(r.tier)]).integer(r.links);
      out.real(r.mean_load, 4).real(r.peak_load, 4);
      if (r.busiest_link >= 0) out.text(topology_->link_name(r.busiest_link));
      else out.blank();
      out.end_row();
    }
    out.commit();
  }

  std::filesystem::path path_, links_path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
  const LinkSharing* links_;
  const Topology* topology_;
  const CapacityLog* capacity_;
  const PowerMeter* power_;
  std::int64_t interval_;
  std::int64_t total_gpus_;
  CsvWriter rows_{path_, capture_, renames_};
  bool started_ = false, snapshot_taken_ = false;
  std::int64_t row_start_ = 0, last_ = 0, area_ = 0;
  State now_, snapshot_;
  Fragmentation fragmentation_;
};

}  // namespace

std::unique_ptr<Sink> make_timeseries_sink(const SinkSettings& settings) {
  return std::make_unique<TimeseriesSink>(settings);
}

}  // namespace acme
