#include "workloads/trace_cache_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "workloads/trace_cache.h"

namespace acme::trace_cache_file {
namespace {

constexpr char kMagic[8] = {'a', 'c', 'm', 'e', 'T', 'R', 'C', 'H'};
constexpr std::size_t kHeaderBytes = 40;
constexpr std::size_t kCountBytes = 11 * 8;
constexpr std::size_t kChunkJobs = 16384;  // what write() uses; a reader takes the file's

// Bytes of a chunk's columns per job, names aside.
std::size_t column_bytes(bool waits) { return 8 + 4 + 4 + 4 + 1 + 4 + 8 + 1 + 4 + 8 + 8 + 4 + (waits ? 4 : 0); }

// Bytes appended to a buffer.
struct Buffer {
  std::string bytes;
  void add(const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); }
  template <class T>
  void value(T v) { add(&v, sizeof v); }
  // Column `get(first .. last - 1)` of type T.
  template <class T, class Get>
  void column(std::size_t first, std::size_t last, Get get) {
    const std::size_t at = bytes.size();
    bytes.resize(at + (last - first) * sizeof(T));
    for (std::size_t j = first; j < last; ++j) {
      const T v = get(j);
      std::memcpy(bytes.data() + at + (j - first) * sizeof v, &v, sizeof v);
    }
  }
};

// Reads values out of bytes in memory; past the end it reads nothing and remembers it failed.
class In {
 public:
  In(const char* p, std::size_t n) : p_(p), end_(p + n) {}
  const char* take(std::uint64_t n) {
    if (n > static_cast<std::uint64_t>(end_ - p_)) {
      ok_ = false;
      return nullptr;
    }
    const char* at = p_;
    p_ += n;
    return at;
  }
  template <class T>
  T value() {
    T v{};
    if (const char* at = take(sizeof v)) std::memcpy(&v, at, sizeof v);
    return v;
  }
  // Element j of a column of T that take() returned.
  template <class T>
  static T at(const char* column, std::size_t j) {
    T v;
    std::memcpy(&v, column + j * sizeof v, sizeof v);
    return v;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

// Strings as their u32 lengths, then their bytes.
template <class Get>
void add_strings(Buffer& out, std::size_t n, Get get) {
  out.column<std::uint32_t>(0, n, [&](std::size_t i) { return static_cast<std::uint32_t>(get(i).size()); });
  for (std::size_t i = 0; i < n; ++i) out.add(get(i).data(), get(i).size());
}

// Reads `n` strings of add_strings() holding `bytes` in all, passing each to `use`; false if out
// of range or if `use` refuses one.
template <class Use>
bool take_strings(In& in, std::uint64_t n, std::uint64_t bytes, Use use) {
  const char* lengths = in.take(4 * n);
  const char* text = in.take(bytes);
  if (!in.ok()) return false;
  for (std::uint64_t i = 0, at = 0; i < n; ++i) {
    const auto len = In::at<std::uint32_t>(lengths, i);
    if (len > bytes - at || !use(i, std::string_view(text + at, len))) return false;
    at += len;
  }
  return true;
}

// The body of the chunk of jobs [first, last).
void write_chunk(Buffer& out, const Workload& w, std::size_t first, std::size_t last) {
  const auto& r = w.requests;
  const auto& p = w.profiles;
  auto sec = [](const OptionalTime& t) { return t ? t->sec() : INT64_MIN; };
  out.column<std::int64_t>(first, last, [&](std::size_t j) { return r[j].submit.sec(); });
  out.column<std::int32_t>(first, last, [&](std::size_t j) { return r[j].gpu_num; });
  out.column<std::int32_t>(first, last, [&](std::size_t j) { return r[j].node_num; });
  out.column<std::int32_t>(first, last, [&](std::size_t j) { return r[j].cpu_num; });
  out.column<std::uint8_t>(first, last, [&](std::size_t j) { return static_cast<std::uint8_t>(r[j].type); });
  out.column<std::uint32_t>(first, last, [&](std::size_t j) { return r[j].user; });
  out.column<std::int64_t>(first, last, [&](std::size_t j) { return p[j].run.sec(); });
  out.column<std::uint8_t>(first, last, [&](std::size_t j) { return static_cast<std::uint8_t>(p[j].final_state); });
  out.column<float>(first, last, [&](std::size_t j) { return p[j].idle_share; });
  out.column<std::int64_t>(first, last, [&](std::size_t j) { return sec(p[j].recorded_start()); });
  out.column<std::int64_t>(first, last, [&](std::size_t j) { return sec(p[j].cancel_pending_at()); });
  if (!w.after.empty()) out.column<std::uint32_t>(first, last, [&](std::size_t j) { return w.after[j]; });
  const auto name = [&](std::size_t j) { return w.names[static_cast<std::uint32_t>(j)]; };
  out.column<std::uint32_t>(first, last, [&](std::size_t j) { return static_cast<std::uint32_t>(name(j).size()); });
  for (std::size_t j = first; j < last; ++j) out.add(name(j).data(), name(j).size());
}

// Appends the `count` jobs of a chunk body of `bytes` at `p`, the first of them job `first`, to
// `w`; false, having appended nothing, if a value is out of range (`users`: how many there are).
bool read_chunk(const char* p, std::size_t bytes, std::size_t first, std::size_t count, bool waits,
                std::uint64_t users, Workload& w) {
  In in(p, bytes);
  const char* submit = in.take(8 * count);
  const char* gpu = in.take(4 * count);
  const char* node = in.take(4 * count);
  const char* cpu = in.take(4 * count);
  const char* type = in.take(count);
  const char* user = in.take(4 * count);
  const char* run = in.take(8 * count);
  const char* state = in.take(count);
  const char* idle = in.take(4 * count);
  const char* start = in.take(8 * count);
  const char* cancel = in.take(8 * count);
  const char* after = waits ? in.take(4 * count) : nullptr;
  const char* name_len = in.take(4 * count);
  if (!in.ok()) return false;
  const std::uint64_t name_bytes = bytes - count * column_bytes(waits);
  const char* names = in.take(name_bytes);
  std::uint64_t room = name_bytes;
  for (std::size_t j = 0; j < count; ++j) {
    const auto len = In::at<std::uint32_t>(name_len, j);
    if (static_cast<std::uint8_t>(type[j]) >= kJobTypeCount || static_cast<std::uint8_t>(state[j]) >= kJobStateCount ||
        In::at<std::uint32_t>(user, j) >= users || len > room)
      return false;
    if (after)
      if (const auto a = In::at<std::uint32_t>(after, j); a != kNoJob && a >= first + j) return false;  // an earlier job only
    room -= len;
  }
  if (room != 0) return false;
  auto time = [](const char* col, std::size_t j) {
    const auto s = In::at<std::int64_t>(col, j);
    return s == INT64_MIN ? OptionalTime() : OptionalTime(Time::seconds(s));
  };
  const std::size_t base = w.size();
  w.requests.resize(base + count);
  w.profiles.resize(base + count);
  for (std::size_t j = 0, at = 0; j < count; ++j) {
    JobRequest& r = w.requests[base + j];
    r.submit = Time::seconds(In::at<std::int64_t>(submit, j));
    r.gpu_num = In::at<std::int32_t>(gpu, j);
    r.node_num = In::at<std::int32_t>(node, j);
    r.cpu_num = In::at<std::int32_t>(cpu, j);
    r.user = In::at<std::uint32_t>(user, j);
    r.type = static_cast<JobType>(type[j]);
    JobProfile& q = w.profiles[base + j];
    q.run = Time::seconds(In::at<std::int64_t>(run, j));
    q.idle_share = In::at<float>(idle, j);
    q.final_state = static_cast<JobState>(state[j]);
    if (const OptionalTime s = time(start, j)) q.set_recorded_start(s);
    else q.set_cancel_pending_at(time(cancel, j));
    const auto len = In::at<std::uint32_t>(name_len, j);
    w.names.add(std::string_view(names + at, len));
    at += len;
  }
  if (after)
    for (std::size_t j = 0; j < count; ++j) w.after.push_back(In::at<std::uint32_t>(after, j));
  return true;
}

}  // namespace

std::uint64_t hash_bytes(const char* p, std::size_t n, std::uint64_t seed) {
  constexpr std::uint64_t k1 = 0x9E3779B185EBCA87ULL, k2 = 0xC2B2AE3D27D4EB4FULL, k3 = 0x165667B19E3779F9ULL;
  auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto load = [](const char* q) {
    std::uint64_t v;
    std::memcpy(&v, q, 8);
    return v;
  };
  auto round = [&](std::uint64_t acc, std::uint64_t v) { return rotl(acc + v * k2, 31) * k1; };
  std::uint64_t a = seed + k1 + k2, b = seed + k2, c = seed, d = seed - k1;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a = round(a, load(p + i));
    b = round(b, load(p + i + 8));
    c = round(c, load(p + i + 16));
    d = round(d, load(p + i + 24));
  }
  std::uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n;
  for (; i + 8 <= n; i += 8) h = rotl(h ^ round(0, load(p + i)), 27) * k1 + k3;
  for (; i < n; ++i) h = rotl(h ^ (static_cast<unsigned char>(p[i]) * k3), 11) * k1;
  h ^= h >> 33;
  h *= k2;
  h ^= h >> 29;
  h *= k3;
  return h ^ (h >> 32);
}

bool write(std::FILE* f, const std::string& key, const Workload& w, const std::vector<std::string>& warnings) {
  const std::size_t n = w.size();
  const bool waits = !w.after.empty();
  const bool sorted = std::is_sorted(w.requests.begin(), w.requests.end(),
                                     [](const JobRequest& a, const JobRequest& b) { return a.submit < b.submit; });
  std::uint64_t name_bytes = 0, user_bytes = 0, warning_bytes = 0;
  for (std::size_t j = 0; j < n; ++j) name_bytes += w.names[static_cast<std::uint32_t>(j)].size();
  for (std::uint32_t u = 0; u < w.users.size(); ++u) user_bytes += w.users[u].size();
  for (const std::string& s : warnings) warning_bytes += s.size();
  Buffer head;
  for (std::uint64_t v : {std::uint64_t{n}, w.rows_skipped, w.rows_outside_window, name_bytes,
                          std::uint64_t{w.users.size()}, user_bytes, std::uint64_t{warnings.size()}, warning_bytes,
                          std::uint64_t{waits}, std::uint64_t{kChunkJobs}, std::uint64_t{sorted}})
    head.value(v);
  add_strings(head, w.users.size(), [&](std::size_t u) { return w.users[static_cast<std::uint32_t>(u)]; });
  add_strings(head, warnings.size(), [&](std::size_t i) { return std::string_view(warnings[i]); });
  const std::size_t chunks = (n + kChunkJobs - 1) / kChunkJobs;
  const std::uint64_t length = key.size() + head.bytes.size() + 16 * chunks + n * column_bytes(waits) + name_bytes;
  Buffer header;
  header.add(kMagic, sizeof kMagic);
  header.value(kTraceCacheVersion);
  header.value(static_cast<std::uint32_t>(key.size()));
  header.value(length);
  header.value(std::uint64_t{head.bytes.size()});
  const std::string key_and_head = key + head.bytes;
  header.value(hash_bytes(key_and_head.data(), key_and_head.size(), 0));
  bool ok = std::fwrite(header.bytes.data(), 1, header.bytes.size(), f) == header.bytes.size() &&
            std::fwrite(key_and_head.data(), 1, key_and_head.size(), f) == key_and_head.size();
  Buffer body;
  for (std::size_t k = 0; ok && k < chunks; ++k) {
    body.bytes.clear();
    write_chunk(body, w, k * kChunkJobs, std::min(n, (k + 1) * kChunkJobs));
    Buffer sizes;
    sizes.value(std::uint64_t{body.bytes.size()});
    sizes.value(hash_bytes(body.bytes.data(), body.bytes.size(), k));
    ok = std::fwrite(sizes.bytes.data(), 1, sizes.bytes.size(), f) == sizes.bytes.size() &&
         std::fwrite(body.bytes.data(), 1, body.bytes.size(), f) == body.bytes.size();
  }
  return ok;
}

bool Reader::read(std::uint64_t at, std::uint64_t n, std::vector<char>& out) const {
  if (n > size_ || at > size_ - n) return false;
  out.resize(n);
  for (std::uint64_t got = 0; got < n;) {
    const ssize_t k = ::pread(fd_, out.data() + got, n - got, static_cast<off_t>(at + got));
    if (k == 0 || (k < 0 && errno != EINTR)) return false;
    if (k > 0) got += static_cast<std::uint64_t>(k);
  }
  return true;
}

std::optional<Reader> Reader::open(int fd, const std::string& key, const char*& why) {
  Reader r;
  r.fd_ = fd;
  struct stat st {};
  std::vector<char> bytes;
  why = "not a cache file (too short, or unreadable)";
  if (::fstat(fd, &st) != 0) return std::nullopt;
  r.size_ = static_cast<std::uint64_t>(st.st_size);
  if (!r.read(0, kHeaderBytes, bytes)) return std::nullopt;
  In header(bytes.data(), bytes.size());
  const char* magic = header.take(sizeof kMagic);
  const auto version = header.value<std::uint32_t>();
  const auto key_bytes = header.value<std::uint32_t>();
  const auto length = header.value<std::uint64_t>();
  const auto head_bytes = header.value<std::uint64_t>();
  const auto sum = header.value<std::uint64_t>();
  why = std::memcmp(magic, kMagic, sizeof kMagic) != 0 ? "not a cache file (magic)"
        : version != kTraceCacheVersion               ? "another format version"
        : length != r.size_ - kHeaderBytes || key_bytes > length || head_bytes > length - key_bytes
            ? "truncated or too long"
        : key_bytes != key.size() ? "another key (the trace changed)"
                                  : nullptr;
  if (why) return std::nullopt;
  why = "unreadable";
  if (!r.read(kHeaderBytes, key_bytes + head_bytes, bytes)) return std::nullopt;
  why = "another key (the trace changed)";
  if (std::string_view(bytes.data(), key_bytes) != key) return std::nullopt;
  why = "damaged (checksum)";
  if (hash_bytes(bytes.data(), bytes.size(), 0) != sum) return std::nullopt;
  why = "damaged (a value out of range)";
  In in(bytes.data() + key_bytes, head_bytes);
  std::uint64_t counts[kCountBytes / 8];
  for (std::uint64_t& c : counts) c = in.value<std::uint64_t>();
  const auto [jobs, skipped, outside, name_bytes, users, user_bytes, warnings, warning_bytes, waits, chunk_jobs, sorted] =
      counts;
  if (!in.ok() || jobs >= kNoJob || users > jobs || waits > 1 || chunk_jobs == 0 || chunk_jobs > kNoJob || sorted > 1)
    return std::nullopt;
  r.sorted_ = sorted == 1;
  r.jobs_ = jobs;
  r.name_bytes_ = name_bytes;
  r.waits_ = waits == 1;
  r.chunk_jobs_ = chunk_jobs;
  r.start_.rows_skipped = skipped;
  r.start_.rows_outside_window = outside;
  const bool ok =
      take_strings(in, users, user_bytes, [&](std::uint64_t u, std::string_view s) { return r.start_.users.intern(s) == u; }) &&
      take_strings(in, warnings, warning_bytes, [&](std::uint64_t, std::string_view s) {
        r.warnings_.emplace_back(s);
        return true;
      });
  r.at_ = kHeaderBytes + key_bytes + head_bytes;
  if (!ok || !in.at_end() || (jobs == 0 && r.at_ != r.size_)) return std::nullopt;
  why = nullptr;
  return r;
}

bool Reader::next(Workload& w) {
  if (done()) return false;
  const std::size_t count = std::min(chunk_jobs_, jobs_ - next_job_);
  if (!read(at_, 16, body_)) return false;
  std::uint64_t bytes, sum;
  std::memcpy(&bytes, body_.data(), 8);
  std::memcpy(&sum, body_.data() + 8, 8);
  if (!read(at_ + 16, bytes, body_) || hash_bytes(body_.data(), body_.size(), chunk_) != sum) return false;
  const bool last = next_job_ + count == jobs_;
  if ((last && at_ + 16 + bytes != size_) || bytes < count * column_bytes(waits_) ||
      !read_chunk(body_.data(), bytes, next_job_, count, waits_, start_.users.size(), w))
    return false;
  at_ += 16 + bytes;
  next_job_ += count;
  ++chunk_;
  return true;
}

}  // namespace acme::trace_cache_file
