// policies/node_pool.h: a set whose nodes come from a NodePool behaves as a plain std::set, and
// an insert after an erase reuses the erased node.
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "policies/node_pool.h"
#include "sim/random.h"

namespace acme::test {

TEST_CASE("A set on a NodePool keeps the same members as a std::set and reuses erased nodes", "[policies]") {
  using Key = std::pair<std::int64_t, std::uint32_t>;
  NodePool pool;
  std::set<Key, std::less<>, NodePoolAllocator<Key>> pooled{NodePoolAllocator<Key>(&pool)};
  std::set<Key> plain;
  Rng rng(7);
  for (int i = 0; i < 20000; ++i) {
    const Key k{static_cast<std::int64_t>(rng.next() % 500), static_cast<std::uint32_t>(rng.next() % 50)};
    if (rng.next() % 3 == 0) {
      CHECK(pooled.erase(k) == plain.erase(k));
    } else {
      CHECK(pooled.insert(k).second == plain.insert(k).second);
    }
  }
  CHECK(std::equal(pooled.begin(), pooled.end(), plain.begin(), plain.end()));
  // The node an erase frees is the next insert's.
  REQUIRE_FALSE(pooled.empty());
  const Key first = *pooled.begin();
  const void* node = &*pooled.begin();
  pooled.erase(pooled.begin());
  CHECK(&*pooled.insert({-1, 0}).first == node);
  CHECK(pooled.begin()->first == -1);
  CHECK(pooled.count(first) == 0);
}

}  // namespace acme::test
