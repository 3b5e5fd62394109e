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
constexpr std::size_t kCountBytes = 14 * 8;
constexpr std::size_t kChunkJobs = 16384;  // what write() uses; a reader takes the file's

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

bool is_zero(char c) { return c == 0; }

constexpr std::uint64_t kAlign = 64;  // where the columns start: a multiple of this from the file's start

std::uint64_t round_up(std::uint64_t at, std::uint64_t to) { return (at + to - 1) / to * to; }

// Where an entry's columns are, from the counts in its head.
struct Layout {
  std::uint64_t requests, profiles, keys, offsets, after, think, limits, names, sums, end;
  Layout(std::uint64_t columns_at, std::uint64_t jobs, bool waits, bool limited, std::uint64_t name_bytes,
         std::uint64_t chunk_jobs) {
    requests = columns_at;
    profiles = requests + jobs * sizeof(JobRequest);
    keys = profiles + jobs * sizeof(JobProfile);  // 8-aligned: both are 24 bytes a job
    offsets = keys + jobs * 8;
    after = offsets + (jobs + 1) * 4;
    think = after + (waits ? jobs * 4 : 0);
    limits = think + (waits ? jobs * 4 : 0);
    names = limits + (limited ? jobs * 4 : 0);
    sums = round_up(names + name_bytes, 8);
    end = sums + (jobs + chunk_jobs - 1) / chunk_jobs * 8;
  }
};

// An entry's columns but the profiles (null: a column not kept).
struct Columns {
  const JobRequest* requests;
  const std::uint64_t* keys;
  const std::uint32_t* offsets;
  const JobId* after;
  const std::uint32_t* think;
  const std::uint32_t* limits;
  const char* names;
};

