#include "io/delays.h"

#include <algorithm>
#include <numeric>

namespace acme {
namespace {

// Counts one more at `at`, growing `counts` to twice its size at a time, at most to `limit`.
void count_at(std::vector<std::uint32_t>& counts, std::size_t at, std::size_t limit) {
  if (at >= counts.size()) counts.resize(std::min(limit, std::max(at + 1, 2 * counts.size())), 0);
  ++counts[at];
}

}  // namespace

void Delays::add(std::int64_t s) {
  note(s);
  if (s >= 0 && s < kCounted) count_at(counts_, static_cast<std::size_t>(s), kCounted);
  else if (bucketed(s)) count_at(buckets_, bucket_of(s), bucket_of(kLongest) + 1);
  else far_.push_back(s);
}

std::optional<std::int64_t> Delays::nearest_rank(std::span<Delays* const> groups, int pct) {
  std::size_t n = 0;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  for (Delays* g : groups) {
    g->ready();
    n += g->n_;
    if (g->n_ > 0) lo = std::min(lo, g->least_), hi = std::max(hi, g->most_);
  }
  if (n == 0) return 0;
  const std::size_t wanted = std::max<std::size_t>((n * static_cast<std::size_t>(pct) + 99) / 100, 1);
  if (wanted == n) return hi;  // the largest and the smallest are known
  if (wanted == 1) return lo;
  while (lo < hi) {  // the smallest x with at least `wanted` delays <= x
    const std::int64_t mid = lo + (hi - lo) / 2;
    std::size_t at_most = 0;
    for (const Delays* g : groups) at_most += g->at_most(mid);
    if (at_most >= wanted) hi = mid;
    else lo = mid + 1;
  }
  // In a bucket, lo is exact once every group collected it; until then, its first second.
  if (!bucketed(lo)) return lo;
  const std::size_t b = bucket_of(lo);
  if (std::all_of(groups.begin(), groups.end(), [&](const Delays* g) { return g->collected_in(b) != nullptr; })) return lo;
  for (Delays* g : groups) g->wanted_.try_emplace(b);
  return std::nullopt;
}

bool Delays::wants_between(std::int64_t lo, std::int64_t hi) const {
  if (hi < kCounted || lo > kLongest) return false;
  const auto first = wanted_.lower_bound(bucket_of(std::max(lo, kCounted)));
  for (auto it = first; it != wanted_.end() && it->first <= bucket_of(std::min(hi, kLongest)); ++it)
    if (!it->second.complete) return true;
  return false;
}

void Delays::collect(std::int64_t s) {
  if (!bucketed(s) || wanted_.empty()) return;
  const auto it = wanted_.find(bucket_of(s));
  if (it != wanted_.end() && !it->second.complete) it->second.delays.push_back(static_cast<std::int32_t>(s));
}

void Delays::collected() {
  for (auto& [bucket, kept] : wanted_) {
    if (kept.complete) continue;
    std::sort(kept.delays.begin(), kept.delays.end());
    kept.complete = true;
  }
}

void Delays::ready() {
  if (ready_) return;
  ready_ = true;
  std::sort(far_.begin(), far_.end());
  std::partial_sum(counts_.begin(), counts_.end(), counts_.begin());
  std::partial_sum(buckets_.begin(), buckets_.end(), buckets_.begin());
}

std::size_t Delays::at_most(std::int64_t x) const {
  auto k = static_cast<std::size_t>(std::upper_bound(far_.begin(), far_.end(), x) - far_.begin());
  if (x >= 0 && !counts_.empty()) k += counts_[std::min(static_cast<std::size_t>(x), counts_.size() - 1)];
  if (x < kCounted || buckets_.empty()) return k;
  const std::size_t b = bucket_of(std::min(x, kLongest));
  if (b >= buckets_.size()) return k + buckets_.back();
  const std::vector<std::int32_t>* d = collected_in(b);
  if (!d) return k + buckets_[b];
  const auto in_bucket = std::upper_bound(d->begin(), d->end(), std::min(x, kLongest)) - d->begin();
  return k + buckets_[b - 1] + static_cast<std::size_t>(in_bucket);
}

const std::vector<std::int32_t>* Delays::collected_in(std::size_t bucket) const {
  const auto it = wanted_.find(bucket);
  return it != wanted_.end() && it->second.complete ? &it->second.delays : nullptr;
}

}  // namespace acme
