#include "workloads/trace_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include "sim/log.h"

namespace acme {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[8] = {'a', 'c', 'm', 'e', 'T', 'R', 'C', 'H'};
constexpr std::size_t kHeaderBytes = 32;
constexpr std::size_t kBlock = std::size_t{1} << 20;  // checksum blocks, and the write buffer
constexpr std::size_t kEnds = 64 * 1024;               // bytes of the trace's head and tail in the key

// XXH64's structure (four lanes, then the rest): a checksum, not a cryptographic hash, at several GB/s.
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

// The checksum of the bytes after the header: each 1 MiB block hashed with the last as its seed.
std::uint64_t checksum(const char* p, std::size_t n) {
  std::uint64_t h = 0;
  for (std::size_t at = 0; at < n; at += kBlock) h = hash_bytes(p + at, std::min(kBlock, n - at), h);
  return h;
}

std::string hex(std::uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

struct Key {
  std::string text;   // everything an entry must match
  std::string entry;  // the entry's file name
};

// The key of `path` read with `opt`, or none for what is not a regular file.
std::optional<Key> key_of(const std::string& path, const TraceOptions& opt) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::error_code ec;
  const fs::path canonical = fs::canonical(path, ec);
  if (ec) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<char> ends(2 * kEnds);
  const ssize_t head = ::pread(fd, ends.data(), kEnds, 0);
  const off_t tail_at = std::max<off_t>(0, st.st_size - static_cast<off_t>(kEnds));
  const ssize_t tail = ::pread(fd, ends.data() + kEnds, kEnds, tail_at);
  ::close(fd);
  if (head < 0 || tail < 0) return std::nullopt;
  auto time = [](const std::optional<Time>& t) { return t ? std::to_string(t->sec()) : std::string("none"); };
  const std::string options =
      "from " + time(opt.from) + "\nto " + time(opt.to) + "\nlenient " + (opt.lenient ? "1" : "0") + "\n";
  const std::string where = "path " + canonical.string() + "\n" + options;
  Key k;
  k.text = "acmesim " ACMESIM_VERSION "\n" + where + "size " + std::to_string(st.st_size) + "\nmtime_ns " +
           std::to_string(st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec) + "\nhead_tail " +
           hex(hash_bytes(ends.data(), static_cast<std::size_t>(head), 0) ^
               hash_bytes(ends.data() + kEnds, static_cast<std::size_t>(tail), 1)) +
           "\n";
  k.entry = canonical.filename().string().substr(0, 100) + "." + hex(hash_bytes(where.data(), where.size(), 2)) +
            ".acmecache";
  return k;
}

// Writes through a 1 MiB buffer, hashing each full block as it goes (the reader's blocks).
class Out {
 public:
  explicit Out(std::FILE* f) : f_(f) { buf_.reserve(kBlock); }
  void bytes(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const std::size_t k = std::min(n, kBlock - buf_.size());
      buf_.insert(buf_.end(), c, c + k);
      c += k;
      n -= k;
      if (buf_.size() == kBlock) flush();
    }
  }
  template <class T>
  void value(T v) { bytes(&v, sizeof v); }
  // Column `get(0..n-1)` of type T, gathered a block at a time.
  template <class T, class Get>
  void column(std::size_t n, Get get) {
    std::vector<T> part;
    for (std::size_t j = 0; j < n;) {
      part.clear();
      for (const std::size_t end = std::min(n, j + kBlock / sizeof(T)); j < end; ++j) part.push_back(get(j));
      bytes(part.data(), part.size() * sizeof(T));
    }
  }
  void flush() {
    if (buf_.empty()) return;
    sum_ = hash_bytes(buf_.data(), buf_.size(), sum_);
    written_ += buf_.size();
    ok_ &= std::fwrite(buf_.data(), 1, buf_.size(), f_) == buf_.size();
    buf_.clear();
  }
  std::uint64_t checksum() const { return sum_; }
  std::uint64_t written() const { return written_; }
  bool ok() const { return ok_; }