// The checksum of jobs [first, first + count): their requests, profiles (`chunk_profiles`: the
// chunk's, from job `first` on), keys, name offsets (but the first job's), `after` and think
// times and time limits (if any) and names, seeded with the chunk's number.
std::uint64_t chunk_sum(const Columns& c, const JobProfile* chunk_profiles, std::size_t first, std::size_t count,
                        std::uint64_t chunk) {
  auto bytes = [](const void* at) { return static_cast<const char*>(at); };
  const std::uint64_t sums[8] = {
      hash_bytes(bytes(c.requests + first), count * sizeof *c.requests, chunk),
      hash_bytes(bytes(chunk_profiles), count * sizeof *chunk_profiles, chunk),
      hash_bytes(bytes(c.keys + first), count * sizeof *c.keys, chunk),
      hash_bytes(bytes(c.offsets + first + 1), count * 4, chunk),
      c.after ? hash_bytes(bytes(c.after + first), count * 4, chunk) : 0,
      c.think ? hash_bytes(bytes(c.think + first), count * 4, chunk) : 0,
      c.limits ? hash_bytes(bytes(c.limits + first), count * 4, chunk) : 0,
      hash_bytes(c.names + c.offsets[first], c.offsets[first + count] - c.offsets[first], chunk)};
  return hash_bytes(bytes(sums), sizeof sums, chunk);
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
  if (w.names.size() != n || w.profiles.size() != n || w.keys.size() != n || (!w.after.empty() && w.after.size() != n) ||
      (!w.think_s.empty() && w.think_s.size() != n) || (!w.time_limits.empty() && w.time_limits.size() != n))
    return false;
  const bool waits = !w.after.empty(), limited = !w.time_limits.empty();
  // The think times of jobs that wait: none recorded, every one 0.
  const std::vector<std::uint32_t> no_think(waits && w.think_s.empty() ? n : 0, 0);
  const std::uint32_t* think = !waits ? nullptr : w.think_s.empty() ? no_think.data() : w.think_s.data();
  const bool sorted = std::is_sorted(w.requests.begin(), w.requests.end(),
                                     [](const JobRequest& a, const JobRequest& b) { return a.submit < b.submit; });
  const std::string_view names = w.names.bytes();
  std::uint64_t user_bytes = 0, warning_bytes = 0;
  for (std::uint32_t u = 0; u < w.users.size(); ++u) user_bytes += w.users[u].size();
  for (const std::string& s : warnings) warning_bytes += s.size();
  Buffer head;
  for (std::uint64_t v : {std::uint64_t{n}, w.rows_skipped, w.rows_outside_window, std::uint64_t{names.size()},
                          std::uint64_t{w.users.size()}, user_bytes, std::uint64_t{warnings.size()}, warning_bytes,
                          std::uint64_t{waits}, std::uint64_t{kChunkJobs}, std::uint64_t{sorted},
                          std::uint64_t{sizeof(JobRequest)}, std::uint64_t{sizeof(JobProfile)}, std::uint64_t{limited}})
    head.value(v);
  add_strings(head, w.users.size(), [&](std::size_t u) { return w.users[static_cast<std::uint32_t>(u)]; });
  add_strings(head, warnings.size(), [&](std::size_t i) { return std::string_view(warnings[i]); });
  const Layout at(round_up(kHeaderBytes + key.size() + head.bytes.size(), kAlign), n, waits, limited, names.size(), kChunkJobs);
  Buffer header;
  header.add(kMagic, sizeof kMagic);
  header.value(kTraceCacheVersion);
  header.value(static_cast<std::uint32_t>(key.size()));
  header.value(at.end - kHeaderBytes);
  header.value(std::uint64_t{head.bytes.size()});
  const std::string key_and_head = key + head.bytes;
  header.value(hash_bytes(key_and_head.data(), key_and_head.size(), 0));
  const std::string zeros(kAlign, '\0');
  const Columns columns{w.requests.data(), w.keys.data(), w.names.offsets(), waits ? w.after.data() : nullptr,
                        think, limited ? w.time_limits.data() : nullptr, names.data()};
  auto put = [&](const void* p, std::size_t bytes) { return bytes == 0 || std::fwrite(p, 1, bytes, f) == bytes; };
  // The profiles, their padding zero, written a chunk at a time (a copy of them all was 24 bytes a
  // job beside the replay's), and each chunk's checksum made as it goes.
  std::vector<std::uint64_t> sums;
  const auto put_profiles = [&] {
    std::vector<JobProfile> chunk;
    for (std::size_t first = 0, k = 0; first < n; first += kChunkJobs, ++k) {
      const std::size_t count = std::min(kChunkJobs, n - first);
      chunk.resize(count);
      for (std::size_t j = 0; j < count; ++j) chunk[j] = clean(w.profiles[first + j]);
      sums.push_back(chunk_sum(columns, chunk.data(), first, count, k));
      if (!put(chunk.data(), count * sizeof(JobProfile))) return false;
    }
    return true;
  };
  return put(header.bytes.data(), header.bytes.size()) && put(key_and_head.data(), key_and_head.size()) &&
         put(zeros.data(), at.requests - kHeaderBytes - key_and_head.size()) &&
         put(w.requests.data(), n * sizeof(JobRequest)) && put_profiles() &&
         put(w.keys.data(), n * 8) && put(columns.offsets, (n + 1) * 4) && put(columns.after, waits ? n * 4 : 0) &&
         put(columns.think, waits ? n * 4 : 0) &&
         put(columns.limits, limited ? n * 4 : 0) && put(names.data(), names.size()) &&
         put(zeros.data(), at.sums - at.names - names.size()) && put(sums.data(), sums.size() * 8);
}

