#include "workloads/trace_cache_file.h"

#include <sys/mman.h>
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
constexpr std::size_t kCountBytes = 13 * 8;
constexpr std::size_t kChunkJobs = 16384;  // what write() uses; a reader takes the file's

// Bytes of a chunk's body per job, names aside.
std::size_t body_bytes_per_job(bool waits) { return 4 + (waits ? 4 : 0); }

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

// A chunk's body: the `after` column of jobs [first, last) if they wait, then their names.
void write_body(Buffer& out, const Workload& w, std::size_t first, std::size_t last) {
  if (!w.after.empty()) out.column<std::uint32_t>(first, last, [&](std::size_t j) { return w.after[j]; });
  const auto name = [&](std::size_t j) { return w.names[static_cast<std::uint32_t>(j)]; };
  out.column<std::uint32_t>(first, last, [&](std::size_t j) { return static_cast<std::uint32_t>(name(j).size()); });
  for (std::size_t j = first; j < last; ++j) out.add(name(j).data(), name(j).size());
}

// `p` with its padding bytes zero, so that an entry's bytes depend on its jobs only.
JobProfile clean(const JobProfile& p) {
  JobProfile q;
  std::memset(static_cast<void*>(&q), 0, sizeof q);
  q.run = p.run;
  q.idle_share = p.idle_share;
  q.final_state = p.final_state;
  if (const OptionalTime start = p.recorded_start()) q.set_recorded_start(start);
  else q.set_cancel_pending_at(p.cancel_pending_at());
  return q;
}

// A chunk's checksum: of its requests, profiles and body, seeded with its number.
std::uint64_t chunk_sum(const JobRequest* r, const JobProfile* p, std::size_t count, const char* body,
                        std::size_t body_bytes, std::uint64_t chunk) {
  const std::uint64_t sums[3] = {hash_bytes(reinterpret_cast<const char*>(r), count * sizeof *r, chunk),
                                 hash_bytes(reinterpret_cast<const char*>(p), count * sizeof *p, chunk),
                                 hash_bytes(body, body_bytes, chunk)};
  return hash_bytes(reinterpret_cast<const char*>(sums), sizeof sums, chunk);
}

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t kAlign = 64;  // where the requests start: a multiple of this from the file's start

std::uint64_t aligned(std::uint64_t at) { return (at + kAlign - 1) / kAlign * kAlign; }

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
                          std::uint64_t{waits}, std::uint64_t{kChunkJobs}, std::uint64_t{sorted},
                          std::uint64_t{sizeof(JobRequest)}, std::uint64_t{sizeof(JobProfile)}})
    head.value(v);
  add_strings(head, w.users.size(), [&](std::size_t u) { return w.users[static_cast<std::uint32_t>(u)]; });
  add_strings(head, warnings.size(), [&](std::size_t i) { return std::string_view(warnings[i]); });
  const std::size_t chunks = (n + kChunkJobs - 1) / kChunkJobs;
  const std::uint64_t padding = aligned(kHeaderBytes + key.size() + head.bytes.size()) -
                                (kHeaderBytes + key.size() + head.bytes.size());
  const std::uint64_t length = key.size() + head.bytes.size() + padding +
                               n * (sizeof(JobRequest) + sizeof(JobProfile) + body_bytes_per_job(waits)) +
                               16 * chunks + name_bytes;
  Buffer header;
  header.add(kMagic, sizeof kMagic);
  header.value(kTraceCacheVersion);
  header.value(static_cast<std::uint32_t>(key.size()));
  header.value(length);
  header.value(std::uint64_t{head.bytes.size()});
  const std::string key_and_head = key + head.bytes + std::string(padding, '\0');
  header.value(hash_bytes(key_and_head.data(), key.size() + head.bytes.size(), 0));
  auto put = [&](const void* p, std::size_t bytes) { return std::fwrite(p, 1, bytes, f) == bytes; };
  bool ok = put(header.bytes.data(), header.bytes.size()) && put(key_and_head.data(), key_and_head.size()) &&
            put(w.requests.data(), n * sizeof(JobRequest));
  std::vector<JobProfile> profiles(std::min(n, kChunkJobs));
  std::vector<std::uint64_t> sums;
  Buffer body;
  for (int pass = 0; pass < 2; ++pass) {  // the profiles, then the chunks with their checksums
    for (std::size_t k = 0; ok && k < chunks; ++k) {
      const std::size_t first = k * kChunkJobs, count = std::min(n, first + kChunkJobs) - first;
      for (std::size_t j = 0; j < count; ++j) profiles[j] = clean(w.profiles[first + j]);
      body.bytes.clear();
      write_body(body, w, first, first + count);
      if (pass == 0) {
        ok = put(profiles.data(), count * sizeof(JobProfile));
        continue;
      }
      const std::uint64_t sizes[2] = {body.bytes.size(), chunk_sum(w.requests.data() + first, profiles.data(), count,
                                                                    body.bytes.data(), body.bytes.size(), k)};
      ok = put(sizes, sizeof sizes) && put(body.bytes.data(), body.bytes.size());
    }
  }
  return ok;
}

