// Sets of node indices [0, n) as two-level bitsets: one bit per node, and one summary bit per
// 64-node word telling whether that word has any node in it (NodeSetArray keeps them; BitsView
// reads one).
//
// find_next_common walks the members of two sets at once, word by word over the words where both
// have members, skipping empty words 64 at a time through the summaries: O(1 + n / 4096 + the
// words where both have members but none in common), three summary words on a 10,000-node
// cluster. Memory: n / 8 + n / 512 bytes a set.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace acme {

// A two-level bitset's words, read-only: bit i of word w is node 64 w + i; bit j of summary word
// s tells whether word 64 s + j has a member.
struct BitsView {
  const std::uint64_t* words;
  const std::uint64_t* summary;
  std::size_t word_count, summary_count;
  int size;
};

inline constexpr int kNoNode = -1;

// How many members `a` and `b` have in common, counting up to `at_most` (popcounts over the
// words where both have members). REQUIRES: same n.
inline int count_common(const BitsView& a, const BitsView& b, int at_most) {
  int count = 0;
  for (std::size_t s = 0; s < a.summary_count && count < at_most; ++s)
    for (std::uint64_t words = a.summary[s] & b.summary[s]; words && count < at_most; words &= words - 1) {
      const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(words));
      count += std::popcount(a.words[w] & b.words[w]);
    }
  return count < at_most ? count : at_most;
}

// How many members `a` and `b` have in common among [first, last), counting up to `at_most`: a
// popcount a word of the range, O((last - first) / 64). REQUIRES: same n; 0 <= first <= last <= n.
inline int count_common_in(const BitsView& a, const BitsView& b, int first, int last, int at_most) {
  int count = 0;
  for (int w = first / 64; w * 64 < last && count < at_most; ++w) {
    const auto i = static_cast<std::size_t>(w);
    std::uint64_t bits = a.words[i] & b.words[i];
    if (w == first / 64) bits &= ~std::uint64_t{0} << (first % 64);
    if ((w + 1) * 64 > last) bits &= (std::uint64_t{1} << (last % 64)) - 1;
    count += std::popcount(bits);
  }
  return count < at_most ? count : at_most;
}

// The smallest member of both `a` and `b` that is >= `from`, or kNoNode. REQUIRES: same n.
inline int find_next_common(const BitsView& a, const BitsView& b, int from) {
  if (from < 0) from = 0;
  std::size_t w = static_cast<std::size_t>(from) / 64;
  if (w >= a.word_count) return kNoNode;
  if (const std::uint64_t bits = a.words[w] & b.words[w] & (~std::uint64_t{0} << (from % 64)))
    return static_cast<int>(w * 64) + std::countr_zero(bits);
  ++w;
  for (std::size_t s = w / 64; s < a.summary_count; ++s) {
    std::uint64_t words = a.summary[s] & b.summary[s];
    if (s == w / 64) words &= w % 64 == 0 ? ~std::uint64_t{0} : ~std::uint64_t{0} << (w % 64);
    for (; words; words &= words - 1) {
      const std::size_t next = s * 64 + static_cast<std::size_t>(std::countr_zero(words));
      if (const std::uint64_t bits = a.words[next] & b.words[next])
        return static_cast<int>(next * 64) + std::countr_zero(bits);
    }
  }
  return kNoNode;
}

// The smallest member of `a` and `b` that is not in `except` and is >= `from`, or kNoNode: for a
// set that is a difference of nested sets (those with at least g, but not g + 1, of something).
// REQUIRES: same n.
inline int find_next_common_except(const BitsView& a, const BitsView& b, const BitsView& except, int from) {
  for (int node = find_next_common(a, b, from); node != kNoNode;) {
    const auto w = static_cast<std::size_t>(node) / 64;
    if (const std::uint64_t bits = a.words[w] & b.words[w] & ~except.words[w] & (~std::uint64_t{0} << (node % 64)))
      return static_cast<int>(w * 64) + std::countr_zero(bits);
    node = find_next_common(a, b, static_cast<int>((w + 1) * 64));  // the summaries cannot tell `except` apart
  }
  return kNoNode;
}

// Nested node sets 0 .. K - 1 (set k holds set k + 1: the nodes with at least level k of
// something) as two-level bitsets in one array each for words, summaries and sizes: a node that
// moves between levels joins or leaves a run of sets [from, to) with one word update each, no
// search. Set k less set k + 1, the nodes at level k exactly, is find_next_common_except's.
class NodeSetArray {
 public:
  NodeSetArray(int nodes, int sets)
      : words_per_set_((static_cast<std::size_t>(nodes) + 63) / 64),
        summary_per_set_((words_per_set_ + 63) / 64),
        words_(words_per_set_ * static_cast<std::size_t>(sets), 0),
        summary_(summary_per_set_ * static_cast<std::size_t>(sets), 0),
        size_(static_cast<std::size_t>(sets), 0) {}

  int size(int k) const { return size_[static_cast<std::size_t>(k)]; }
  BitsView view(int k) const {
    const auto set = static_cast<std::size_t>(k);
    return {words_.data() + set * words_per_set_, summary_.data() + set * summary_per_set_, words_per_set_,
            summary_per_set_, size_[set]};
  }
  // The node joins sets [from, to). REQUIRES: it is in none of them.
  void add(int node, int from, int to) {
    const auto w = static_cast<std::size_t>(node) / 64;
    const std::uint64_t bit = std::uint64_t{1} << (node % 64), summary_bit = std::uint64_t{1} << (w % 64);
    for (auto k = static_cast<std::size_t>(from); k < static_cast<std::size_t>(to); ++k) {
      words_[k * words_per_set_ + w] |= bit;
      summary_[k * summary_per_set_ + w / 64] |= summary_bit;  // set or not, the word has a member now
      ++size_[k];
    }
  }
  // The node leaves sets [from, to). REQUIRES: it is in all of them.
  void remove(int node, int from, int to) {
    const auto w = static_cast<std::size_t>(node) / 64;
    const std::uint64_t bit = std::uint64_t{1} << (node % 64), summary_bit = std::uint64_t{1} << (w % 64);
    for (auto k = static_cast<std::size_t>(from); k < static_cast<std::size_t>(to); ++k) {
      std::uint64_t& word = words_[k * words_per_set_ + w];
      word &= ~bit;
      std::uint64_t& summary = summary_[k * summary_per_set_ + w / 64];
      summary = (summary & ~summary_bit) | (word != 0 ? summary_bit : 0);  // no branch to mispredict
      --size_[k];
    }
  }

 private:
  std::size_t words_per_set_, summary_per_set_;
  std::vector<std::uint64_t> words_;    // [k * words_per_set_ + w]
  std::vector<std::uint64_t> summary_;  // [k * summary_per_set_ + s]
  std::vector<int> size_;               // [k]
};

}  // namespace acme
