// The console table (io/sinks.h).
#include "io/sinks.h"

#include <cstdio>
#include <memory>
#include <string_view>

#include "io/shared_summary.h"

namespace acme {
namespace {

// A table for people on stdout.
class ConsoleSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit ConsoleSink(const SinkSettings& s) : summary_(s.summary ? s.summary : std::make_shared<SharedSummary>()) {}
  void finish(const RunRecord& run) override {
    const RunSummary& sum = summary_->of(run);
    std::printf("\n%-9s %9s %9s %10s %9s %9s %10s %12s %7s %12s %9s %9s %9s\n", "type", "jobs", "gpu_jobs",
                "queue_mean", "queue_p50", "queue_p90", "queue_p99", "gpu_hours", "util%", "wasted_gpu_h",
                "completed", "failed", "cancelled");
    auto row = [](std::string_view label, const Stats& s) {
      std::printf("%-9.*s %9llu %9llu %9.0fs %8llds %8llds %9llds %12.0f %7.2f %12.0f %9llu %9llu %9llu\n",
                  static_cast<int>(label.size()), label.data(), static_cast<unsigned long long>(s.jobs),
                  static_cast<unsigned long long>(s.gpu_jobs), s.queue_mean_s,
                  static_cast<long long>(s.queue_p50_s), static_cast<long long>(s.queue_p90_s),
                  static_cast<long long>(s.queue_p99_s), s.gpu_hours, s.gpu_util_pct, s.wasted_gpu_hours,
                  static_cast<unsigned long long>(s.by_state[0]), static_cast<unsigned long long>(s.by_state[1]),
                  static_cast<unsigned long long>(s.by_state[2]));
    };
    for (std::size_t t = 0; t < kJobTypeCount; ++t)
      if (sum.by_type[t].jobs > 0) row(kJobTypeNames[t], sum.by_type[t]);
    row("all", sum.all);
    // A configured bound as the configuration wrote it (its offset kept); else the first submission
    // or the last end, in UTC.
    auto bound = [&](std::string_view key, Time t) {
      for (const auto& [k, v] : run.config)
        if (k == key && !v.empty()) return v;
      return format_timestamp(t);
    };
    std::printf("\n%s on %s (%d GPUs), window %s .. %s, makespan %.1f days, %llu rejected, %llu rows skipped\n",
                run.workload.source.c_str(), run.cluster.name.c_str(), run.cluster.total_gpus(),
                bound("workload.from", sum.window_start).c_str(), bound("workload.to", sum.window_end).c_str(),
                static_cast<double>(sum.all.makespan_s) / 86400.0,
                static_cast<unsigned long long>(sum.all.by_state[static_cast<std::size_t>(JobState::Rejected)]),
                static_cast<unsigned long long>(run.workload.rows_skipped));
    std::fflush(stdout);
  }

 private:
  std::shared_ptr<SharedSummary> summary_;  // summary.csv's, when both are written
};

}  // namespace

std::unique_ptr<Sink> make_console_sink(const SinkSettings& settings) {
  return std::make_unique<ConsoleSink>(settings);
}

}  // namespace acme
