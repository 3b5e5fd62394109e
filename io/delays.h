// The queuing delays of a group of jobs (whole seconds), for their count, sum and exact
// nearest-rank percentiles in little memory, however many jobs and however deep the queue.
//
// Delays of 0 to 4.5 hours (kCounted s) are counted per second; longer ones, up to 68 years, per
// 4.5-hour bucket; the rare others (negative, or longer still) are kept. A percentile that falls
// inside a bucket needs that bucket's delays: nearest_rank() then gives none and the groups want
// the bucket; the caller goes over the jobs again, collect()s each delay (only those of wanted
// buckets are kept) and calls collected(); the percentile then comes out exact. So a run keeps
// O(kCounted + buckets) numbers a group, plus the delays of the few buckets its percentiles fall
// in, instead of every long delay (a deep queue's run has hundreds of thousands of them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace acme {

class Delays {
 public:
  // A delay of the group. O(1) amortized. REQUIRES: nearest_rank() not called yet.
  void add(std::int64_t s);
  // A delay counted in size() and sum() only (the run's totals, whose percentiles come from its
  // groups', so that no delay is counted twice).
  void note(std::int64_t s) {
    ++n_;
    sum_ += s;
    least_ = std::min(least_, s);
    most_ = std::max(most_, s);
  }
  std::size_t size() const { return n_; }
  std::int64_t sum() const { return sum_; }
  double mean() const { return n_ == 0 ? 0 : static_cast<double>(sum_) / static_cast<double>(n_); }

  // The nearest-rank percentile `pct` (1..100) of `groups`' delays together: the
  // ceil(n x pct / 100)-th smallest (the smallest when that is 0), 0 when they have none. None
  // when it falls in a bucket not collected yet: every group then wants that bucket. Bisection on
  // the value: O(64 x groups x log), after each group's O(kCounted + buckets + far log far) once.
  static std::optional<std::int64_t> nearest_rank(std::span<Delays* const> groups, int pct);

  // Whether a delay in [lo, hi] may fall in a wanted bucket not collected yet.
  bool wants(std::int64_t lo, std::int64_t hi) const { return !wanted_.empty() && wants_between(lo, hi); }
  // A delay add()ed before, given again: kept when its bucket is wanted and not collected yet.
  void collect(std::int64_t s);
  // Every delay was given again: the wanted buckets' delays are complete.
  void collected();

 private:
  static constexpr int kBucketBits = 14;
  static constexpr std::int64_t kCounted = std::int64_t{1} << kBucketBits;  // 4.55 hours
  static constexpr std::int64_t kLongest = std::numeric_limits<std::int32_t>::max();
  static bool bucketed(std::int64_t s) { return s >= kCounted && s <= kLongest; }
  static std::size_t bucket_of(std::int64_t s) { return static_cast<std::size_t>(s >> kBucketBits); }

  void ready();
  bool wants_between(std::int64_t lo, std::int64_t hi) const;
  // How many delays are at most x; for x inside a bucket not collected, every delay of the bucket
  // counts. REQUIRES: ready().
  std::size_t at_most(std::int64_t x) const;
  // The bucket's delays, sorted, once collected; else null.
  const std::vector<std::int32_t>* collected_in(std::size_t bucket) const;

  struct Kept {
    std::vector<std::int32_t> delays;  // sorted once complete
    bool complete = false;
  };

  std::size_t n_ = 0;
  std::int64_t sum_ = 0;
  std::int64_t least_ = std::numeric_limits<std::int64_t>::max(), most_ = std::numeric_limits<std::int64_t>::min();
  std::vector<std::uint32_t> counts_;   // [s]: delays of s seconds (after ready(): of at most s)
  std::vector<std::uint32_t> buckets_;  // [s >> kBucketBits]: delays bucketed there (after ready(): up to it)
  std::vector<std::int64_t> far_;       // the delays neither counted nor bucketed
  std::map<std::size_t, Kept> wanted_;  // buckets a percentile falls in, and their delays
  bool ready_ = false;
};

}  // namespace acme
