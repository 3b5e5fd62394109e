#include "workloads/synthetic_drafts.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "workloads/synthetic_draws.h"

namespace acme {
namespace {

// Submit order: by submit time, ties by draft index.
bool submitted_before(const std::vector<Draft>& drafts, std::uint32_t x, std::uint32_t y) {
  return drafts[x].submit != drafts[y].submit ? drafts[x].submit < drafts[y].submit : x < y;
}

// The GPU jobs of one group that hold the top share of its GPU-time, largest first (ties by
// draft index), with the group's total GPU-time and GPU jobs.
struct Heaviest {
  std::vector<std::pair<double, std::uint32_t>> jobs;  // (GPU-seconds, draft)
  double total = 0;
  std::size_t gpu_jobs = 0;
  double pool_cut = 0;  // the pool holds every GPU job of the group of at least this
};

// Fills each group's `jobs` (group_of(draft) in [0, groups), any other value for none; total,
// gpu_jobs and pool_cut given) from the drafts from `first` on. Only the jobs above a cut are
// sorted: the group's mean first (in a heavy tail, the few jobs above it hold most of the
// GPU-time), then a quarter of it, and so on until they hold `pct` of it; one pass per round, usually one round, over the pool while
// every cut is at or above its pool cut (the same jobs as a pass over all drafts would find),
// else over all drafts. O(pool or n per round + h log h) for h jobs above the cut.
template <class GroupOf>
void heaviest(std::vector<Heaviest>& out, const std::vector<Draft>& drafts, std::size_t first,
              const std::vector<std::uint32_t>& pool, GroupOf group_of, double pct) {
  const std::size_t groups = out.size();
  std::vector<double> cut(groups), above(groups);
  for (std::size_t g = 0; g < groups; ++g)
    cut[g] = out[g].gpu_jobs > 0 ? out[g].total / static_cast<double>(out[g].gpu_jobs) : 0;
  for (bool again = true; again;) {
    for (std::size_t g = 0; g < groups; ++g) out[g].jobs.clear(), above[g] = 0;
    const auto consider = [&](std::uint32_t i) {
      if (const std::size_t g = group_of(drafts[i]); drafts[i].gpus > 0 && g < groups && gpu_seconds(drafts[i]) >= cut[g]) {
        out[g].jobs.emplace_back(gpu_seconds(drafts[i]), i);
        above[g] += gpu_seconds(drafts[i]);
      }
    };
    bool from_pool = true;
    for (std::size_t g = 0; g < groups; ++g) from_pool = from_pool && (out[g].gpu_jobs == 0 || cut[g] >= out[g].pool_cut);
    if (from_pool) {
      for (std::uint32_t i : pool) consider(i);
    } else {
      for (auto i = static_cast<std::uint32_t>(first); i < drafts.size(); ++i) consider(i);
    }
    again = false;
    for (std::size_t g = 0; g < groups; ++g)
      if (above[g] < out[g].total * pct / 100.0 && out[g].jobs.size() < out[g].gpu_jobs) {
        cut[g] /= 4;
        again = true;
      }
  }
  for (Heaviest& h : out) {
    std::sort(h.jobs.begin(), h.jobs.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::size_t n = 0;
    for (double covered = 0; n < h.jobs.size() && covered < h.total * pct / 100.0; ++n) covered += h.jobs[n].first;
    h.jobs.resize(n);
  }
}

}  // namespace

void BalanceCarry::add(const Draft& d, const SyntheticModel& m, bool state_balanced) {
  ++drafts;
  if (d.gpus == 0) return;
  const auto t = static_cast<std::size_t>(d.type);
  const double g = acme::gpu_seconds(d);
  ++gpu_jobs[t];
  gpu_seconds[t] += g;
  if (!state_balanced) return;
  const auto [pc, pf] = state_odds(m, d.gpus, d.run);
  state_due[0] += pc * g - (d.state == JobState::Cancelled ? g : 0);
  state_due[1] += pf * g - (d.state == JobState::Failed ? g : 0);
  state_due[2] += (1 - pc - pf) * g - (d.state == JobState::Completed ? g : 0);
}

void GpuTimeTally::absorb(const GpuTimeTally& other) {
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    total_[t] += other.total_[t];
    jobs_[t] += other.jobs_[t];
  }
  pool_.insert(pool_.end(), other.pool_.begin(), other.pool_.end());
}

GpuTimeTally::GpuTimeTally(const SyntheticModel& m, double pool_share) {
  double weight = 0, expected = 0;  // over the GPU types, by their share of the mix
  for (std::size_t t = 0; t < kJobTypeCount; ++t)
    if (m.gpu_seconds_per_job[t] > 0) {
      weight += m.type.probability(static_cast<double>(t));
      expected += m.type.probability(static_cast<double>(t)) * m.gpu_seconds_per_job[t];
    }
  constexpr double kNone = std::numeric_limits<double>::infinity();  // a cut that pools nothing
  state_cut_ = !(m.state_balance_gpu_time_pct > 0) ? kNone
               : weight > 0                        ? pool_share * expected / weight
                                                   : 0;  // nothing expected: pool every GPU job
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    const bool balanced = m.gpu_time_balance_pct > 0 && m.gpu_seconds_per_job[t] > 0;
    cut_[t] = std::min(balanced ? pool_share * m.gpu_seconds_per_job[t] : kNone, state_cut_);
  }
}

