#include "sim/io/metrics.h"

#include <algorithm>
#include <vector>

#include "sim/io/csv.h"
#include "sim/io/fairness.h"

namespace acme {
namespace {

// nearest_rank, with `v` partitioned so that later calls with larger pct only search after this
// one's rank (`searched_from`). O(n) per call, no full sort.
std::int64_t nearest_rank(std::span<std::int64_t> v, std::size_t& searched_from, int pct) {
  if (v.empty()) return 0;
  const std::size_t rank = std::max<std::size_t>((v.size() * static_cast<std::size_t>(pct) + 99) / 100, 1) - 1;
  const auto nth = v.begin() + static_cast<std::ptrdiff_t>(rank);
  std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(searched_from), nth, v.end());
  searched_from = rank;
  return *nth;
}

struct Accumulator {
  Stats s;
  std::vector<std::int64_t> queue;
  std::int64_t alloc_in_window = 0, wasted = 0, gpu_seconds = 0, delay_sum = 0;
  std::uint64_t long_waits = 0;
  std::optional<Time> first_submit, last_end;

  void finish(Time w0, Time w1, int total_gpus) {
    std::int64_t sum = 0;
    for (auto q : queue) sum += q;
    s.queue_mean_s = queue.empty() ? 0 : static_cast<double>(sum) / static_cast<double>(queue.size());
    std::size_t searched_from = 0;
    s.queue_p50_s = nearest_rank(queue, searched_from, 50);
    s.queue_p90_s = nearest_rank(queue, searched_from, 90);
    s.queue_p99_s = nearest_rank(queue, searched_from, 99);
    s.queue_max_s = nearest_rank(queue, searched_from, 100);
    s.gpu_hours = static_cast<double>(gpu_seconds) / 3600.0;
    s.wasted_gpu_hours = static_cast<double>(wasted) / 3600.0;
    const double capacity = static_cast<double>(total_gpus) * static_cast<double>((w1 - w0).sec());
    s.gpu_util_pct = capacity > 0 ? 100.0 * static_cast<double>(alloc_in_window) / capacity : 0;
    s.makespan_s = first_submit && last_end ? (*last_end - *first_submit).sec() : 0;
    s.replay_delay_mean_s = s.replay_delayed_jobs
                                ? static_cast<double>(delay_sum) / static_cast<double>(s.replay_delayed_jobs)
                                : 0;
    if (!queue.empty())
      s.waiting_over_1h_pct = 100.0 * static_cast<double>(long_waits) / static_cast<double>(queue.size());
  }
};

}  // namespace

std::int64_t nearest_rank(std::span<std::int64_t> v, int pct) {
  std::size_t searched_from = 0;
  return nearest_rank(v, searched_from, pct);
}

RunSummary summarize(const RunRecord& run) {
  const Workload& w = run.workload;
  RunSummary out;
  std::optional<Time> first, last;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Time submit = submitted(w, run.outcomes, static_cast<JobId>(i));
    if (!first || submit < *first) first = submit;
    if (const auto& e = run.outcomes[i].end; e && (!last || *e > *last)) last = *e;
  }
  out.window_start = w.window_from.value_or(first.value_or(Time{}));
  out.window_end = w.window_to.value_or(last.value_or(out.window_start));

  Accumulator all;
  std::array<Accumulator, kJobTypeCount> by_type;
  // Mean slowdown per user (over all jobs, and per type) and per type, for Jain's indexes.
  const std::size_t users = user_slots(w);
  GroupMeans user_slowdown(users), type_slowdown(kJobTypeCount);
  std::vector<GroupMeans> user_slowdown_by_type(kJobTypeCount, GroupMeans(users));
  {  // The queueing delays' arrays at their exact sizes: grown by doubling they would take up to
     // twice the room, at the end of a run that has just freed its run state for them.
    std::array<std::size_t, kJobTypeCount> started{};
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w.requests[i].gpu_num > 0 && run.outcomes[i].start) ++started[static_cast<std::size_t>(w.requests[i].type)];
    std::size_t total = 0;
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      by_type[t].queue.reserve(started[t]);
      total += started[t];
    }
    all.queue.reserve(total);
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    const JobOutcome& o = run.outcomes[i];
    const Time submit = submitted(w, run.outcomes, static_cast<JobId>(i));
    const auto type = static_cast<std::size_t>(r.type);
    if (const auto slowdown = slowdown_of(run, static_cast<JobId>(i))) {
      user_slowdown.add(r.user, *slowdown);
      user_slowdown_by_type[type].add(r.user, *slowdown);
      type_slowdown.add(type, *slowdown);
    }
    for (Accumulator* a : {&all, &by_type[type]}) {
      Stats& s = a->s;
      ++s.jobs;
      ++s.by_state[static_cast<std::size_t>(o.state)];
      if (r.gpu_num > 0) ++s.gpu_jobs;
      if (!a->first_submit || submit < *a->first_submit) a->first_submit = submit;
      if (o.end && (!a->last_end || *o.end > *a->last_end)) a->last_end = o.end;
      if (!o.start) continue;
      ++s.started;
      if (r.gpu_num > 0) {
        a->queue.push_back((*o.start - submit).sec());
        a->long_waits += *o.start - submit > kLongWait;
      }
      a->gpu_seconds += o.gpu_seconds;
      a->wasted += o.wasted_gpu_seconds;
      s.preemptions += static_cast<std::uint64_t>(o.preemptions);
      if (run.replay == ReplayMode::Recorded) {
        const Time release = *released(w, run.replay, run.outcomes, static_cast<JobId>(i));
        if (*o.start > release) {
          ++s.replay_delayed_jobs;
          a->delay_sum += (*o.start - release).sec();
        }
      }
    }
  }
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    by_type[t].alloc_in_window = run.window_gpu_seconds[t];
    all.alloc_in_window += run.window_gpu_seconds[t];
  }
  const int gpus = run.cluster.total_gpus();
  all.finish(out.window_start, out.window_end, gpus);
  all.s.jain_slowdown_users = jain_index(user_slowdown.means());
  all.s.jain_slowdown_types = jain_index(type_slowdown.means());
  out.all = all.s;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    by_type[t].finish(out.window_start, out.window_end, gpus);
    by_type[t].s.jain_slowdown_users = jain_index(user_slowdown_by_type[t].means());
    out.by_type[t] = by_type[t].s;
  }
  return out;
}