std::optional<Reader> Reader::open(int fd, const std::string& key, const char*& why) {
  Reader r;
  struct stat st {};
  why = "not a cache file (too short, or unreadable)";
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < kHeaderBytes) return std::nullopt;
  r.size_ = static_cast<std::uint64_t>(st.st_size);
  void* map = ::mmap(nullptr, r.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;
  ::madvise(map, r.size_, MADV_SEQUENTIAL);
  const std::uint64_t size = r.size_;
  r.mapping_ = std::shared_ptr<const void>(map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  r.file_ = static_cast<const char*>(map);
  In header(r.file_, kHeaderBytes);
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
  const char* at = r.file_ + kHeaderBytes;
  why = "another key (the trace changed)";
  if (std::string_view(at, key_bytes) != key) return std::nullopt;
  why = "damaged (checksum)";
  if (hash_bytes(at, key_bytes + head_bytes, 0) != sum) return std::nullopt;
  why = "damaged (a value out of range)";
  In in(at + key_bytes, head_bytes);
  std::uint64_t counts[kCountBytes / 8];
  for (std::uint64_t& c : counts) c = in.value<std::uint64_t>();
  const auto [jobs, skipped, outside, name_bytes, users, user_bytes, warnings, warning_bytes, waits, chunk_jobs, sorted,
              request_bytes, profile_bytes] = counts;
  if (!in.ok() || jobs >= kNoJob || users > jobs || waits > 1 || chunk_jobs == 0 || chunk_jobs > kNoJob || sorted > 1)
    return std::nullopt;
  why = "another layout of jobs in memory";
  if (request_bytes != sizeof(JobRequest) || profile_bytes != sizeof(JobProfile)) return std::nullopt;
  why = "damaged (a value out of range)";
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
  const std::uint64_t columns_at = aligned(kHeaderBytes + key_bytes + head_bytes);
  r.at_ = columns_at + jobs * (sizeof(JobRequest) + sizeof(JobProfile));
  if (!ok || !in.at_end() || r.at_ > r.size_ || (jobs == 0 && r.at_ != r.size_)) return std::nullopt;
  r.dropped_ = (r.at_ + kPage - 1) / kPage * kPage;
  r.requests_ = reinterpret_cast<const JobRequest*>(r.file_ + columns_at);
  r.profiles_ = reinterpret_cast<const JobProfile*>(r.file_ + columns_at + jobs * sizeof(JobRequest));
  r.show(r.start_);
  why = nullptr;
  return r;
}

bool Reader::next(StringTable& names, std::vector<JobId>& after) {
  if (done() || size_ - at_ < 16) return false;
  const std::size_t first = next_job_, count = std::min(chunk_jobs_, jobs_ - first);
  std::uint64_t sizes[2];
  std::memcpy(sizes, file_ + at_, sizeof sizes);
  const auto [bytes, sum] = sizes;
  const bool last = first + count == jobs_;
  if (bytes > size_ - at_ - 16 || (last && at_ + 16 + bytes != size_) || bytes < count * body_bytes_per_job(waits_))
    return false;
  const char* body = file_ + at_ + 16;
  const JobRequest* r = requests_ + first;
  const JobProfile* p = profiles_ + first;
  if (chunk_sum(r, p, count, body, bytes, chunk_) != sum) return false;
  const std::size_t users = start_.users.size();
  bool in_range = true;
  for (std::size_t j = 0; j < count; ++j)
    in_range &= static_cast<std::size_t>(r[j].type) < kJobTypeCount && r[j].user < users && JobProfile::valid(p[j]);
  if (!in_range) return false;
  In in(body, bytes);
  const char* waits_for = waits_ ? in.take(4 * count) : nullptr;
  const char* name_len = in.take(4 * count);
  const std::uint64_t name_bytes = bytes - count * body_bytes_per_job(waits_);
  const char* text = in.take(name_bytes);
  if (!in.ok()) return false;
  std::uint64_t room = name_bytes;
  for (std::size_t j = 0; j < count; ++j) {
    const auto len = In::at<std::uint32_t>(name_len, j);
    if (len > room) return false;
    room -= len;
    if (waits_for)
      if (const auto a = In::at<std::uint32_t>(waits_for, j); a != kNoJob && a >= first + j) return false;  // an earlier job only
  }
  if (room != 0) return false;
  for (std::size_t j = 0, at = 0; j < count; ++j) {
    const auto len = In::at<std::uint32_t>(name_len, j);
    names.add(std::string_view(text + at, len));
    at += len;
  }
  if (waits_for)
    for (std::size_t j = 0; j < count; ++j) after.push_back(In::at<std::uint32_t>(waits_for, j));
  at_ += 16 + bytes;
  next_job_ += count;
  ++chunk_;
  if (const std::uint64_t read = at_ / kPage * kPage; read > dropped_) {  // the names are copied: their pages go
    ::madvise(const_cast<char*>(file_) + dropped_, read - dropped_, MADV_DONTNEED);
    dropped_ = read;
  }
  return true;
}

void Reader::show(Workload& w) const {
  w.requests.view(requests_, next_job_, mapping_);
  w.profiles.view(profiles_, next_job_, mapping_);
}

}  // namespace acme::trace_cache_file