 private:
  std::FILE* f_;
  std::vector<char> buf_;
  std::uint64_t sum_ = 0, written_ = 0;
  bool ok_ = true;
};

// Reads values out of the mapped bytes; past the end it reads nothing and remembers it failed.
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

void warn_uncached_once(const std::string& why) {
  static std::once_flag once;
  std::call_once(once, [&] {
    log::warn("trace cache: {}: traces are parsed every time (cache.dir: another folder; cache.enabled: false "
              "or --no-cache: no cache, and no warning)",
              why);
  });
}

// The payload (the part after the key) of `w`. Every count first, so a reader can check them.
void write_payload(Out& out, const Workload& w, const std::vector<std::string>& warnings) {
  const std::size_t n = w.size();
  std::uint64_t name_bytes = 0, user_bytes = 0, warning_bytes = 0;
  for (std::size_t j = 0; j < n; ++j) name_bytes += w.names[static_cast<std::uint32_t>(j)].size();
  for (std::size_t u = 0; u < w.users.size(); ++u) user_bytes += w.users[static_cast<std::uint32_t>(u)].size();
  for (const std::string& s : warnings) warning_bytes += s.size();
  for (std::uint64_t v : {std::uint64_t{n}, w.rows_skipped, w.rows_outside_window, name_bytes,
                          std::uint64_t{w.users.size()}, user_bytes, std::uint64_t{w.after.size()},
                          std::uint64_t{warnings.size()}, warning_bytes})
    out.value(v);
  const auto& r = w.requests;
  const auto& p = w.profiles;
  auto sec = [](const OptionalTime& t) { return t ? t->sec() : INT64_MIN; };
  out.column<std::int64_t>(n, [&](std::size_t j) { return r[j].submit.sec(); });
  out.column<std::int32_t>(n, [&](std::size_t j) { return r[j].gpu_num; });
  out.column<std::int32_t>(n, [&](std::size_t j) { return r[j].node_num; });
  out.column<std::int32_t>(n, [&](std::size_t j) { return r[j].cpu_num; });
  out.column<std::uint8_t>(n, [&](std::size_t j) { return static_cast<std::uint8_t>(r[j].type); });
  out.column<std::uint32_t>(n, [&](std::size_t j) { return r[j].user; });
  out.column<std::int64_t>(n, [&](std::size_t j) { return p[j].run.sec(); });
  out.column<std::uint8_t>(n, [&](std::size_t j) { return static_cast<std::uint8_t>(p[j].final_state); });
  out.column<float>(n, [&](std::size_t j) { return p[j].idle_share; });
  out.column<std::int64_t>(n, [&](std::size_t j) { return sec(p[j].recorded_start()); });
  out.column<std::int64_t>(n, [&](std::size_t j) { return sec(p[j].cancel_pending_at()); });
  out.column<std::uint32_t>(w.after.size(), [&](std::size_t j) { return w.after[j]; });
  out.column<std::uint32_t>(n, [&](std::size_t j) {
    return static_cast<std::uint32_t>(w.names[static_cast<std::uint32_t>(j)].size());
  });
  for (std::size_t j = 0; j < n; ++j) {
    const std::string_view s = w.names[static_cast<std::uint32_t>(j)];
    out.bytes(s.data(), s.size());
  }
  out.column<std::uint32_t>(w.users.size(), [&](std::size_t u) {
    return static_cast<std::uint32_t>(w.users[static_cast<std::uint32_t>(u)].size());
  });
  for (std::size_t u = 0; u < w.users.size(); ++u) {
    const std::string_view s = w.users[static_cast<std::uint32_t>(u)];
    out.bytes(s.data(), s.size());
  }
  out.column<std::uint32_t>(warnings.size(),
                            [&](std::size_t i) { return static_cast<std::uint32_t>(warnings[i].size()); });
  for (const std::string& s : warnings) out.bytes(s.data(), s.size());
}

