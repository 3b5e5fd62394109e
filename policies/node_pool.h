// Nodes of a std::set (or map) from a free list: an insert after an erase reuses the erased
// node instead of calling malloc. Memory grows in 64 KiB chunks, returned when the pool goes.
// One pool serves one container (one node size), or with ThreadNodeAllocator (below) a thread's
// containers of one node type; allocations of other sizes go to operator new.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <set>
#include <vector>

namespace acme {

class NodePool {
 public:
  void* allocate(std::size_t bytes) {
    if (slot_ == 0) slot_ = round_up(bytes);
    if (bytes > slot_) return ::operator new(bytes);
    ++live_;
    if (free_) {
      Free* f = free_;
      free_ = f->next;
      return f;
    }
    if (used_ + slot_ > kChunk || chunks_.empty()) {
      chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(kChunk));  // not zeroed: nodes are constructed in place
      used_ = 0;
    }
    void* p = chunks_.back().get() + used_;
    used_ += slot_;
    return p;
  }
  void deallocate(void* p, std::size_t bytes) {
    if (bytes > slot_) return ::operator delete(p);
    --live_;
    free_ = new (p) Free{free_};
  }
  // Nodes taken and not given back (here: a node given back to another pool counts in neither).
  std::ptrdiff_t live() const { return live_; }

 private:
  struct Free {
    Free* next;
  };
  static constexpr std::size_t kChunk = 64 * 1024;
  static std::size_t round_up(std::size_t bytes) {
    const std::size_t a = alignof(std::max_align_t);
    return (std::max(bytes, sizeof(Free)) + a - 1) / a * a;
  }
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::size_t used_ = 0, slot_ = 0;
  std::ptrdiff_t live_ = 0;
  Free* free_ = nullptr;
};

// A std allocator that takes single nodes from a NodePool (arrays from operator new).
template <class T>
struct NodePoolAllocator {
  using value_type = T;
  NodePool* pool;
  explicit NodePoolAllocator(NodePool* p) : pool(p) {}
  template <class U>
  NodePoolAllocator(const NodePoolAllocator<U>& other) : pool(other.pool) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(n == 1 ? pool->allocate(sizeof(T)) : ::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) {
    if (n == 1) pool->deallocate(p, sizeof(T));
    else ::operator delete(p);
  }
  template <class U>
  bool operator==(const NodePoolAllocator<U>& other) const { return pool == other.pool; }
};

namespace detail {
struct PoolOwner {  // a base, so that the pool outlives the set's nodes
  std::unique_ptr<NodePool> pool = std::make_unique<NodePool>();
};
}  // namespace detail

// A std::set whose nodes come from a pool of its own, so that an insert after an erase costs no
// malloc. Not copyable.
template <class T>
class PooledSet : private detail::PoolOwner, public std::set<T, std::less<>, NodePoolAllocator<T>> {
 public:
  PooledSet() : std::set<T, std::less<>, NodePoolAllocator<T>>(NodePoolAllocator<T>(pool.get())) {}
  PooledSet(const PooledSet&) = delete;
  PooledSet& operator=(const PooledSet&) = delete;
};

// A stateless allocator for containers that keep theirs in a static (GCC's pb_ds trees): single
// nodes come from a NodePool of the thread's, one per node type, kept for the thread's next
// containers and freed when the thread ends. REQUIRES: a container is made and destroyed on one
// thread (a policy's, as a simulation runs on one). A pool that still has nodes out when its
// thread ends is not freed: a node given back on another thread stays valid.
template <class T>
struct ThreadNodeAllocator {
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  ThreadNodeAllocator() = default;
  template <class U>
  ThreadNodeAllocator(const ThreadNodeAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(n == 1 ? pool().allocate(sizeof(T)) : ::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) {
    if (n == 1) pool().deallocate(p, sizeof(T));
    else ::operator delete(p);
  }
  template <class U>
  bool operator==(const ThreadNodeAllocator<U>&) const { return true; }

 private:
  static NodePool& pool() {
    struct Owner {
      NodePool* pool = new NodePool;
      ~Owner() {
        if (pool->live() == 0) delete pool;
      }
    };
    thread_local Owner owner;
    return *owner.pool;
  }
};

}  // namespace acme
