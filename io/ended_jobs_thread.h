// A thread of a sink's own for the ended jobs (Sink::on_ended): how the jobs.csv and summary
// sinks write while the run goes on.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <utility>

#include "sim/sink.h"

namespace acme {

// A thread of a sink's own that handles the ended jobs as their prefix grows (Sink::on_ended), in
// JobId order, a batch at a time while the workload cannot grow (EndedJobs::growth): `handle`
// gets [begin, end). The thread starts at the first on_ended; stop() waits for it to be done.
class EndedJobsThread {
 public:
  using Handle = std::function<void(const EndedJobs&, std::size_t begin, std::size_t end)>;
  explicit EndedJobsThread(Handle handle) : handle_(std::move(handle)) {}
  ~EndedJobsThread() { join(); }

  void on_ended(const EndedJobs& ended) {
    if (!thread_.joinable()) thread_ = std::thread([this, ended] { run(ended); });
    if (ended.count - told_ < kBatch && ended.count < ended.workload.size()) return;
    told_ = ended.count;
    {
      std::lock_guard lock(mu_);
      ended_ = ended.count;
    }
    cv_.notify_one();
  }
  // Waits for the jobs it was told of to be handled; rethrows what `handle` threw. Returns the
  // jobs handled; the rest are the caller's.
  std::size_t stop() {
    join();
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
    return done_;
  }

 private:
  void join() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  static constexpr std::size_t kBatch = 4096;  // jobs the thread is woken for

  void run(const EndedJobs& ended) {
    try {
      for (;;) {
        std::size_t upto;
        bool stop;
        {
          std::unique_lock lock(mu_);
          cv_.wait(lock, [&] { return stop_ || ended_ > done_; });
          upto = ended_;
          stop = stop_;
        }
        // Batches of 256, each while the workload cannot grow (a feed waits at most one batch).
        while (done_ < upto) {
          const std::shared_lock batch(ended.growth);
          const std::size_t end = std::min(upto, done_ + 256);
          handle_(ended, done_, end);
          done_ = end;
        }
        if (stop) return;
      }
    } catch (...) {
      failed_ = std::current_exception();
    }
  }

  Handle handle_;
  std::size_t done_ = 0;  // jobs handled; the thread's while it runs
  std::size_t told_ = 0;  // the prefix the thread was last told of (simulation's thread)
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t ended_ = 0;  // under mu_
  bool stop_ = false;      // under mu_
  std::exception_ptr failed_;
};

}  // namespace acme