// The workload of a payload, or none if anything in it is out of range.
std::optional<Workload> read_payload(In& in, std::vector<std::string>& warnings) {
  const auto n = in.value<std::uint64_t>();
  Workload w;
  w.rows_skipped = in.value<std::uint64_t>();
  w.rows_outside_window = in.value<std::uint64_t>();
  const auto name_bytes = in.value<std::uint64_t>();
  const auto users = in.value<std::uint64_t>();
  const auto user_bytes = in.value<std::uint64_t>();
  const auto after = in.value<std::uint64_t>();
  const auto warning_count = in.value<std::uint64_t>();
  const auto warning_bytes = in.value<std::uint64_t>();
  if (!in.ok() || n >= kNoJob || (after != 0 && after != n) || users > n) return std::nullopt;
  const char* submit = in.take(8 * n);
  const char* gpu = in.take(4 * n);
  const char* node = in.take(4 * n);
  const char* cpu = in.take(4 * n);
  const char* type = in.take(n);
  const char* user = in.take(4 * n);
  const char* run = in.take(8 * n);
  const char* state = in.take(n);
  const char* idle = in.take(4 * n);
  const char* start = in.take(8 * n);
  const char* cancel = in.take(8 * n);
  const char* after_col = in.take(4 * after);
  const char* name_len = in.take(4 * n);
  const char* names = in.take(name_bytes);
  const char* user_len = in.take(4 * users);
  const char* user_names = in.take(user_bytes);
  const char* warning_len = in.take(4 * warning_count);
  const char* warning_text = in.take(warning_bytes);
  if (!in.ok() || !in.at_end()) return std::nullopt;

  for (std::uint64_t u = 0, at = 0; u < users; ++u) {
    const auto len = In::at<std::uint32_t>(user_len, u);
    if (len > user_bytes - at || w.users.intern(std::string_view(user_names + at, len)) != u) return std::nullopt;
    at += len;
  }
  for (std::uint64_t i = 0, at = 0; i < warning_count; ++i) {
    const auto len = In::at<std::uint32_t>(warning_len, i);
    if (len > warning_bytes - at) return std::nullopt;
    warnings.emplace_back(warning_text + at, len);
    at += len;
  }
  auto time = [](const char* col, std::size_t j) {
    const auto s = In::at<std::int64_t>(col, j);
    return s == INT64_MIN ? OptionalTime() : OptionalTime(Time::seconds(s));
  };
  w.requests.resize(n);
  w.profiles.resize(n);
  w.names.reserve(n, name_bytes);
  for (std::size_t j = 0, at = 0; j < n; ++j) {
    JobRequest& r = w.requests[j];
    r.submit = Time::seconds(In::at<std::int64_t>(submit, j));
    r.gpu_num = In::at<std::int32_t>(gpu, j);
    r.node_num = In::at<std::int32_t>(node, j);
    r.cpu_num = In::at<std::int32_t>(cpu, j);
    r.user = In::at<std::uint32_t>(user, j);
    JobProfile& p = w.profiles[j];
    p.run = Time::seconds(In::at<std::int64_t>(run, j));
    p.idle_share = In::at<float>(idle, j);
    p.set_cancel_pending_at(time(cancel, j));
    if (const OptionalTime s = time(start, j)) p.set_recorded_start(s);
    const auto t = static_cast<std::uint8_t>(type[j]), s = static_cast<std::uint8_t>(state[j]);
    const auto len = In::at<std::uint32_t>(name_len, j);
    if (t >= kJobTypeCount || s >= kJobStateCount || r.user >= users || len > name_bytes - at) return std::nullopt;
    r.type = static_cast<JobType>(t);
    p.final_state = static_cast<JobState>(s);
    w.names.add(std::string_view(names + at, len));
    at += len;
  }
  if (after > 0) {
    w.after.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      w.after[j] = In::at<std::uint32_t>(after_col, j);
      if (w.after[j] != kNoJob && w.after[j] >= j) return std::nullopt;  // must wait for an earlier job
    }
  }
  return w;
}

