#include "io/metrics.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "io/fairness.h"

namespace acme {
namespace {

// The queuing delays of a group of jobs, for their mean and nearest-rank percentiles without
// keeping each: counted per second below kCounted (nearly all of them), the others kept, in 32
// bits when they fit (4 bytes a delay: a deep queue's run keeps hundreds of thousands), in
// chunks of kChunk, so that a growing group never holds twice its delays while it is copied nor
// room for as many again. O(1) an add (amortized). At most 256 KiB of counts, as far as the
// longest counted delay.
class Delays {
 public:
  // A delay of the group, kept (add) or only counted in its size and sum (note: the run's totals,
  // whose percentiles come from its groups', so that no delay is kept twice).
  void add(std::int64_t s) {
    note(s);
    if (s >= 0 && s < kCounted) {
      const auto at = static_cast<std::size_t>(s);
      if (at >= counts_.size()) counts_.resize(std::min<std::size_t>(kCounted, std::max(at + 1, 2 * counts_.size())), 0);
      ++counts_[at];
    } else if (s >= std::numeric_limits<std::int32_t>::min() && s <= std::numeric_limits<std::int32_t>::max()) {
      keep(static_cast<std::int32_t>(s));
    } else {
      far_.push_back(s);
    }
  }
  void note(std::int64_t s) {
    ++n_;
    sum_ += s;
    least_ = std::min(least_, s);
    most_ = std::max(most_, s);
  }
  std::size_t size() const { return n_; }
  std::int64_t sum() const { return sum_; }
  double mean() const { return n_ == 0 ? 0 : static_cast<double>(sum_) / static_cast<double>(n_); }