namespace {

template <std::size_t S>
std::string state_count(const Stats& s) { return std::to_string(s.by_state[S]); }

// A blank cell for none.
std::string fixed_or_blank(const std::optional<double>& v) { return v ? format_fixed(*v, 3) : ""; }

}  // namespace

std::span<const StatColumn> stat_columns() {
  static const StatColumn kColumns[] = {
      {"jobs", "jobs in the row", [](const Stats& s) { return std::to_string(s.jobs); }},
      {"gpu_jobs", "jobs asking for at least one GPU", [](const Stats& s) { return std::to_string(s.gpu_jobs); }},
      {"started", "jobs that started", [](const Stats& s) { return std::to_string(s.started); }},
      {"queue_mean_s", "mean queuing delay (start - submit) of GPU jobs that started, s",
       [](const Stats& s) { return format_fixed(s.queue_mean_s, 3); }},
      {"queue_p50_s", "median queuing delay, s", [](const Stats& s) { return std::to_string(s.queue_p50_s); }},
      {"queue_p90_s", "90th percentile queuing delay, s", [](const Stats& s) { return std::to_string(s.queue_p90_s); }},
      {"queue_p99_s", "99th percentile queuing delay, s", [](const Stats& s) { return std::to_string(s.queue_p99_s); }},
      {"queue_max_s", "longest queuing delay, s", [](const Stats& s) { return std::to_string(s.queue_max_s); }},
      {"gpu_hours", "GPU-hours held by jobs", [](const Stats& s) { return format_fixed(s.gpu_hours, 3); }},
      {"gpu_util_pct", "allocated GPU-time in the window over cluster GPUs x window, %",
       [](const Stats& s) { return format_fixed(s.gpu_util_pct, 3); }},
      {"wasted_gpu_hours", "wasted GPU-hours: failed jobs, work lost to preemption, idle evaluation GPUs",
       [](const Stats& s) { return format_fixed(s.wasted_gpu_hours, 3); }},
      {"preemptions", "times jobs were stopped and requeued", [](const Stats& s) { return std::to_string(s.preemptions); }},
      {"makespan_s", "last end - first submit, s", [](const Stats& s) { return std::to_string(s.makespan_s); }},
      {"replay_delayed_jobs", "recorded replay: jobs that started later than recorded",
       [](const Stats& s) { return std::to_string(s.replay_delayed_jobs); }},
      {"replay_delay_mean_s", "recorded replay: mean delay of those jobs, s",
       [](const Stats& s) { return format_fixed(s.replay_delay_mean_s, 3); }},
      {"jobs_completed", "jobs that ended COMPLETED", state_count<0>},
      {"jobs_failed", "jobs that ended FAILED", state_count<1>},
      {"jobs_cancelled", "jobs that ended CANCELLED (also when withdrawn while pending)", state_count<2>},
      {"jobs_preempted", "jobs that ended PREEMPTED", state_count<3>},
      {"jobs_timeout", "jobs that ended TIMEOUT", state_count<4>},
      {"jobs_node_fail", "jobs that ended NODE_FAIL", state_count<5>},
      {"jobs_running", "jobs still running when the trace ended (cut off at its horizon)", state_count<6>},
      {"jobs_rejected", "jobs refused on arrival: they can never fit on the modeled cluster or never be started by the policy", state_count<7>},
      {"jain_slowdown_users", "Jain's index of the users' mean slowdowns (sim/io/fairness.h); blank without any",
       [](const Stats& s) { return fixed_or_blank(s.jain_slowdown_users); }},
      {"jain_slowdown_types", "Jain's index of the job types' mean slowdowns; summary.csv only, blank per type",
       [](const Stats& s) { return fixed_or_blank(s.jain_slowdown_types); }},
      {"waiting_over_1h_pct", "started GPU jobs whose queuing delay exceeded 3600 s, %; blank without any",
       [](const Stats& s) { return fixed_or_blank(s.waiting_over_1h_pct); }},
  };
  return kColumns;
}

}  // namespace acme
