// One column of a workload (Workload's requests, profiles and after; a StringTable's offsets and
// bytes): std::vector's interface over memory of its own, or over a read-only view of a mapped
// file (a trace cache entry, workloads/trace_cache.h) that it keeps mapped. A view is copied into
// memory of its own at the first change (any non-const access), so the file is never written;
// copies of a view share it. Trivially copyable elements only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace acme {

template <class T>
class JobColumn {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  JobColumn() = default;
  JobColumn(std::initializer_list<T> values) { insert(end(), values.begin(), values.end()); }
  JobColumn(const JobColumn& o) { *this = o; }
  JobColumn(JobColumn&& o) noexcept { swap(o); }
  JobColumn& operator=(const JobColumn& o) {
    if (this == &o) return *this;
    if (o.view_) {
      release();
      data_ = o.data_, size_ = o.size_, capacity_ = o.size_, view_ = o.view_;
    } else {
      clear();
      reserve(o.size_);
      copy_in(o.data_, o.size_);
    }
    return *this;
  }
  JobColumn& operator=(JobColumn&& o) noexcept {
    JobColumn(std::move(o)).swap(*this);
    return *this;
  }
  ~JobColumn() { release(); }
  void swap(JobColumn& o) noexcept {
    std::swap(data_, o.data_), std::swap(size_, o.size_), std::swap(capacity_, o.capacity_), std::swap(view_, o.view_);
  }

  // Jobs [0, size) of a read-only array at `data` that `keep` keeps valid; grown by show().
  void view(const T* data, std::size_t size, std::shared_ptr<const void> keep) {
    release();
    data_ = const_cast<T*>(data), size_ = size, capacity_ = size, view_ = std::move(keep);
  }
  // A view shows `size` jobs of its array from now on (the caller knows the array holds them).
  void show(std::size_t size) {
    if (!view_) throw std::logic_error("JobColumn::show: not a view");
    size_ = capacity_ = size;
  }
  bool is_view() const { return view_ != nullptr; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  const T* data() const { return data_; }
  T* data() { return own(); }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& operator[](std::size_t i) { return own()[i]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T* begin() { return own(); }
  T* end() { return own() + size_; }
  const T& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("JobColumn::at");
    return data_[i];
  }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  T& back() { return own()[size_ - 1]; }

  // A view's capacity is its size: whatever grows it first copies it (reallocate).
  void reserve(std::size_t n) {
    if (n > capacity_) reallocate(std::max(n, size_));
  }
  void push_back(const T& v) { emplace_back(v); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) [[unlikely]]
      return grown_by(T{std::forward<Args>(args)...});  // made first: args may be one of the elements
    T* at = ::new (data_ + size_) T{std::forward<Args>(args)...};
    ++size_;
    return *at;
  }
  // Inserts the contiguous [first, last) at the end (the only place a workload grows); the range
  // may be of this column.
  template <std::contiguous_iterator It>
  void insert(const T* pos, It first, It last) {
    if (pos != std::as_const(*this).end()) [[unlikely]] not_at_end();
    const auto n = static_cast<std::size_t>(last - first);
    if (size_ + n > capacity_) [[unlikely]] return grown_by(std::to_address(first), n);
    copy_in(std::to_address(first), n);
  }
  void resize(std::size_t n) { resize(n, T{}); }
  void resize(std::size_t n, const T& v) {
    const T value = v;  // v may be one of the elements
    const std::size_t old = size_;
    if (n > capacity_) reallocate(std::max(n, std::min(2 * capacity_, n + n / 2)));
    for (std::size_t i = old; i < n; ++i) ::new (data_ + i) T(value);
    size_ = n;
  }
  void assign(std::size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  void clear() {
    if (view_) release();
    size_ = 0;
  }

  friend bool operator==(const JobColumn& a, const JobColumn& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  [[noreturn, gnu::noinline]] static void not_at_end() { throw std::logic_error("JobColumn::insert: at the end only"); }
  [[gnu::noinline]] T& grown_by(const T value) {
    reallocate(std::max<std::size_t>(2 * capacity_, 16));
    T* at = ::new (data_ + size_) T(value);
    ++size_;
    return *at;
  }
  [[gnu::noinline]] void grown_by(const T* from, std::size_t n) {
    JobColumn grown;
    grown.reallocate(std::max(size_ + n, 2 * capacity_));
    grown.copy_in(data_, size_);
    grown.copy_in(from, n);
    swap(grown);
  }
  // Memory of its own, copied from a view first.
  T* own() {
    if (view_) reallocate(size_);
    return data_;
  }
  void copy_in(const T* from, std::size_t n) {
    if (n) std::memcpy(static_cast<void*>(data_ + size_), from, n * sizeof(T));
    size_ += n;
  }
  void reallocate(std::size_t capacity) {
    T* fresh = capacity ? std::allocator<T>().allocate(capacity) : nullptr;
    if (size_) std::memcpy(static_cast<void*>(fresh), data_, size_ * sizeof(T));
    const std::size_t size = size_;
    release();
    data_ = fresh, size_ = size, capacity_ = capacity;
  }
  void release() {
    if (!view_ && data_) std::allocator<T>().deallocate(data_, capacity_);
    view_.reset();
    data_ = nullptr, size_ = 0, capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
  std::shared_ptr<const void> view_;  // the mapping of a view; none when the memory is its own
};

}  // namespace acme
