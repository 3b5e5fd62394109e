#include "io/metrics.h"

#include <algorithm>
#include <vector>

#include "io/fairness.h"

namespace acme {
namespace {

// Queuing delays, for their mean and nearest-rank percentiles without keeping each: counted per
// second below kCounted (nearly all of them), the others kept. O(1) an add; O(kCounted + r log r)
// a percentile with r kept. 256 KiB once the first is added.
class Delays {
 public:
  void add(std::int64_t s) {
    ++n_;
    sum_ += s;
    if (s >= 0 && s < kCounted) {
      if (counts_.empty()) counts_.assign(kCounted, 0);
      ++counts_[static_cast<std::size_t>(s)];
    } else {
      rest_.push_back(s);
      sorted_ = false;
    }
  }
  std::size_t size() const { return n_; }
  std::int64_t sum() const { return sum_; }
  double mean() const { return n_ == 0 ? 0 : static_cast<double>(sum_) / static_cast<double>(n_); }
  // The ceil(n x pct / 100)-th smallest (the smallest when that is 0); 0 when empty.
  std::int64_t nearest_rank(int pct) {
    if (n_ == 0) return 0;
    if (!sorted_) std::sort(rest_.begin(), rest_.end());
    sorted_ = true;
    std::size_t rank = std::max<std::size_t>((n_ * static_cast<std::size_t>(pct) + 99) / 100, 1) - 1;
    const auto negative = static_cast<std::size_t>(std::lower_bound(rest_.begin(), rest_.end(), 0) - rest_.begin());
    if (rank < negative) return rest_[rank];
    rank -= negative;
    for (std::size_t v = 0; v < counts_.size(); ++v) {
      if (rank < counts_[v]) return static_cast<std::int64_t>(v);
      rank -= counts_[v];
    }
    return rest_[negative + rank];
  }

 private:
  static constexpr std::int64_t kCounted = 1 << 16;
  std::size_t n_ = 0;
  std::int64_t sum_ = 0;
  std::vector<std::uint32_t> counts_;  // [s]: delays of s seconds
  std::vector<std::int64_t> rest_;     // the others
  bool sorted_ = true;
};

struct Accumulator {
  Stats s;
  Delays queue, wait, launch;
  std::int64_t alloc_in_window = 0, wasted = 0, gpu_seconds = 0, delay_sum = 0;
  std::uint64_t long_waits = 0;
  std::optional<Time> first_submit, last_end;