std::vector<std::uint32_t> by_submit(const std::vector<Draft>& drafts, std::vector<std::uint32_t> which,
                                     std::int64_t begin, std::int64_t end) {
  if (end - begin > INT64_C(0xffffffff)) {  // windows over 136 years: offsets need 64 bits
    std::sort(which.begin(), which.end(), [&](std::uint32_t x, std::uint32_t y) { return submitted_before(drafts, x, y); });
    return which;
  }
  const auto offset = [&](std::uint32_t i) { return static_cast<std::uint64_t>(drafts[i].submit - begin); };
  const int shift = std::max(0, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(end - begin))) -
                                    static_cast<int>(std::bit_width(which.size())));
  std::vector<std::uint32_t> start((static_cast<std::size_t>(end - begin - 1) >> shift) + 2);
  for (const std::uint32_t i : which) ++start[(offset(i) >> shift) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<std::uint64_t> keys(which.size());
  for (const std::uint32_t i : which) keys[start[offset(i) >> shift]++] = offset(i) << 32 | i;
  constexpr std::size_t kMovesPerKey = 16;
  const std::size_t most_moves = kMovesPerKey * keys.size();
  std::size_t moves = 0;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    const std::uint64_t key = keys[i];
    if (keys[i - 1] < key) continue;  // in place, as most are
    std::size_t j = i;
    do keys[j] = keys[j - 1];
    while (--j > 0 && keys[j - 1] > key);
    keys[j] = key;
    if ((moves += i - j) > most_moves) {
      std::sort(keys.begin(), keys.end());
      break;
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i) which[i] = static_cast<std::uint32_t>(keys[i]);
  return which;
}