// The entry's workload and warnings, or none when it is missing, damaged or of another key.
std::optional<Workload> load(const fs::path& file, const std::string& key, std::vector<std::string>& warnings) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(kHeaderBytes);
  void* map = sized ? ::mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : MAP_FAILED;
  ::close(fd);
  auto fail = [&](const char* why) {
    log::debug("trace cache: {}: {}: parsing the trace again", file.string(), why);
    return std::nullopt;
  };
  if (map == MAP_FAILED) return fail("not a cache file (too short, or unreadable)");
  struct Unmap {
    void* map;
    std::size_t size;
    ~Unmap() { ::munmap(map, size); }
  } unmap{map, static_cast<std::size_t>(st.st_size)};
  const char* bytes = static_cast<const char*>(map);
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  In header(bytes, kHeaderBytes);
  const char* magic = header.take(sizeof kMagic);
  const auto version = header.value<std::uint32_t>();
  const auto key_bytes = header.value<std::uint32_t>();
  const auto length = header.value<std::uint64_t>();
  const auto sum = header.value<std::uint64_t>();
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) return fail("not a cache file (magic)");
  if (version != kTraceCacheVersion) return fail("another format version");
  if (length != size - kHeaderBytes || key_bytes > length) return fail("truncated or too long");
  if (std::string_view(bytes + kHeaderBytes, key_bytes) != key) return fail("another key (the trace changed)");
  if (checksum(bytes + kHeaderBytes, length) != sum) return fail("damaged (checksum)");
  In in(bytes + kHeaderBytes + key_bytes, length - key_bytes);
  std::optional<Workload> w = read_payload(in, warnings);
  if (!w) {
    warnings.clear();
    return fail("damaged (a value out of range)");
  }
  return w;
}

// Writes the entry through a temporary file renamed over it; false (having warned once) if it could not.
bool store(const fs::path& dir, const fs::path& file, const std::string& key, const Workload& w,
           const std::vector<std::string>& warnings) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmp = (dir / (file.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ec ? -1 : ::mkstemp(tmp.data());
  if (fd < 0) {
    warn_uncached_once("cannot write to " + dir.string() + " (" + (ec ? ec.message() : std::strerror(errno)) + ")");
    return false;
  }
  ::fchmod(fd, 0644);
  std::FILE* f = ::fdopen(fd, "wb");
  bool ok = f != nullptr;
  if (ok) {
    std::array<char, kHeaderBytes> header{};
    ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
    Out out(f);
    out.bytes(key.data(), key.size());
    write_payload(out, w, warnings);
    out.flush();
    std::memcpy(header.data(), kMagic, sizeof kMagic);
    const std::uint32_t version = kTraceCacheVersion, key_bytes = static_cast<std::uint32_t>(key.size());
    const std::uint64_t length = out.written(), sum = out.checksum();
    std::memcpy(header.data() + 8, &version, 4);
    std::memcpy(header.data() + 12, &key_bytes, 4);
    std::memcpy(header.data() + 16, &length, 8);
    std::memcpy(header.data() + 24, &sum, 8);
    ok = ok && out.ok() && std::fseek(f, 0, SEEK_SET) == 0 &&
         std::fwrite(header.data(), 1, header.size(), f) == header.size();
    ok = (std::fclose(f) == 0) && ok;
  } else {
    ::close(fd);
  }
  if (ok) ok = std::rename(tmp.c_str(), file.c_str()) == 0;
  if (!ok) {
    warn_uncached_once("cannot write " + file.string() + " (" + std::strerror(errno) + ")");
    ::unlink(tmp.c_str());
  }
  return ok;
}

// Removes the least recently used entries of `dir` but `keep` until they fit in `max_bytes`.
void trim(const fs::path& dir, const fs::path& keep, double max_bytes) {
  struct Entry {
    fs::file_time_type used;
    std::uintmax_t bytes;
    fs::path path;
  };
  std::vector<Entry> entries;
  double total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".acmecache") continue;
    std::error_code stat_ec;
    const std::uintmax_t bytes = e.file_size(stat_ec);
    const fs::file_time_type used = e.last_write_time(stat_ec);
    if (stat_ec) continue;  // removed meanwhile by another process
    total += static_cast<double>(bytes);
    if (e.path() != keep) entries.push_back({used, bytes, e.path()});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    if (fs::remove(e.path, ec)) log::info("trace cache: removed {}, the least recently used entry (cache.max_mb)", e.path.string());
    total -= static_cast<double>(e.bytes);
  }
}

}  // namespace

