// Finding job ids used twice among millions of trace rows, cheaply: for the AcmeTrace reader
// (workloads/acme_trace_rows.h). Inline: added to once a row.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/job.h"

namespace acme::trace_ids {

// The hash of a job id: its key (job_key, sim/job.h), which the reader computes once a row for
// both. About 15 instructions for a trace's ids, where std::hash takes about 120; only equal
// hashes are compared, so any spread will do.
inline std::uint64_t id_hash(std::string_view id) { return job_key(id); }

// A selected row's job id, for finding ids used twice: 32 bits of its hash, its job and line
// (lines past 2^32, in a file of 400 GB, are kept as 4294967295; 0 for a filter-only index).
struct IdRef {
  std::uint32_t hash;
  JobId job;
  std::uint32_t line;
};

// The job ids of the selected rows, to find ids used twice, cheaply on millions of rows. Rows are
// appended in job order (32 bits of each id's hash and its line: 8 bytes, no allocation per row),
// and each hash sets a bit of a filter of 16 to 32 bits a row (at most 4 MiB for a million rows);
// a row whose bit was set already is a suspect. (32 bits: about 100 pairs of a million ids share a
// hash, each settled by comparing the ids.) At the end, only the rows that share a suspect's hash
// are sorted and their ids compared. (A hash table as large as the ids would miss the caches on
// nearly every row.) Unfiltered, it only keeps the rows, for append() to another index. Filter
// only (no rows), it keeps the filter, sized by reserve() and never grown (more rows make more
// suspects), and the suspects: 1 to 3 bytes a row; duplicates() hashes the names again.
class IdIndex {
 public:
  enum class Keep { Rows, Filter };  // the rows (hashes and lines), or only the filter
  explicit IdIndex(bool filtered = true, Keep keep = Keep::Rows) : filtered_(filtered), keep_rows_(keep == Keep::Rows) {}

