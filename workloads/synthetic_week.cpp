// The synthetic stream's drawing, week after week (workloads/synthetic_week.h).
#include "workloads/synthetic_week.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include <fmt/core.h>

#include "io/csv.h"
#include "sim/log.h"
#include "sim/prefault.h"

namespace acme {
namespace {

// Golden-ratio-like steps of the Kronecker sequences; 1 and these are independent over the
// rationals, so the four sequences of a type are jointly equidistributed.
constexpr double kAlphaSize = 0.41421356237309503;     // sqrt(2) - 1
constexpr double kAlphaRun = 0.6180339887498949;       // (sqrt(5) - 1) / 2
constexpr double kAlphaCouple = 0.7320508075688772;    // sqrt(3) - 1
constexpr double kAlphaState = 0.6457513110645907;     // sqrt(7) - 2

Discrete zipf_users(const SyntheticModel& m) {
  std::vector<std::pair<double, double>> zipf;
  for (int u = 1; u <= m.users; ++u) zipf.emplace_back(u - 1, 1.0 / std::pow(u, m.user_zipf_s));
  return Discrete(zipf);
}

}  // namespace

// The users' names, like the trace's (u5907): four hex digits of a hash of the index, distinct.
void add_users(UserTable& users, int count) {
  std::vector<bool> taken(1 << 16);
  std::string user;
  for (int u = 0; u < count; ++u) {
    std::uint64_t h = (static_cast<std::uint64_t>(u) + 1) * 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
    auto id = static_cast<std::size_t>((h >> 40) & 0xffff);
    while (taken[id]) id = (id + 1) & 0xffff;
    taken[id] = true;
    char buf[8];
    std::snprintf(buf, sizeof buf, "u%04zx", id);
    user = buf;
    if (count > 60000) user = fmt::format("u{}", u);  // more users than ids
    users.intern(user);
  }
}

// The mean number of jobs drawn over `seconds` at `load`.
double mean_jobs(const SyntheticModel& m, std::int64_t seconds, double load) {
  return m.jobs_per_day * load * static_cast<double>(seconds) / 86400.0;
}

WeekDrawer::WeekDrawer(const SyntheticModel& m, std::int64_t begin, std::int64_t end, double load,
                       std::uint64_t seed, int gpus_per_node)
    : m_(m),
      seeded_(seed),
      rng_(seeded_),
      user_of_(zipf_users(m)),
      thinning_(m.arrivals),
      states_(m),
      begin_(begin),
      end_(end),
      gpus_per_node_(gpus_per_node),
      week_begin_(begin),
      t_(static_cast<double>(begin)),
      last_submit_(begin),
      admission_(m.large_jobs, end) {
  for (std::size_t t = 0; t < kJobTypeCount; ++t) {
    const double alphas[4] = {kAlphaSize, kAlphaRun, kAlphaCouple, kAlphaState};
    for (int i = 0; i < 4; ++i) seq_[t][i] = Kronecker{rng_.uniform(), alphas[i]};
    for (std::size_t k = 0; k < m.gpu_sizes[t].values().size(); ++k) {
      run_by_size_[t].push_back({rng_.uniform(), kAlphaRun});
      state_by_size_[t].push_back({rng_.uniform(), kAlphaState});
    }
  }
  const ArrivalModel& a = m.arrivals;
  session_rate_ = m.jobs_per_day * load / 86400.0 / a.session_jobs_mean;  // per second, mean
  continue_p_ = 1.0 - 1.0 / a.session_jobs_mean;                           // geometric session length
  batch_share_ = m.eval_batch.share_of_eval_pct / 100.0;
  shape_max_ = thinning_.ceiling();
  carry_.window_drafts = mean_jobs(m, end - begin, load);
  const auto room = static_cast<std::size_t>(carry_.window_drafts * 1.05) + 16;
  drafts_.reserve(room);
  drawn_.reserve(room);
}

void WeekDrawer::draft(std::int64_t sessions_end) {
  const ArrivalModel& a = m_.arrivals;
  for (;;) {
    if (t_used_) t_ += rng_.exponential(1.0 / (session_rate_ * shape_max_));
    t_used_ = t_ < static_cast<double>(sessions_end);
    if (!t_used_) break;
    if (!thinning_.keeps(rng_.uniform() * shape_max_, static_cast<std::int64_t>(t_))) continue;
    const auto user = static_cast<std::uint32_t>(user_of_.at(rng_.uniform()));
    double tj = t_;
    for (bool first = true;; first = false) {
      if (!first) {
        if (rng_.uniform() >= continue_p_) break;
        tj += rng_.exponential(a.session_gap_s);
      }
      const auto submit = static_cast<std::int64_t>(std::floor(tj));
      if (submit >= end_) break;
      last_submit_ = std::max(last_submit_, submit);
      const auto index = static_cast<std::uint32_t>(drafts_.size());
      Draft& d = drafts_.emplace_back();  // filled in place, not copied in
      d.submit = submit;
      d.user = user;
      d.type = static_cast<JobType>(m_.type.at(rng_.uniform()));
      const auto ti = static_cast<std::size_t>(d.type);
      if (d.type == JobType::CPU) {
        d.cpus = static_cast<std::int32_t>(m_.cpu_job_cpus.at(rng_.uniform()));
        d.state = static_cast<JobState>(m_.cpu_states.at(rng_.uniform()));
        d.run = m_.durations[ti].at(rng_.uniform());
      } else {
        auto& s = seq_[ti];
        // A coupled job takes size and run time from one quantile of its own sequence, so the
        // coupled jobs (and their heavy tail) are spread as evenly as the others.
        const double p = m_.coupling[ti], uc = s[2].next();
        const bool tied = uc < std::abs(p);
        const double us = tied ? s[1].next() : s[0].next();
        const std::size_t size_index = m_.gpu_sizes[ti].index_at(us);
        const double ud = tied ? (p >= 0 ? us : 1.0 - us) : run_by_size_[ti][size_index].next();
        const double ust = state_by_size_[ti][size_index].next();
        d.gpus = static_cast<std::int32_t>(m_.gpu_sizes[ti].values()[size_index]);
        d.cpus = d.gpus * m_.cpus_per_gpu;
        d.run = m_.durations[ti].at(std::min(ud, 0.9999999999));
        d.state = states_.state(ust, d.gpus, d.run);
        if (d.type == JobType::Eval && batch_share_ > 0 && rng_.uniform() < batch_share_) waiting_.push_back(index);
        if ((d.type == JobType::Pretrain || d.type == JobType::SFT) && batch_share_ > 0 &&
            d.run >= m_.eval_batch.checkpoint_after_s)
          checkpoints_.push_back({submit + m_.eval_batch.checkpoint_after_s,
                                  static_cast<std::int32_t>(m_.eval_batch.jobs.at(rng_.uniform())), user});
      }
      if (m_.max_run_s > 0) d.run = std::min(d.run, m_.max_run_s);
    }
  }
}

void WeekDrawer::batch() {
  // Each waiting Eval job joins the first checkpoint at or after its arrival that has room; the
  // batch is submitted at the checkpoint, stagger_s apart, by the checkpointed job's user.
  if (checkpoints_.empty()) return;
  const std::vector<std::uint32_t> tokens = by_submit(drafts_, std::move(waiting_), week_begin_, last_submit_ + 1);
  std::stable_sort(checkpoints_.begin(), checkpoints_.end(),
                   [](const Checkpoint& x, const Checkpoint& y) { return x.time < y.time; });
  std::size_t next = 0, head = 0;  // tokens [head, next) wait, in arrival order
  for (const Checkpoint& c : checkpoints_) {
    while (next < tokens.size() && drafts_[tokens[next]].submit <= c.time) ++next;
    for (std::int32_t k = 0; k < c.jobs && head < next; ++k, ++head) {
      const std::int64_t at = c.time + k * m_.eval_batch.stagger_s;
      if (at < end_) {
        drafts_[tokens[head]].submit = at;
        drafts_[tokens[head]].user = c.user;
        last_submit_ = std::max(last_submit_, at);
      }
    }
  }
}

void WeekDrawer::balance() {
  // Every balance starts from the drafts as drawn.
  for (const std::uint32_t i : changed_)
    if (i >= handed_) std::tie(drafts_[i].run, drafts_[i].state) = drawn_[i];
  changed_.clear();
  GpuTimeTally tally(m_);
  for (const Week& w : weeks_) tally.absorb(w.tally);
  const double total = balance_gpu_time(drafts_, handed_, m_, tally, carry_, &changed_);
  const std::size_t rescaled = changed_.size();
  balance_states(drafts_, handed_, m_, tally, total, rng_, carry_, &changed_);
  balanced_from_ = handed_;
  state_balanced_.assign(drafts_.size() - handed_, false);
  for (std::size_t k = rescaled; k < changed_.size(); ++k) state_balanced_[changed_[k] - handed_] = true;
}

void WeekDrawer::hand_out(std::size_t kept, std::int64_t watermark, HandOut& out) {
  const std::size_t last = kept < weeks_.size() ? weeks_[kept].first : drafts_.size();
  std::vector<std::uint32_t> handed(last - handed_);
  for (std::size_t i = handed_; i < last; ++i) {
    handed[i - handed_] = static_cast<std::uint32_t>(i);
    carry_.add(drafts_[i], m_, state_balanced_[i - balanced_from_]);
  }
  const std::vector<std::uint32_t> order = by_submit(drafts_, std::move(handed), weeks_.front().begin, last_submit_ + 1);
  // Jobs held from earlier hand-outs go first at equal submit times.
  out.requests.clear();
  out.profiles.clear();
  out.names.clear();
  holding_.clear();
  std::size_t h = 0;
  for (const std::uint32_t i : order) {
    for (; h < held_.size() && held_[h].submit <= drafts_[i].submit; ++h) give(held_[h], watermark, out);
    give(drafts_[i], watermark, out);
  }
  for (; h < held_.size(); ++h) give(held_[h], watermark, out);
  release_before(watermark, out.last, out);
  held_.swap(holding_);
  out.names.add_numbers(given_ + 1, out.requests.size());  // job names are 1, 2, ... in submit order
  given_ += out.requests.size();
  handed_ = last;
  weeks_.erase(weeks_.begin(), weeks_.begin() + static_cast<std::ptrdiff_t>(kept));
}

void WeekDrawer::give(const Draft& d, std::int64_t watermark, HandOut& out) {
  if (d.submit >= watermark) return holding_.push_back(d);
  if (m_.large_jobs.on()) {
    released_.clear();
    admission_.release_until(d.submit, released_);
    for (const Draft& r : released_) emit(r, out);
    if (!admission_.admit(d)) return;
  }
  emit(d, out);
}

void WeekDrawer::release_before(std::int64_t watermark, bool last, HandOut& out) {
  if (!m_.large_jobs.on()) return;
  // Jobs held for the next hand-out are submitted at or after the watermark: no release before
  // it can depend on them.
  released_.clear();
  admission_.release_until(std::min(watermark, end_) - 1, released_);
  for (const Draft& r : released_) emit(r, out);
  if (!last) return;
  log::debug("synthetic {}: {} large job(s) submitted later than drawn, by {:.0f} s on average", m_.cluster,
             admission_.delayed(), admission_.delayed_seconds() / std::max<double>(1, admission_.delayed()));
  if (const std::size_t dropped = admission_.drop_waiting(); dropped > 0)
    log::warn("synthetic {}: {} large job(s) still waiting for admission at the window's end, dropped",
              m_.cluster, dropped);
}

void WeekDrawer::emit(const Draft& d, HandOut& out) {
  JobRequest& r = out.requests.emplace_back();
  r.submit = Time::seconds(d.submit);
  r.type = d.type;
  r.user = d.user;
  r.gpu_num = d.gpus;
  r.cpu_num = d.cpus;
  r.node_num = d.gpus > 0 ? (d.gpus + gpus_per_node_ - 1) / gpus_per_node_ : 1;
  JobProfile& p = out.profiles.emplace_back();
  p.run = Time::seconds(d.run);
  p.final_state = d.state;
  p.set_recorded_start(r.submit);  // no history: a recorded replay starts jobs on submission
}

void WeekDrawer::give_out_week(HandOut& out) {
  out.last = weeks_.size() == 1;
  out.watermark = out.last ? end_ : weeks_[1].begin;
  hand_out(1, out.last ? std::numeric_limits<std::int64_t>::max() : out.watermark, out);
  if (out.last) {  // the drafts' memory goes back
    std::vector<Draft>().swap(drafts_);
    std::vector<std::pair<std::int64_t, JobState>>().swap(drawn_);
  }
}

void WeekDrawer::draw(HandOut& out) {
  constexpr std::int64_t kWeek = SyntheticStream::kWeekSeconds;
  if (drawn_all_) return give_out_week(out);
  for (;;) {
    // A rest of the window shorter than a week joins the last week.
    const std::int64_t week_end = end_ - week_begin_ < 2 * kWeek ? end_ : week_begin_ + kWeek;
    const std::size_t first = drafts_.size();
    waiting_.clear();
    checkpoints_.clear();
    draft(week_end);
    batch();
    Week& w = weeks_.emplace_back(Week{first, week_begin_, GpuTimeTally(m_)});
    for (std::size_t i = first; i < drafts_.size(); ++i) {
      drawn_.emplace_back(drafts_[i].run, drafts_[i].state);
      if (drafts_[i].gpus > 0) w.tally.add(static_cast<std::uint32_t>(i), drafts_[i].type, gpu_seconds(drafts_[i]));
    }
    week_begin_ = week_end;
    if (week_end == end_) {  // the rest is balanced at once, then given out a week at a time
      balance();
      drawn_all_ = true;
      return give_out_week(out);
    }
    // The weeks that end within the first three quarters of the window drawn so far.
    const std::int64_t hand_to = begin_ + (week_end - begin_) * SyntheticStream::kHandOutNumerator /
                                              SyntheticStream::kHandOutDenominator;
    std::size_t kept = 0;
    while (kept + 1 < weeks_.size() && weeks_[kept + 1].begin <= hand_to) ++kept;
    if (kept > 0) {
      balance();
      out.last = false;
      out.watermark = weeks_[kept].begin;
      hand_out(kept, out.watermark, out);
      return;
    }
  }
}

}  // namespace acme
