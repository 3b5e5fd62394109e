// The placement index's node sets (sim/node_set.h) against a plain set of nodes: random joins and
// leaves of runs of nested sets, then every set's members, size, searches, common counts and
// differences.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

#include "sim/node_set.h"

namespace acme::test {

TEST_CASE("Node sets keep their members, sizes and summaries through random joins and leaves", "[node_set]") {
  for (const int nodes : {1, 63, 64, 65, 300, 5000}) {
    constexpr int kSets = 5;
    NodeSetArray sets(nodes, kSets);
    std::vector<int> level(static_cast<std::size_t>(nodes), 0);  // node n is in sets [0, level[n])
    std::mt19937 rng(static_cast<unsigned>(nodes));
    for (int step = 0; step < 20000; ++step) {
      const int n = static_cast<int>(rng() % static_cast<unsigned>(nodes));
      const int to = static_cast<int>(rng() % (kSets + 1));
      int& at = level[static_cast<std::size_t>(n)];
      if (to > at) sets.add(n, at, to);
      else if (to < at) sets.remove(n, to, at);
      at = to;
    }
    for (int k = 0; k < kSets; ++k) {
      std::set<int> members;
      for (int n = 0; n < nodes; ++n)
        if (level[static_cast<std::size_t>(n)] > k) members.insert(n);
      const BitsView view = sets.view(k);
      CHECK(sets.size(k) == static_cast<int>(members.size()));
      std::vector<int> found;  // every member, by searches against the set itself
      for (int n = find_next_common(view, view, 0); n != kNoNode; n = find_next_common(view, view, n + 1)) found.push_back(n);
      CHECK(found == std::vector<int>(members.begin(), members.end()));
      for (int first = 0; first <= nodes; first += 37)  // members in a range, against the plain set
        for (int last = first; last <= nodes; last += 53) {
          const auto in = static_cast<int>(std::distance(members.lower_bound(first), members.lower_bound(last)));
          CHECK(count_common_in(view, view, first, last, nodes) == in);
          CHECK(count_common_in(view, view, first, last, 3) == std::min(in, 3));
        }
      for (std::size_t s = 0; s < view.summary_count; ++s)  // a summary bit is set exactly when its word has a member
        for (std::size_t b = 0; b < 64 && s * 64 + b < view.word_count; ++b)
          CHECK(((view.summary[s] >> b) & 1) == (view.words[s * 64 + b] != 0 ? 1u : 0u));
      if (k + 1 < kSets) {  // set k + 1 lies inside set k: what they have in common is set k + 1
        const BitsView inner = sets.view(k + 1);
        CHECK(count_common(view, inner, nodes) == sets.size(k + 1));
        std::vector<int> only_k, want;  // set k less set k + 1: the nodes at level k + 1 exactly
        for (int n = find_next_common_except(view, view, inner, 0); n != kNoNode; n = find_next_common_except(view, view, inner, n + 1))
          only_k.push_back(n);
        for (int n = 0; n < nodes; ++n)
          if (level[static_cast<std::size_t>(n)] == k + 1) want.push_back(n);
        CHECK(only_k == want);
      }
    }
  }
}

}  // namespace acme::test