  std::size_t size() const { return rows_; }
  // Room for `rows` rows, and a filter of 16 to 32 bits for each (filter only: 8 to 16, a suspect
  // in 8 to 16).
  void reserve(std::size_t rows) {
    if (!keep_rows_) return resize_filter(std::bit_ceil(std::max<std::size_t>(rows / 8, 64)));
    hashes_.reserve(rows);
    lines_.reserve(rows);
    // Sized at once, not regrown (every row again) as rows come.
    if (filtered_ && rows * 16 > mask_ + 1) resize_filter(std::bit_ceil(rows / 4));
  }
  // The line of the row of job `job` (0 without rows).
  std::uint32_t line(JobId job) const { return keep_rows_ ? lines_[job] : 0; }
  // Loads the filter word of `hash` into the cache ahead of add().
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&bits_[(static_cast<std::uint32_t>(hash) & mask_) / 64]); }

  // The row of the next job, size().
  void add(std::uint64_t hash64, std::size_t line) {
    const auto hash = static_cast<std::uint32_t>(hash64);
    ++rows_;
    if (keep_rows_) {
      hashes_.push_back(hash);
      lines_.push_back(static_cast<std::uint32_t>(std::min<std::size_t>(line, UINT32_MAX)));
    }
    if (!filtered_) return;
    if (rows_ * 16 <= mask_ || mask_ == UINT32_MAX || !keep_rows_) return mark(hash);
    resize_filter(bits_.size() * 2);  // grown: every row again
  }

  // add() of every row of `later` (which keeps its rows), its lines shifted by `line_base`.
  void append(const IdIndex& later, std::size_t line_base) {
    // Geometric growth: a feed appends a chunk at a time.
    if (const std::size_t need = size() + later.size(); keep_rows_ && need > hashes_.capacity()) {
      hashes_.reserve(std::max(need, 2 * hashes_.capacity()));
      lines_.reserve(hashes_.capacity());
    }
    for (std::size_t i = 0; i < later.size(); ++i) {
      if (i + 16 < later.size()) prefetch(later.hashes_[i + 16]);
      add(later.hashes_[i], line_base + later.lines_[i]);
    }
  }

  // Each row whose id an earlier row has, with the first row of that id, by the later row's line
  // (filter only, by job). REQUIRES: `names` are the rows' ids.
  std::vector<std::pair<IdRef, IdRef>> duplicates(const StringTable& names) const {
    const Suspects s = suspects();
    std::vector<IdRef> same;
    suspected(names, s, 0, rows_, same);
    return pairs(names, std::move(same));
  }
  // duplicates() in three steps, for threads that share the rows: the suspects' hashes; the rows
  // of [first, last) that have one (appended to `same`); the pairs among such rows, in any order.
  struct Suspects {
    std::vector<std::uint32_t> hashes;  // sorted
    std::vector<std::uint64_t> filter;  // of other bits of the hashes: most rows pass without a search
    std::uint64_t mask = 0;
    std::pair<std::size_t, std::uint64_t> bit(std::uint32_t hash) const {
      const std::uint64_t other = std::uint64_t{hash} * 0x9e3779b97f4a7c15ULL >> 32;
      return {(other & mask) / 64, std::uint64_t{1} << other % 64};
    }
  };
  Suspects suspects() const {
    Suspects s{suspects_, std::vector<std::uint64_t>(std::bit_ceil(suspects_.size() / 4 + 1)), 0};
    std::sort(s.hashes.begin(), s.hashes.end());
    s.mask = s.filter.size() * 64 - 1;
    for (std::uint32_t h : s.hashes) s.filter[s.bit(h).first] |= s.bit(h).second;
    return s;
  }
  void suspected(const StringTable& names, const Suspects& s, std::size_t first, std::size_t last,
                 std::vector<IdRef>& same) const {
    for (std::size_t j = first; j < last; ++j) {
      const auto h = keep_rows_ ? hashes_[j] : static_cast<std::uint32_t>(id_hash(names[static_cast<JobId>(j)]));
      if (const auto [word, bit] = s.bit(h); (s.filter[word] & bit) && std::binary_search(s.hashes.begin(), s.hashes.end(), h))
        same.push_back({h, static_cast<JobId>(j), line(static_cast<JobId>(j))});
    }
  }
  static std::vector<std::pair<IdRef, IdRef>> pairs(const StringTable& names, std::vector<IdRef> same) {
    std::sort(same.begin(), same.end(), [](const IdRef& a, const IdRef& b) {
      return a.hash != b.hash ? a.hash < b.hash : a.job < b.job;  // by hash, then in file order
    });
    std::vector<std::pair<IdRef, IdRef>> out;
    for (std::size_t first = 0, i = 1; i < same.size(); ++i) {
      if (same[i].hash != same[first].hash) first = i;
      for (std::size_t k = first; k < i; ++k)
        if (names[same[k].job] == names[same[i].job]) {
          out.emplace_back(same[i], same[k]);
          break;
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.first.line != b.first.line ? a.first.line < b.first.line : a.first.job < b.first.job;
    });
    return out;
  }

 private:
  // A filter of `words` words, every row kept marked again.
  void resize_filter(std::size_t words) {
    bits_.assign(words, 0);
    mask_ = std::min<std::uint64_t>(bits_.size() * 64 - 1, UINT32_MAX);
    suspects_.clear();
    for (const std::uint32_t h : hashes_) mark(h);
  }
  void mark(std::uint32_t hash) {
    std::uint64_t& word = bits_[(hash & mask_) / 64];
    const std::uint64_t bit = std::uint64_t{1} << hash % 64;
    if (word & bit) suspects_.push_back(hash);
    word |= bit;
  }
  bool filtered_;
  bool keep_rows_;
  std::size_t rows_ = 0;
  std::vector<std::uint32_t> hashes_;  // [job]: the hash's low 32 bits
  std::vector<std::uint32_t> lines_;   // [job]
  std::vector<std::uint64_t> bits_ = std::vector<std::uint64_t>(64);
  std::uint64_t mask_ = 64 * 64 - 1;     // bits_ holds mask_ + 1 bits, a power of two
  std::vector<std::uint32_t> suspects_;  // hashes whose bit another row had set
};

}  // namespace acme::trace_ids