void balance_states(std::vector<Draft>& drafts, std::size_t first, const SyntheticModel& m, const GpuTimeTally& tally,
                    double total, UniformStream& rng, const BalanceCarry& carry, std::vector<std::uint32_t>* changed) {
  const double pct = m.state_balance_gpu_time_pct;
  if (!(pct > 0)) return;
  std::vector<Heaviest> all(1);
  all[0].total = total;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) all[0].gpu_jobs += tally.jobs(static_cast<JobType>(t));
  all[0].pool_cut = tally.state_cut();
  heaviest(all, drafts, first, tally.pool(), [](const Draft&) { return std::size_t{0}; }, pct);
  const auto& heavy = all[0].jobs;
  constexpr JobState kStates[] = {JobState::Cancelled, JobState::Failed, JobState::Completed};
  std::array<double, 3> due = carry.state_due;
  if (changed)
    for (const auto& job : heavy) changed->push_back(job.second);
  for (const auto& [g, i] : heavy) {
    const auto [pc, pf] = state_odds(m, drafts[i].gpus, drafts[i].run);
    due[0] += pc * g;
    due[1] += pf * g;
    due[2] += (1 - pc - pf) * g;
  }
  for (const auto& [g, i] : heavy) {
    // A state still due less than half this job would overshoot by more than it falls short.
    const double w[3] = {std::max(due[0] - g / 2, 0.0), std::max(due[1] - g / 2, 0.0), std::max(due[2] - g / 2, 0.0)};
    std::size_t s = 0;
    if (w[0] + w[1] + w[2] > 0) {
      const double u = rng.uniform() * (w[0] + w[1] + w[2]);
      s = u < w[0] ? 0 : u < w[0] + w[1] ? 1 : 2;
    } else {  // no state is due half of it: the one furthest below its due
      s = static_cast<std::size_t>(std::max_element(due.begin(), due.end()) - due.begin());
    }
    drafts[i].state = kStates[s];
    due[s] -= g;
  }
}

double balance_gpu_time(std::vector<Draft>& drafts, std::size_t first, const SyntheticModel& m, GpuTimeTally& tally,
                        const BalanceCarry& carry, std::vector<std::uint32_t>* changed) {
  std::array<double, kJobTypeCount> after{};  // each type's GPU-seconds, balanced
  for (std::size_t t = 0; t < kJobTypeCount; ++t) after[t] = tally.total(static_cast<JobType>(t));
  if (m.gpu_time_balance_pct > 0) {
    std::vector<Heaviest> by_type(kJobTypeCount);
    for (std::size_t t = 0; t < kJobTypeCount; ++t)
      if (m.gpu_seconds_per_job[t] > 0) {
        const auto type = static_cast<JobType>(t);
        by_type[t] = Heaviest{{}, tally.total(type), tally.jobs(type), tally.cut(type)};
      }
    heaviest(by_type, drafts, first, tally.pool(), [&](const Draft& d) {
      const auto t = static_cast<std::size_t>(d.type);
      return m.gpu_seconds_per_job[t] > 0 ? t : kJobTypeCount;
    }, m.gpu_time_balance_pct);
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      const Heaviest& h = by_type[t];
      const double jobs = std::max(static_cast<double>(carry.gpu_jobs[t] + h.gpu_jobs),
                                   carry.window_drafts * m.type.probability(static_cast<double>(t)));
      if (jobs < static_cast<double>(kGpuTimeBalanceMinJobs) || !(h.total > 0)) continue;
      double held = 0;
      for (const auto& job : h.jobs) held += job.first;
      // The type's expected GPU-seconds over the drafts so far, less those handed out.
      const double due = m.gpu_seconds_per_job[t] * static_cast<double>(carry.drafts + drafts.size() - first) *
                             m.type.probability(static_cast<double>(t)) -
                         carry.gpu_seconds[t];
      const double factor = std::clamp((due - (h.total - held)) / held, kGpuTimeBalanceFactor.first,
                                       kGpuTimeBalanceFactor.second);
      for (const auto& [g, i] : h.jobs) {
        std::int64_t& run = drafts[i].run;
        run = std::max<std::int64_t>(1, std::llround(static_cast<double>(run) * factor));
        if (m.max_run_s > 0) run = std::min(run, m.max_run_s);
        after[t] += gpu_seconds(drafts[i]) - g;
        tally.rescaled(i, static_cast<JobType>(t), g);
        if (changed) changed->push_back(i);
      }
    }
  }
  double total = 0;
  for (std::size_t t = 0; t < kJobTypeCount; ++t) total += after[t];
  return total;
}

}  // namespace acme
