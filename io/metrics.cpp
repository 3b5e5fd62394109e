#include "io/metrics.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <vector>

#include "io/delays.h"
#include "io/fairness.h"

namespace acme {
namespace {

struct Accumulator {
  Stats s;
  Delays queue, wait, launch;
  std::int64_t alloc_in_window = 0, wasted = 0, gpu_seconds = 0, delay_sum = 0;
  std::uint64_t long_waits = 0;
  std::optional<Time> first_submit, last_end;

  // Its statistics; the delays' percentiles from `groups`' delays (its own, or the run's job
  // types' for the run's totals). False while a percentile waits for a bucket's delays
  // (Delays::nearest_rank): they are collected, then it is called again.
  bool finish(Time w0, Time w1, int total_gpus, std::span<Accumulator> groups) {
    std::vector<Delays*> queues, waits, launches;
    for (Accumulator& g : groups) {
      queues.push_back(&g.queue);
      waits.push_back(&g.wait);
      launches.push_back(&g.launch);
    }
    bool complete = true;
    const auto rank = [&](const std::vector<Delays*>& of, int pct, std::int64_t& out) {
      const std::optional<std::int64_t> r = Delays::nearest_rank(of, pct);
      out = r.value_or(0);
      complete = complete && r.has_value();
    };
    s.queue_mean_s = queue.size() == 0 ? 0 : static_cast<double>(queue.sum()) / static_cast<double>(queue.size());
    rank(queues, 50, s.queue_p50_s);
    rank(queues, 90, s.queue_p90_s);
    rank(queues, 99, s.queue_p99_s);
    rank(queues, 100, s.queue_max_s);
    s.wait_mean_s = wait.mean();
    rank(waits, 50, s.wait_p50_s);
    rank(waits, 90, s.wait_p90_s);
    rank(waits, 99, s.wait_p99_s);
    s.launch_mean_s = launch.mean();
    rank(launches, 50, s.launch_p50_s);
    rank(launches, 99, s.launch_p99_s);
    rank(launches, 100, s.launch_max_s);
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
    return complete;
  }
};

// Gives each job type's delays again (Delays::collect) for the buckets its percentiles fall in. A
// job's wait and launch are worked out only where they may fall in one: a launch takes at most
// launches.most(), so a wait is at most that shorter than the queuing delay.
void collect_wanted(const RunRecord& run, std::span<Accumulator> by_type) {
  const Workload& w = run.workload;
  const std::int64_t most = run.launches.most().sec();
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    const JobOutcome& o = run.outcomes[i];
    if (!o.start || r.gpu_num <= 0) continue;
    const auto job = static_cast<JobId>(i);
    const Time submit = submitted(w, run.outcomes, job);
    const std::int64_t queued = (*o.start - submit).sec();
    Accumulator& a = by_type[static_cast<std::size_t>(r.type)];
    a.queue.collect(queued);
    if (!a.wait.wants(queued - most, queued) && !a.launch.wants(0, std::min(most, queued))) continue;
    const QueueParts parts = queue_parts(run.launches, w, job, submit, *o.start);
    a.wait.collect(parts.wait.sec());
    a.launch.collect(parts.launch.sec());
  }
  for (Accumulator& a : by_type) a.queue.collected(), a.wait.collected(), a.launch.collected();
}

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
  const auto finish_all = [&] {
    bool complete = p.all.finish(out.window_start, out.window_end, gpus, p.by_type);
    for (Accumulator& a : p.by_type)
      complete = a.finish(out.window_start, out.window_end, gpus, std::span<Accumulator>(&a, 1)) && complete;
    return complete;
  };
  if (!finish_all()) {
    collect_wanted(run, p.by_type);
    if (!finish_all()) throw std::logic_error("SummaryBuilder: a percentile's bucket not collected");
  }
  p.all.s.jain_slowdown_users = jain_index(p.user_slowdown.means());
  p.all.s.jain_slowdown_types = jain_index(p.type_slowdown.means());
  out.all = p.all.s;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    p.by_type[t].s.jain_slowdown_users = jain_index(p.user_slowdown_by_type[t].means());
    out.by_type[t] = p.by_type[t].s;
  }
  return out;
}

RunSummary summarize(const RunRecord& run) { return SummaryBuilder().finish(run); }

}  // namespace acme