  void finish(Time w0, Time w1, int total_gpus) {
    s.queue_mean_s = queue.size() == 0 ? 0 : static_cast<double>(queue.sum()) / static_cast<double>(queue.size());
    s.queue_p50_s = queue.nearest_rank(50);
    s.queue_p90_s = queue.nearest_rank(90);
    s.queue_p99_s = queue.nearest_rank(99);
    s.queue_max_s = queue.nearest_rank(100);
    s.wait_mean_s = wait.mean();
    s.wait_p50_s = wait.nearest_rank(50);
    s.wait_p90_s = wait.nearest_rank(90);
    s.wait_p99_s = wait.nearest_rank(99);
    s.launch_mean_s = launch.mean();
    s.launch_p50_s = launch.nearest_rank(50);
    s.launch_p99_s = launch.nearest_rank(99);
    s.launch_max_s = launch.nearest_rank(100);
    s.gpu_hours = static_cast<double>(gpu_seconds) / 3600.0;
    s.wasted_gpu_hours = static_cast<double>(wasted) / 3600.0;
    const double capacity = static_cast<double>(total_gpus) * static_cast<double>((w1 - w0).sec());
    s.gpu_util_pct = capacity > 0 ? 100.0 * static_cast<double>(alloc_in_window) / capacity : 0;
    s.makespan_s = first_submit && last_end ? (*last_end - *first_submit).sec() : 0;
    s.replay_delay_mean_s = s.replay_delayed_jobs
                                ? static_cast<double>(delay_sum) / static_cast<double>(s.replay_delayed_jobs)
                                : 0;
    if (queue.size() > 0)
      s.waiting_over_1h_pct = 100.0 * static_cast<double>(long_waits) / static_cast<double>(queue.size());
  }
};

}  // namespace

std::int64_t nearest_rank(std::span<std::int64_t> v, int pct) {
  if (v.empty()) return 0;
  const std::size_t rank = std::max<std::size_t>((v.size() * static_cast<std::size_t>(pct) + 99) / 100, 1) - 1;
  const auto nth = v.begin() + static_cast<std::ptrdiff_t>(rank);
  std::nth_element(v.begin(), nth, v.end());
  return *nth;
}

struct SummaryBuilder::Parts {
  Accumulator all;
  std::array<Accumulator, kJobTypeCount> by_type;
  // Mean slowdown per user (over all jobs, and per type) and per type, for Jain's indexes.
  GroupMeans user_slowdown{0}, type_slowdown{kJobTypeCount};
  std::vector<GroupMeans> user_slowdown_by_type = std::vector<GroupMeans>(kJobTypeCount, GroupMeans(0));
};

SummaryBuilder::SummaryBuilder() : p_(std::make_unique<Parts>()) {}
SummaryBuilder::~SummaryBuilder() = default;

void SummaryBuilder::add(const Workload& w, const std::vector<JobOutcome>& outcomes, ReplayMode replay,
                         const FirstLaunches& launches) {
  Parts& p = *p_;
  const std::size_t i = added_++;
  const JobRequest& r = w.requests[i];
  const JobOutcome& o = outcomes[i];
  const Time submit = submitted(w, outcomes, static_cast<JobId>(i));
  const auto type = static_cast<std::size_t>(r.type);
  if (const auto slowdown = slowdown_of(w, outcomes, static_cast<JobId>(i))) {
    p.user_slowdown.add(r.user, *slowdown);
    p.user_slowdown_by_type[type].add(r.user, *slowdown);
    p.type_slowdown.add(type, *slowdown);
  }
  const QueueParts parts = o.start && r.gpu_num > 0 ? queue_parts(launches, w, static_cast<JobId>(i), submit, *o.start)
                                                   : QueueParts{};
  for (Accumulator* a : {&p.all, &p.by_type[type]}) {
    Stats& s = a->s;
    ++s.jobs;
    ++s.by_state[static_cast<std::size_t>(o.state)];
    if (r.gpu_num > 0) ++s.gpu_jobs;
    if (!a->first_submit || submit < *a->first_submit) a->first_submit = submit;
    if (o.end && (!a->last_end || *o.end > *a->last_end)) a->last_end = o.end;
    if (!o.start) continue;
    ++s.started;
    if (r.gpu_num > 0) {
      a->queue.add((*o.start - submit).sec());
      a->wait.add(parts.wait.sec());
      a->launch.add(parts.launch.sec());
      a->long_waits += *o.start - submit > kLongWait;
    }
    a->gpu_seconds += o.gpu_seconds;
    a->wasted += o.wasted_gpu_seconds;
    s.preemptions += static_cast<std::uint64_t>(o.preemptions);
    if (replay == ReplayMode::Recorded) {
      const Time release = *released(w, replay, outcomes, static_cast<JobId>(i));
      if (*o.start > release) {
        ++s.replay_delayed_jobs;
        a->delay_sum += (*o.start - release).sec();
      }
    }
  }
}

RunSummary SummaryBuilder::finish(const RunRecord& run) {
  const Workload& w = run.workload;
  while (added_ < w.size()) add(w, run.outcomes, run.replay, run.launches);
  Parts& p = *p_;
  RunSummary out;
  out.window_start = w.window_from.value_or(p.all.first_submit.value_or(Time{}));
  out.window_end = w.window_to.value_or(p.all.last_end.value_or(out.window_start));
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    p.by_type[t].alloc_in_window = run.window_gpu_seconds[t];
    p.all.alloc_in_window += run.window_gpu_seconds[t];
  }
  const int gpus = run.cluster.total_gpus();
  p.all.finish(out.window_start, out.window_end, gpus);
  p.all.s.jain_slowdown_users = jain_index(p.user_slowdown.means());
  p.all.s.jain_slowdown_types = jain_index(p.type_slowdown.means());
  out.all = p.all.s;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    p.by_type[t].finish(out.window_start, out.window_end, gpus);
    p.by_type[t].s.jain_slowdown_users = jain_index(p.user_slowdown_by_type[t].means());
    out.by_type[t] = p.by_type[t].s;
  }
  return out;
}

RunSummary summarize(const RunRecord& run) { return SummaryBuilder().finish(run); }

}  // namespace acme