  // The ceil(n x pct / 100)-th smallest delay kept by `groups` together, n their count (the
  // smallest when that is 0); 0 when they keep none. Bisection on the value: O(64 x groups x
  // log r), after each group's O(kCounted + r log r) the first time. No add() after it.
  static std::int64_t nearest_rank(std::span<Delays* const> groups, int pct) {
    std::size_t n = 0;
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    for (Delays* g : groups) {
      g->ready();
      n += g->n_;
      if (g->n_ > 0) lo = std::min(lo, g->least_), hi = std::max(hi, g->most_);
    }
    if (n == 0) return 0;
    const std::size_t wanted = std::max<std::size_t>((n * static_cast<std::size_t>(pct) + 99) / 100, 1);
    while (lo < hi) {  // the smallest x with at least `wanted` delays <= x
      const std::int64_t mid = lo + (hi - lo) / 2;
      std::size_t at_most = 0;
      for (const Delays* g : groups) at_most += g->at_most(mid);
      if (at_most >= wanted) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

 private:
  // Sorts what is kept and makes the counts cumulative, once.
  void ready() {
    if (ready_) return;
    ready_ = true;
    for (std::vector<std::int32_t>& chunk : rest_) std::sort(chunk.begin(), chunk.end());
    std::sort(far_.begin(), far_.end());
    std::partial_sum(counts_.begin(), counts_.end(), counts_.begin());
  }
  // How many of the delays are at most x. REQUIRES: ready().
  std::size_t at_most(std::int64_t x) const {
    std::size_t k = static_cast<std::size_t>(std::upper_bound(far_.begin(), far_.end(), x) - far_.begin());
    if (x >= std::numeric_limits<std::int32_t>::min()) {
      const auto x32 = static_cast<std::int32_t>(std::min<std::int64_t>(x, std::numeric_limits<std::int32_t>::max()));
      for (const std::vector<std::int32_t>& chunk : rest_)
        k += static_cast<std::size_t>(std::upper_bound(chunk.begin(), chunk.end(), x32) - chunk.begin());
    }
    if (x >= 0 && !counts_.empty()) k += counts_[std::min(static_cast<std::size_t>(x), counts_.size() - 1)];
    return k;
  }

  // Keeps a delay in the last chunk, which grows to kChunk, then in a new one.
  void keep(std::int32_t s) {
    if (rest_.empty() || rest_.back().size() == kChunk) rest_.emplace_back();
    std::vector<std::int32_t>& chunk = rest_.back();
    if (chunk.size() == chunk.capacity()) chunk.reserve(std::min(kChunk, std::max<std::size_t>(16, 2 * chunk.size())));
    chunk.push_back(s);
  }

  static constexpr std::int64_t kCounted = 1 << 16;
  static constexpr std::size_t kChunk = std::size_t{1} << 16;  // delays (256 KiB) a chunk of rest_ holds
  std::size_t n_ = 0;
  std::int64_t sum_ = 0;
  std::int64_t least_ = std::numeric_limits<std::int64_t>::max(), most_ = std::numeric_limits<std::int64_t>::min();
  std::vector<std::uint32_t> counts_;  // [s]: delays of s seconds (after ready(): of at most s)
  std::vector<std::vector<std::int32_t>> rest_;  // the others that fit 32 bits (68 years either way)
  std::vector<std::int64_t> far_;      // and those that do not
  bool ready_ = false;
};

struct Accumulator {
  Stats s;
  Delays queue, wait, launch;
  std::int64_t alloc_in_window = 0, wasted = 0, gpu_seconds = 0, delay_sum = 0;
  std::uint64_t long_waits = 0;
  std::optional<Time> first_submit, last_end;

  // Its statistics; the delays' percentiles from `groups`' delays (its own, or the run's job
  // types' for the run's totals).
  void finish(Time w0, Time w1, int total_gpus, std::span<Accumulator> groups) {
    std::vector<Delays*> queues, waits, launches;
    for (Accumulator& g : groups) {
      queues.push_back(&g.queue);
      waits.push_back(&g.wait);
      launches.push_back(&g.launch);
    }
    s.queue_mean_s = queue.size() == 0 ? 0 : static_cast<double>(queue.sum()) / static_cast<double>(queue.size());
    s.queue_p50_s = Delays::nearest_rank(queues, 50);
    s.queue_p90_s = Delays::nearest_rank(queues, 90);
    s.queue_p99_s = Delays::nearest_rank(queues, 99);
    s.queue_max_s = Delays::nearest_rank(queues, 100);
    s.wait_mean_s = wait.mean();
    s.wait_p50_s = Delays::nearest_rank(waits, 50);
    s.wait_p90_s = Delays::nearest_rank(waits, 90);
    s.wait_p99_s = Delays::nearest_rank(waits, 99);
    s.launch_mean_s = launch.mean();
    s.launch_p50_s = Delays::nearest_rank(launches, 50);
    s.launch_p99_s = Delays::nearest_rank(launches, 99);
    s.launch_max_s = Delays::nearest_rank(launches, 100);
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
      const std::int64_t queued = (*o.start - submit).sec(), wait = parts.wait.sec(), launch = parts.launch.sec();
      if (a == &p.all) {  // kept by its job type's (Accumulator::finish)
        a->queue.note(queued), a->wait.note(wait), a->launch.note(launch);
      } else {
        a->queue.add(queued), a->wait.add(wait), a->launch.add(launch);
      }
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
  p.all.finish(out.window_start, out.window_end, gpus, p.by_type);
  p.all.s.jain_slowdown_users = jain_index(p.user_slowdown.means());
  p.all.s.jain_slowdown_types = jain_index(p.type_slowdown.means());
  out.all = p.all.s;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    p.by_type[t].finish(out.window_start, out.window_end, gpus, std::span<Accumulator>(&p.by_type[t], 1));
    p.by_type[t].s.jain_slowdown_users = jain_index(p.user_slowdown_by_type[t].means());
    out.by_type[t] = p.by_type[t].s;
  }
  return out;
}

RunSummary summarize(const RunRecord& run) { return SummaryBuilder().finish(run); }

}  // namespace acme
