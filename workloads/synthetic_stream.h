// A synthetic workload (workloads/synthetic.h) drawn a week at a time, so that a run can replay
// the first weeks while the next ones are drawn.
//
// The window is cut into chunks of equal length, a week or more (a window of under two weeks is
// one chunk). The drafts are drawn on one random stream, session after session, as for one
// window; at the end of each chunk of session starts, the chunk's drafts are finished on their own:
//  - its waiting Eval jobs join checkpoints of the same week's Pretrain and SFT jobs (a job no
//    checkpoint of its week picks up keeps its own arrival);
//  - the balances run over the week, carrying what earlier weeks left over (BalanceCarry), so
//    that the totals of the whole window, not only of each week, meet their expectations;
//  - the drafts are ordered by submit time.
// A week's jobs may be submitted after it ends (a session or a batch that runs over); they come
// out with the next week's, so that every job comes out in submit order (ties: the earlier week,
// then the order drawn), named 1, 2, ... in that order. A window of at most a week is one chunk.
//
// Threads: a second thread draws every chunk, one after the other, from the moment the stream is
// built; the caller takes them as they are ready. Same model, window, load and seed: the same
// jobs, however and whenever they are taken.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/job.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_drafts.h"

namespace acme {

class ChunkDrawer;

// One chunk's jobs as they come out: every job not yet given with a submit time before
// `watermark`, in submit order (for the last chunk, every job left).
struct ChunkJobs {
  std::vector<Draft> jobs;
  std::int64_t watermark = 0;
  bool last = false;
};

class SyntheticStream : public JobFeed {
 public:
  static constexpr std::int64_t kWeekSeconds = 7 * 86400;

  // The model must outlive the stream. REQUIRES: from < to, load > 0, gpus_per_node > 0.
  SyntheticStream(const SyntheticModel& model, Time from, Time to, double load, std::uint64_t seed,
                  int gpus_per_node);
  ~SyntheticStream() override;
  SyntheticStream(const SyntheticStream&) = delete;
  SyntheticStream& operator=(const SyntheticStream&) = delete;

  // A workload without jobs: the users, the window and the source, with room for the jobs
  // expected. Jobs are appended to it by append_next().
  Workload start() const;
  // Appends the next jobs, in submit order, to `w` (a workload from start() holding every job
  // given so far); returns false, appending nothing, once every job was given.
  bool append_next(Workload& w) override;
  // Every job is known to have a submit time at or after this (the end of the window when done).
  Time watermark() const { return Time::seconds(watermark_); }
  // The jobs expected in the window (its mean, to size buffers and progress lines).
  std::size_t expected_jobs() const override { return expected_; }

 private:
  void draw();  // the drawing thread: every chunk, one after the other, into ready_

  std::unique_ptr<ChunkDrawer> drawer_;
  const SyntheticModel& model_;
  Time from_, to_;
  double load_;
  std::uint64_t seed_;
  int gpus_per_node_;
  std::int64_t watermark_;
  std::size_t expected_;
  std::mutex mutex_;  // guards the four below
  std::condition_variable drawn_;
  std::deque<ChunkJobs> ready_;                 // drawn, not appended yet
  std::vector<std::vector<Draft>> spare_;       // appended chunks' buffers, for the drawer to reuse
  bool stop_ = false, drawn_all_ = false;
  std::exception_ptr failed_;                   // what stopped the drawing thread, if it failed
  std::thread drawing_;
};

// Every job of the window in submit order: a stream's jobs, all taken.
Workload generate_workload(const SyntheticModel& model, Time from, Time to, double load,
                           std::uint64_t seed, int gpus_per_node);

}  // namespace acme
