// A synthetic workload (workloads/synthetic.h) drawn week by week on a second thread and handed
// out as it goes, so that a run replays the first weeks while the next are drawn
// (Simulation::set_feed). `acmesim gen` and every other user of generate_workload take the same
// jobs, all at once.
//
// The drafts are drawn on one random stream, session after session, a week of session starts at a
// time (a rest of the window shorter than a week joins the last week). A week's waiting Eval jobs
// join checkpoints of the same week's Pretrain and SFT jobs (a job none of them picks up keeps its
// arrival). Once the drafts reach a week's end, every week that ends within the first three
// quarters of the window drawn so far is handed out: before that, the two balances run over every
// draft not handed out yet, as one group, from the drafts as drawn, counting what the jobs handed
// out before left over (BalanceCarry); the jobs handed out keep the run times and states this
// gives them, the rest are balanced again at the next hand-out. At the window's end the rest (the
// last quarter of the window or more) is balanced at once, so that the totals of the window meet
// their expectations as with one balance over all of it, then handed out a week at a time, so
// that the replay need not wait for all of it (experiments/calibration/ measures both).
//
// Jobs come out in submit order, named 1, 2, ... in that order: a hand-out gives the jobs submitted
// before the first week it keeps (its watermark: every later job is submitted at or after it) and
// holds the others (a session or a batch that runs past a week) for the next; at equal submit
// times an earlier hand-out's jobs go first, then the order drawn. A window under three weeks is
// handed out at once, as one group.
//
// The drawing thread starts with the stream and runs ahead as far as it can; the caller waits only
// for a hand-out not drawn yet. Destroying the stream stops the thread at its next hand-out.
// Same model, window, load and seed: the same jobs, however and whenever they are taken.
// Cost: the drawing thread's, O(n) and about 0.27 s for a million jobs; the caller's, copying the
// jobs in (about 10 ns a job). Memory: the window's drafts (48 bytes a job) until the last are
// drawn, and the hand-outs not taken yet (about 56 bytes a job).
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

namespace acme {

class WeekDrawer;

// A hand-out's jobs as they come out: every job not yet given with a submit time before
// `watermark`, in submit order (for the last, every job left).
struct HandOut {
  std::vector<JobRequest> requests;
  std::vector<JobProfile> profiles;
  StringTable names;  // 1, 2, ... over all hand-outs
  std::int64_t watermark = 0;
  bool last = false;
};

class SyntheticStream : public JobFeed {
 public:
  static constexpr std::int64_t kWeekSeconds = 7 * 86400;
  static constexpr std::int64_t kHandOutNumerator = 3, kHandOutDenominator = 4;  // three quarters

  // The model must outlive the stream. REQUIRES: from < to, load > 0, gpus_per_node > 0.
  SyntheticStream(const SyntheticModel& model, Time from, Time to, double load, std::uint64_t seed,
                  int gpus_per_node);
  ~SyntheticStream() override;
  SyntheticStream(const SyntheticStream&) = delete;
  SyntheticStream& operator=(const SyntheticStream&) = delete;

  // A workload without jobs: the users, the window and the source, with room for the jobs
  // expected (the drawing thread maps its pages). append_next() appends the jobs to it.
  Workload start();
  // Appends the next jobs, in submit order, to `w` (a workload from start() holding every job
  // given so far); returns false, appending nothing, once every job was given.
  bool append_next(Workload& w) override;
  // Every job is known to have a submit time at or after this (the end of the window when done).
  Time watermark() const { return Time::seconds(watermark_); }
  // The jobs expected in the window (its mean, to size buffers and progress lines).
  std::size_t expected_jobs() const override { return expected_; }

 private:
  void draw();  // the drawing thread: every hand-out, one after the other, into ready_

  std::unique_ptr<WeekDrawer> drawer_;
  const SyntheticModel& model_;
  Time from_, to_;
  double load_;
  std::uint64_t seed_;
  std::int64_t watermark_;
  std::size_t expected_;
  std::mutex mutex_;  // guards the nine below
  std::condition_variable drawn_;
  std::deque<HandOut> ready_;  // drawn, not appended yet
  std::vector<HandOut> spare_;  // appended, their buffers for the drawer to reuse
  // The arrays of the workload start() made, for the drawing thread to fault in (prefault())
  // ahead of the jobs it hands out; room_: their capacity in jobs (0: none yet).
  const JobRequest* requests_room_ = nullptr;
  const JobProfile* profiles_room_ = nullptr;
  std::size_t room_ = 0;
  bool stop_ = false, drawn_all_ = false;
  std::exception_ptr failed_;  // what stopped the drawing thread, if it failed
  std::thread drawing_;
};

// Every job of the window in submit order: a stream's jobs, all taken.
Workload generate_workload(const SyntheticModel& model, Time from, Time to, double load,
                           std::uint64_t seed, int gpus_per_node);

}  // namespace acme
