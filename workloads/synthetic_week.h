// Internal to the synthetic stream (workloads/synthetic_stream.cpp): the drawing of the window,
// week after week, by one thread at a time. Not part of the workloads API.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "workloads/synthetic_admission.h"
#include "workloads/synthetic_drafts.h"
#include "workloads/synthetic_draws.h"
#include "workloads/synthetic_stream.h"

namespace acme {

// A Kronecker (quasi-random) sequence: x, x + alpha, x + 2 alpha, ... modulo 1.
struct Kronecker {
  double x = 0, alpha = 0;
  double next() {
    x += alpha;
    if (x >= 1.0) x -= 1.0;
    return x;
  }
};

struct Checkpoint {
  std::int64_t time;
  std::int32_t jobs;
  std::uint32_t user;  // the checkpointed job's: its batch of evaluations is that user's
};

// The users' names, like the trace's (u5907): four hex digits of a hash of the index, distinct.
void add_users(UserTable& users, int count);

// The mean number of jobs drawn over `seconds` at `load`.
double mean_jobs(const SyntheticModel& m, std::int64_t seconds, double load);

// The draws, week after week, and the hand-outs; used by one thread at a time.
class WeekDrawer {
 public:
  WeekDrawer(const SyntheticModel& m, std::int64_t begin, std::int64_t end, double load, std::uint64_t seed,
             int gpus_per_node);
  // Draws weeks until the next hand-out is due and gives out its jobs (HandOut), reusing out's
  // buffer.
  void draw(HandOut& out);

 private:
  struct Week {
    std::size_t first;   // its first draft
    std::int64_t begin;  // when its sessions start
    GpuTimeTally tally;  // of its drafts as drawn
  };
  void draft(std::int64_t sessions_end);  // the sessions that start before sessions_end
  void batch();                           // the week's waiting Eval jobs into its checkpoints' batches
  // Balances the drafts not handed out yet as one group.
  void balance();
  // Hands out the weeks before weeks_[kept] (all for kept = weeks_.size()) and gives out, in
  // order, every job handed out with a submit time before `watermark`.
  void hand_out(std::size_t kept, std::int64_t watermark, HandOut& out);
  // After the last balance: hands out the first week left (the last one: every job left).
  void give_out_week(HandOut& out);
  // Gives out one job (after the large jobs released before it), holds it if submitted at or
  // after `watermark`, or lets it wait for admission.
  void give(const Draft& d, std::int64_t watermark, HandOut& out);
  // Gives out the large jobs released before `watermark`; on the last hand-out, drops the rest.
  void release_before(std::int64_t watermark, bool last, HandOut& out);
  void emit(const Draft& d, HandOut& out);  // appends the job to the hand-out

  const SyntheticModel& m_;
  Rng seeded_;
  UniformStream rng_;
  Discrete user_of_;
  std::array<std::array<Kronecker, 4>, kJobTypeCount> seq_;
  std::array<std::vector<Kronecker>, kJobTypeCount> run_by_size_;    // independent run quantiles
  std::array<std::vector<Kronecker>, kJobTypeCount> state_by_size_;  // state quantiles
  ArrivalThinning thinning_;
  StateDraw states_;
  double session_rate_, continue_p_, batch_share_, shape_max_;
  std::int64_t begin_, end_;
  int gpus_per_node_;
  std::int64_t week_begin_;  // of the next week to draw
  double t_;                 // the last candidate session start drawn
  bool t_used_ = true;       // whether it was tried (else it starts a later week)
  std::int64_t last_submit_;  // of every draft

  std::vector<Draft> drafts_;  // every draft so far; those before handed_ are handed out
  std::vector<std::pair<std::int64_t, JobState>> drawn_;  // [draft]: run and state as drawn
  std::size_t handed_ = 0;
  std::size_t given_ = 0;  // jobs given out
  std::vector<Week> weeks_;             // drawn, not handed out
  std::vector<std::uint32_t> changed_;  // drafts the last balance changed
  std::vector<bool> state_balanced_;    // [draft - balanced_from_]: its state set by the last balance
  std::size_t balanced_from_ = 0;       // the first draft of the last balance
  bool drawn_all_ = false;              // the window is drawn, and its last group balanced
  BalanceCarry carry_;
  std::vector<Draft> held_;     // handed out, not given out (submitted at or after the watermark)
  std::vector<Draft> holding_;  // the next held_, while hand_out merges
  Admission admission_;          // of large jobs, across hand-outs
  std::vector<Draft> released_;  // by the admission, to give out before the next job
  std::vector<std::uint32_t> waiting_;   // this week's Eval jobs that wait for a checkpoint
  std::vector<Checkpoint> checkpoints_;  // this week's
};

}  // namespace acme