std::optional<Reader> Reader::open(int fd, const std::string& key, const char*& why) {
  Reader r;
  struct stat st {};
  why = "not a cache file (too short, or unreadable)";
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < kHeaderBytes) return std::nullopt;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;
  ::madvise(map, size, MADV_SEQUENTIAL);
  r.mapping_ = std::shared_ptr<const void>(map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  const char* file = static_cast<const char*>(map);
  In header(file, kHeaderBytes);
  const char* magic = header.take(sizeof kMagic);
  const auto version = header.value<std::uint32_t>();
  const auto key_bytes = header.value<std::uint32_t>();
  const auto length = header.value<std::uint64_t>();
  const auto head_bytes = header.value<std::uint64_t>();
  const auto sum = header.value<std::uint64_t>();
  why = std::memcmp(magic, kMagic, sizeof kMagic) != 0 ? "not a cache file (magic)"
        : version != kTraceCacheVersion               ? "another format version"
        : length != size - kHeaderBytes || key_bytes > length || head_bytes > length - key_bytes
            ? "truncated or too long"
        : key_bytes != key.size() ? "another key (the trace changed)"
                                  : nullptr;
  if (why) return std::nullopt;
  const char* key_at = file + kHeaderBytes;
  why = "another key (the trace changed)";
  if (std::string_view(key_at, key_bytes) != key) return std::nullopt;
  why = "damaged (checksum)";
  if (hash_bytes(key_at, key_bytes + head_bytes, 0) != sum) return std::nullopt;
  why = "damaged (a value out of range)";
  In in(key_at + key_bytes, head_bytes);
  std::uint64_t counts[kCountBytes / 8];
  for (std::uint64_t& c : counts) c = in.value<std::uint64_t>();
  const auto [jobs, skipped, outside, name_bytes, users, user_bytes, warnings, warning_bytes, waits, chunk_jobs, sorted,
              request_bytes, profile_bytes, limited] = counts;
  if (!in.ok() || jobs >= kNoJob || users > jobs || waits > 1 || chunk_jobs == 0 || chunk_jobs > kNoJob || sorted > 1 ||
      name_bytes > UINT32_MAX || limited > 1)
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
  const Layout at(round_up(kHeaderBytes + key_bytes + head_bytes, kAlign), jobs, r.waits_, limited == 1, name_bytes,
                  chunk_jobs);
  if (!ok || !in.at_end()) return std::nullopt;
  why = "truncated or too long";
  if (at.end != size) return std::nullopt;
  why = "damaged (padding)";
  const auto zero = [&](std::uint64_t from, std::uint64_t to) { return std::all_of(file + from, file + to, is_zero); };
  if (!zero(kHeaderBytes + key_bytes + head_bytes, at.requests) || !zero(at.names + name_bytes, at.sums))
    return std::nullopt;
  r.requests_ = reinterpret_cast<const JobRequest*>(file + at.requests);
  r.profiles_ = reinterpret_cast<const JobProfile*>(file + at.profiles);
  r.keys_ = reinterpret_cast<const std::uint64_t*>(file + at.keys);
  r.offsets_ = reinterpret_cast<const std::uint32_t*>(file + at.offsets);
  r.after_ = r.waits_ ? reinterpret_cast<const JobId*>(file + at.after) : nullptr;
  r.think_ = r.waits_ ? reinterpret_cast<const std::uint32_t*>(file + at.think) : nullptr;
  r.limits_ = limited == 1 ? reinterpret_cast<const std::uint32_t*>(file + at.limits) : nullptr;
  r.names_ = file + at.names;
  r.sums_ = reinterpret_cast<const std::uint64_t*>(file + at.sums);
  why = "damaged (a value out of range)";
  if (r.offsets_[0] != 0) return std::nullopt;
  r.show(r.start_);
  why = nullptr;
  return r;
}

bool Reader::next() {
  if (done()) return false;
  const std::size_t first = next_job_, count = std::min(chunk_jobs_, jobs_ - first);
  const std::uint32_t* offsets = offsets_ + first;
  bool in_order = offsets[count] <= name_bytes_ && (first + count < jobs_ || offsets[count] == name_bytes_);
  for (std::size_t j = 0; j < count; ++j) in_order &= offsets[j] <= offsets[j + 1];
  const Columns columns{requests_, keys_, offsets_, after_, think_, limits_, names_};
  if (!in_order || chunk_sum(columns, profiles_ + first, first, count, chunk_) != sums_[chunk_])
    return false;
  const JobRequest* r = requests_ + first;
  const JobProfile* p = profiles_ + first;
  const std::size_t users = start_.users.size();
  bool in_range = true;
  for (std::size_t j = 0; j < count; ++j)
    in_range &= static_cast<std::size_t>(r[j].type) < kJobTypeCount && r[j].user < users && JobProfile::valid(p[j]);
  if (after_)
    for (std::size_t j = first; j < first + count; ++j) in_range &= after_[j] == kNoJob || after_[j] < j;  // an earlier job only
  if (!in_range) return false;
  next_job_ += count;
  ++chunk_;
  return true;
}

void Reader::show(Workload& w) const {
  w.requests.view(requests_, next_job_, mapping_);
  w.profiles.view(profiles_, next_job_, mapping_);
  w.keys.view(keys_, next_job_, mapping_);
  w.names.view(names_, offsets_, next_job_, mapping_);
  if (after_) w.after.view(after_, next_job_, mapping_);
  if (think_) w.think_s.view(think_, next_job_, mapping_);
  if (limits_) w.time_limits.view(limits_, next_job_, mapping_);
}

}  // namespace acme::trace_cache_file
