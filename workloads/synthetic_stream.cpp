#include "workloads/synthetic_stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include "io/csv.h"
#include "sim/prefault.h"
#include "workloads/synthetic_drafts.h"
#include "workloads/synthetic_draws.h"
#include "workloads/synthetic_week.h"

namespace acme {

SyntheticStream::SyntheticStream(const SyntheticModel& model, Time from, Time to, double load, std::uint64_t seed,
                                 int gpus_per_node)
    : drawer_(std::make_unique<WeekDrawer>(model, from.sec(), to.sec(), load, seed, gpus_per_node)),
      model_(model),
      from_(from),
      to_(to),
      load_(load),
      seed_(seed),
      watermark_(from.sec()),
      expected_(static_cast<std::size_t>(mean_jobs(model, (to - from).sec(), load))) {
  drawing_ = std::thread([this] { draw(); });
}

SyntheticStream::~SyntheticStream() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  drawing_.join();
}

void SyntheticStream::draw() {
  std::size_t given = 0, faulted = 0;  // jobs drawn, and the workload's slots mapped
  for (bool last = false; !last;) {
    HandOut c;
    const JobRequest* requests = nullptr;
    const JobProfile* profiles = nullptr;
    std::size_t room = 0;
    {
      const std::lock_guard lock(mutex_);
      if (stop_) return;
      if (!spare_.empty()) {
        c = std::move(spare_.back());
        spare_.pop_back();
      }
      requests = requests_room_, profiles = profiles_room_, room = room_;
    }
    try {
      drawer_->draw(c);
    } catch (...) {
      const std::lock_guard lock(mutex_);
      failed_ = std::current_exception();
      drawn_all_ = true;
      drawn_.notify_one();
      return;
    }
    last = c.last;
    const std::size_t n = c.requests.size();
    {
      const std::lock_guard lock(mutex_);
      ready_.push_back(std::move(c));
      drawn_all_ = last;
      drawn_.notify_one();
    }
    // The slots of the next hand-outs (about as many again, twice over), mapped before the
    // caller copies them in.
    given += n;
    const std::size_t upto = std::min(room, given + 2 * n);
    if (upto > std::max(faulted, given)) {
      const std::size_t from = std::max(faulted, given);
      prefault(requests + from, (upto - from) * sizeof(JobRequest));
      prefault(profiles + from, (upto - from) * sizeof(JobProfile));
      faulted = upto;
    }
  }
}

Workload SyntheticStream::start() {
  Workload w;
  w.source = "synthetic " + model_.cluster + " (load " + format_fixed(load_, 2) + ", seed " + std::to_string(seed_) + ")";
  w.window_from = from_;
  w.window_to = to_;
  add_users(w.users, model_.users);
  const std::size_t room = expected_ + expected_ / 20 + 16;  // a little more than expected
  w.reserve(room, room * 7);                                 // names 1..n, about 7 digits each
  // The drawing thread maps their pages ahead of the jobs, rather than the caller a fault at a time.
  const std::lock_guard lock(mutex_);
  requests_room_ = w.requests.data();
  profiles_room_ = w.profiles.data();
  room_ = std::min(w.requests.capacity(), w.profiles.capacity());
  return w;
}

bool SyntheticStream::append_next(Workload& w) {
  HandOut got;
  {
    std::unique_lock lock(mutex_);
    drawn_.wait(lock, [this] { return !ready_.empty() || drawn_all_; });
    if (ready_.empty()) {
      if (failed_) std::rethrow_exception(failed_);
      return false;
    }
    got = std::move(ready_.front());
    ready_.pop_front();
  }
  watermark_ = got.watermark;
  w.names.append(got.names);
  w.add_keys_of_new_names();
  w.requests.insert(w.requests.end(), got.requests.begin(), got.requests.end());
  w.profiles.insert(w.profiles.end(), got.profiles.begin(), got.profiles.end());
  const std::lock_guard lock(mutex_);
  if (got.last) spare_.clear();  // nothing more to draw into
  else spare_.push_back(std::move(got));
  return true;
}

Workload generate_workload(const SyntheticModel& model, Time from, Time to, double load, std::uint64_t seed,
                           int gpus_per_node) {
  SyntheticStream stream(model, from, to, load, seed, gpus_per_node);
  Workload w = stream.start();
  while (stream.append_next(w)) {
  }
  return w;
}

}  // namespace acme
