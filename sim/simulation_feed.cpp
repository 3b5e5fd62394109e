// The Simulation (sim/simulation.h): jobs entering the queue (released) and leaving it unstarted
// (withdrawn), and a workload fed as the replay goes (set_feed).
#include "sim/simulation.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "sim/prefault.h"

namespace acme {

void Simulation::release(JobId job) {
  const JobRequest& r = workload_.requests[job];
  const JobProfile& p = workload_.profiles[job];
  JobOutcome& o = outcomes_[job];
  o.reject = cluster_.never_fits(r);
  if (o.reject == RejectReason::None && policy_->refuses(r, user_name(r), cluster_))
    o.reject = RejectReason::PolicyLimit;
  if (o.reject != RejectReason::None) {
    end_job(job, JobState::Rejected);
    emit(FactKind::Rejected, job);
    return;
  }
  const bool held = replay_ == ReplayMode::Recorded && !p.recorded_start() && !workload_.waits(job);
  status_[job] = held ? Status::Held : Status::Pending;
  ++pending_;
  emit(FactKind::Queued, job);
  OptionalTime cancel = p.cancel_pending_at();
  // A job that waited for another is withdrawn as long after its release as it recorded waiting.
  if (cancel && workload_.waits(job)) cancel = now_ + std::max(*cancel - r.submit, Time{});
  if (cancel && *cancel <= now_) {
    withdraw(job);
    return;
  }
  if (cancel) events_.push(*cancel, EventKind::QueueTimeout, job);
  if (!held) policy_->on_queued(job, r);
}

bool Simulation::withdraw(JobId job) {
  const Status s = status_[job];
  if (s != Status::Pending && s != Status::Held) return false;  // started (or ended) before its deadline
  --pending_;
  end_job(job, workload_.profiles[job].final_state);
  emit(FactKind::Withdrawn, job);
  if (s == Status::Pending) policy_->on_withdrawn(job);
  return true;
}

void Simulation::set_feed(JobFeed& feed, Workload& workload, const EstimateSource* estimates) {
  if (&workload != &workload_) throw std::logic_error("Simulation::set_feed: the feed must append to the replayed workload");
  if (!release_order_.empty() || !workload_.after.empty() || (!estimates_.empty() && !estimates))
    throw std::logic_error("Simulation::set_feed: a fed workload is released in JobId order, without dependencies, "
                           "its estimates made as its jobs come");
  feed_ = &feed;
  fed_ = &workload;
  fed_estimates_ = estimates;
  if (estimates) {
    estimates_.resize(workload_.size());
    for (std::size_t j = 0; j < workload_.size(); ++j) estimates_[j] = estimates->estimate(workload_, static_cast<JobId>(j));
  }
  const std::size_t room = workload_.size() + feed.expected_jobs() + feed.expected_jobs() / 20 + 16;
  status_.reserve(room);
  if (estimates) estimates_.reserve(room);
  outcomes_.reserve(room);
  slot_.reserve(room);
  // Their pages, mapped as the feed reads ahead on a thread of its own, or else here at once
  // rather than a fault at a time as jobs come (while the feed draws its first jobs).
  const std::size_t known = workload_.size();
  if (!feed.map_ahead({{status_.data() + known, sizeof(Status)},
                       {outcomes_.data() + known, sizeof(JobOutcome)},
                       {slot_.data() + known, sizeof(std::uint32_t)}})) {
    const std::size_t expected = known + feed.expected_jobs();  // not the margin: it would count as memory used
    prefault(status_.data(), expected * sizeof(Status));
    prefault(outcomes_.data(), expected * sizeof(JobOutcome));
    prefault(slot_.data(), expected * sizeof(std::uint32_t));
  }
  keep_fed();
}

void Simulation::keep_fed() {
  while (feed_ && timed_releases_ - next_release_ < kFedAhead) {
    {
      const std::unique_lock lock(growth_);  // readers of ended jobs on other threads wait
      const std::size_t first = workload_.size();
      if (!feed_->append_next(*fed_)) {
        feed_ = nullptr;
        break;
      }
      admit(first);
    }
    for (Feature* f : on_jobs_added_) f->jobs_added();
  }
}

void Simulation::admit(std::size_t first) {
  const std::size_t n = workload_.size();
  if (!workload_.after.empty()) throw std::logic_error("JobFeed: fed jobs may not wait for others");
  if (workload_.keys.size() != n) throw std::logic_error("JobFeed: fed jobs need their keys (Workload::keys)");
  status_.resize(n, Status::Unreleased);
  outcomes_.resize(n);
  in_restarted_.resize(n, false);
  slot_.resize(n, 0);
  if (fed_estimates_)
    for (std::size_t j = first; j < n; ++j) estimates_.push_back(fed_estimates_->estimate(workload_, static_cast<JobId>(j)));
  for (std::size_t i = std::max<std::size_t>(first, 1); i < n; ++i)
    if (release_time(i) < release_time(i - 1))
      throw std::logic_error("JobFeed: job " + std::string(workload_.names[static_cast<std::uint32_t>(i)]) +
                             " is released before the one ahead of it");
  if (first == 0 && n > 0) now_ = last_change_ = release_time(0);  // as if built with them
  timed_releases_ = n;
}

}  // namespace acme
