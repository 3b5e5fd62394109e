// The run's summary, built once for every sink that writes or prints it (summary.csv and
// summary_by_type.csv, the console table): RunOutputs gives its sinks one (SinkSettings::summary).
#pragma once

#include <memory>
#include <optional>

#include "io/ended_jobs_thread.h"
#include "io/metrics.h"

namespace acme {

class SharedSummary {
 public:
  // Jobs ended so far, from a sink told of them as the run goes (Sink::on_ended): a thread of its
  // own adds them to the summary.
  void on_ended(const EndedJobs& ended) { adder_.on_ended(ended); }
  // The run's summary: the first call adds the jobs not added yet and the run's totals, and lets
  // go of what the building held (the queuing delays); later calls give the same.
  const RunSummary& of(const RunRecord& run) {
    if (!summary_) {
      adder_.stop();
      summary_ = builder_->finish(run);
      builder_.reset();
    }
    return *summary_;
  }

 private:
  std::unique_ptr<SummaryBuilder> builder_ = std::make_unique<SummaryBuilder>();
  EndedJobsThread adder_{[this](const EndedJobs& e, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) builder_->add(e.workload, e.outcomes, e.replay, e.launches);
  }};
  std::optional<RunSummary> summary_;
};

}  // namespace acme
