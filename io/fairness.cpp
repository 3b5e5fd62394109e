#include "io/fairness.h"

#include <algorithm>

#include "io/metrics.h"

namespace acme {

std::optional<double> slowdown_of(const Workload& w, const std::vector<JobOutcome>& outcomes, JobId job) {
  const JobOutcome& o = outcomes[job];
  if (w.requests[job].gpu_num == 0 || !o.start || !o.end || *o.end <= *o.start) return std::nullopt;
  const auto queue = static_cast<double>((*o.start - submitted(w, outcomes, job)).sec());
  const auto stay = static_cast<double>((*o.end - *o.start).sec());
  return (queue + stay) / stay;
}

std::optional<double> jain_index(std::span<const double> x) {
  double sum = 0, squares = 0;
  for (const double v : x) {
    sum += v;
    squares += v * v;
  }
  if (squares == 0) return std::nullopt;
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

std::vector<double> GroupMeans::means() const {
  std::vector<double> out;
  for (std::size_t k = 0; k < sum_.size(); ++k)
    if (n_[k] > 0) out.push_back(sum_[k] / static_cast<double>(n_[k]));
  return out;
}

std::size_t user_slots(const Workload& w) {
  std::size_t n = w.users.size();
  for (const JobRequest& r : w.requests) n = std::max<std::size_t>(n, std::size_t{r.user} + 1);
  return n;
}

std::vector<UserStats> user_stats(const RunRecord& run) {
  const Workload& w = run.workload;
  struct Sums {
    std::int64_t queue = 0;
    std::uint64_t started = 0;  // GPU jobs that started
    double slowdown = 0;
    std::uint64_t slowdowns = 0;
  };
  std::vector<UserStats> users(user_slots(w));
  std::vector<Sums> sums(users.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    const JobOutcome& o = run.outcomes[i];
    UserStats& u = users[r.user];
    Sums& s = sums[r.user];
    ++u.jobs;
    u.gpu_seconds += o.gpu_seconds;
    if (r.gpu_num == 0) continue;
    ++u.gpu_jobs;
    if (!o.start) continue;
    const Time queue = *o.start - submitted(w, run.outcomes, static_cast<JobId>(i));
    s.queue += queue.sec();
    ++s.started;
    u.jobs_waiting_over_1h += queue > kLongWait;
    if (const auto slowdown = slowdown_of(run, static_cast<JobId>(i))) {
      s.slowdown += *slowdown;
      ++s.slowdowns;
    }
  }
  // Each user's queuing delays side by side (a counting sort by user), for the percentiles: O(jobs).
  std::vector<std::size_t> begin(users.size() + 1, 0);
  for (std::size_t u = 0; u < users.size(); ++u) begin[u + 1] = begin[u] + sums[u].started;
  std::vector<std::int64_t> queues(begin.back());
  std::vector<std::size_t> next(begin.begin(), begin.end() - 1);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobOutcome& o = run.outcomes[i];
    if (w.requests[i].gpu_num == 0 || !o.start) continue;
    queues[next[w.requests[i].user]++] = (*o.start - submitted(w, run.outcomes, static_cast<JobId>(i))).sec();
  }

  for (std::size_t k = 0; k < users.size(); ++k) {
    UserStats& u = users[k];
    const Sums& s = sums[k];
    u.user = k < w.users.size() ? w.users[static_cast<std::uint32_t>(k)] : std::string_view{};
    if (s.started > 0) {
      u.queue_mean_s = static_cast<double>(s.queue) / static_cast<double>(s.started);
      u.queue_p95_s = nearest_rank(std::span(queues).subspan(begin[k], s.started), 95);
    }
    if (s.slowdowns > 0) u.slowdown_mean = s.slowdown / static_cast<double>(s.slowdowns);
  }
  std::erase_if(users, [](const UserStats& u) { return u.jobs == 0; });
  std::sort(users.begin(), users.end(), [](const UserStats& a, const UserStats& b) { return a.user < b.user; });
  return users;
}

}  // namespace acme