TraceCacheSettings read_trace_cache_settings(Params& p) {
  TraceCacheSettings s;
  s.enabled = p.flag("enabled", true,
                     "keep each trace file's parsed rows in a binary file of cache.dir and map it on later reads "
                     "(same jobs and warnings; --no-cache: false); rebuilt when the trace changes");
  const std::string here = default_trace_cache_dir();
  s.dir = p.path("dir",
                 "the folder of the trace cache's files; by default, here and now: " +
                     (here.empty() ? std::string("none (traces are parsed every time)") : here),
                 "$ACMESIM_CACHE_DIR, else $XDG_CACHE_HOME/acmesim, else ~/.cache/acmesim");
  s.max_mb = p.number("max_mb", s.max_mb, 0, 1e12,
                      "the cache's size limit, MB (10^6 bytes): after an entry is written, the least recently used "
                      "others are removed until the entries fit; 0: no limit");
  return s;
}

std::string default_trace_cache_dir() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  if (std::string d = env("ACMESIM_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/acmesim";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.cache/acmesim";
  return "";
}

TraceCacheEntry::TraceCacheEntry(const std::string& path, const TraceOptions& options,
                                 const TraceCacheSettings& settings)
    : path_(path), options_(options), settings_(settings) {
  if (!settings.enabled) return;
  dir_ = settings.dir.empty() ? default_trace_cache_dir() : settings.dir;
  if (dir_.empty()) warn_uncached_once("no folder (neither ACMESIM_CACHE_DIR, XDG_CACHE_HOME nor HOME is set)");
  const std::optional<Key> key = key_of(path, options);
  if (dir_.empty() || !key) return;
  key_ = key->text;
  file_ = (fs::path(dir_) / key->entry).string();
}

void TraceCacheEntry::log_warnings(const std::vector<std::string>& warnings) const {
  for (const std::string& text : warnings) log::warn("{}{}", path_, text);
}

std::optional<Workload> TraceCacheEntry::load(std::vector<std::string>* kept) const {
  if (file_.empty()) return std::nullopt;
  std::vector<std::string> warnings;
  std::optional<Workload> w = acme::load(file_, key_, warnings);
  if (!w) return std::nullopt;
  log::debug("{}: trace from cache {}", path_, file_);
  w->source = "AcmeTrace " + path_;
  w->window_from = options_.from;
  w->window_to = options_.to;
  if (kept) *kept = std::move(warnings);
  else log_warnings(warnings);
  std::error_code ec;
  fs::last_write_time(file_, fs::file_time_type::clock::now(), ec);  // used now (best effort)
  return w;
}

bool TraceCacheEntry::store(const Workload& w, const std::vector<std::string>& warnings) const {
  if (file_.empty()) return false;
  const std::optional<Key> after = key_of(path_, options_);
  if (!after || after->text != key_ || !acme::store(dir_, file_, key_, w, warnings)) return false;
  log::debug("{}: parsed, and cached in {}", path_, file_);
  if (settings_.max_mb > 0) trim(dir_, file_, settings_.max_mb * 1e6);
  return true;
}

CachedTrace read_acme_trace_cached(const std::string& path, const TraceOptions& options,
                                   const TraceCacheSettings& settings) {
  CachedTrace out;
  if (!settings.enabled) {
    out.workload = read_acme_trace(path, options);
    return out;
  }
  const TraceCacheEntry entry(path, options, settings);
  out.use = TraceCacheUse::Uncached;
  out.entry = entry.file();
  if (std::optional<Workload> w = entry.load()) {
    out.workload = std::move(*w);
    out.use = TraceCacheUse::Hit;
    return out;
  }
  std::vector<std::string> warnings;
  out.workload = read_acme_trace(path, options, &warnings);
  if (entry.store(out.workload, warnings)) out.use = TraceCacheUse::Built;
  return out;
}

}  // namespace acme
