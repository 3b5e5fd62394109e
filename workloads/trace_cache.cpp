#include "workloads/trace_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sim/log.h"
#include "sim/prefault.h"
#include "workloads/pai_trace.h"
#include "workloads/trace_cache_file.h"

namespace acme {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kEnds = 64 * 1024;  // bytes of the trace's head and tail in the key
using trace_cache_file::hash_bytes;

std::string hex(std::uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

struct Key {
  std::string text;   // everything an entry must match
  std::string entry;  // the entry's file name
};

// A file's size and modification time, as a key's lines.
std::string stamp(const struct stat& st) {
  return "size " + std::to_string(st.st_size) + "\nmtime_ns " +
         std::to_string(st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec) + "\n";
}

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
      "from " + time(opt.from) + "\nto " + time(opt.to) + "\nlenient " + (opt.lenient ? "1" : "0") +
      "\nfeedback " + (opt.feedback ? "1" : "0") + "\nutc_offset " +
      (opt.utc_offset_s ? std::to_string(*opt.utc_offset_s) : "none") + "\n";
  const std::string where = "path " + canonical.string() + "\n" + options;
  Key k;
  k.text = "acmesim " ACMESIM_VERSION "\n" + where + stamp(st) + "head_tail " +
           hex(hash_bytes(ends.data(), static_cast<std::size_t>(head), 0) ^
               hash_bytes(ends.data() + kEnds, static_cast<std::size_t>(tail), 1)) +
           "\n";
  // The files read with it (PAI's other table): a change to one is a change to the trace.
  for (const std::string& other : pai_companions(path)) {
    struct stat cst {};
    if (::stat(other.c_str(), &cst) != 0) return std::nullopt;
    k.text += "with " + fs::canonical(other, ec).string() + "\n" + stamp(cst);
  }
  k.entry = canonical.filename().string().substr(0, 100) + "." + hex(hash_bytes(where.data(), where.size(), 2)) +
            ".acmecache";
  return k;
}

void warn_uncached_once(const std::string& why) {
  static std::once_flag once;
  std::call_once(once, [&] {
    log::warn("trace cache: {}: traces are parsed every time (cache.dir: another folder; cache.enabled: false "
              "or --no-cache: no cache, and no warning)",
              why);
  });
}

void log_distrust(const fs::path& file, const char* why) {
  log::debug("trace cache: {}: {}: parsing the trace again", file.string(), why);
}

// The entry's workload and warnings, or none when it is missing, damaged or of another key.
std::optional<Workload> load(const fs::path& file, const std::string& key, std::vector<std::string>& warnings) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // no entry
  const char* why = nullptr;
  std::optional<trace_cache_file::Reader> r = trace_cache_file::Reader::open(fd, key, why);
  std::optional<Workload> w;
  if (r) {
    while (!r->done() && r->next()) {
    }
    w = r->start();
    r->show(*w);
    why = "damaged (a chunk's checksum, or a value out of range)";
  }
  ::close(fd);
  if (r && r->done()) {
    warnings = r->warnings();
    return w;
  }
  log_distrust(file, why);
  return std::nullopt;
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
    ok = trace_cache_file::write(f, key, w, warnings);
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
                     "keep each trace file's parsed rows in a binary file of cache.dir, read on later reads instead "
                     "of the trace (same jobs and warnings; --no-cache: false); rebuilt when the trace changes");
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

void TraceCacheEntry::note_used(Workload& w) const {
  log::debug("{}: trace from cache {}", path_, file_);
  w.source = trace_source(path_);
  w.window_from = options_.from;
  w.window_to = options_.to;
  std::error_code ec;
  fs::last_write_time(file_, fs::file_time_type::clock::now(), ec);  // used now (best effort)
}

std::optional<Workload> TraceCacheEntry::load(std::vector<std::string>* kept) const {
  if (file_.empty()) return std::nullopt;
  std::vector<std::string> warnings;
  std::optional<Workload> w = acme::load(file_, key_, warnings);
  if (!w) return std::nullopt;
  note_used(*w);
  if (kept) *kept = std::move(warnings);
  else log_warnings(warnings);
  return w;
}

struct TraceCacheFeed::State {
  static constexpr std::size_t kAhead = 2;  // chunks checked ahead of the replay
  std::string file;
  std::optional<trace_cache_file::Reader> reader;  // used by the thread
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::size_t> ready;  // of each chunk checked, not yet shown: the jobs checked up to its end; under m
  bool failed = false;            // a chunk is damaged; under m
  bool stop = false;              // under m
  bool thread_due = false;        // a thread of its own is to check the chunks
  // The caller's arrays whose pages the thread maps a chunk ahead (prefault; map_ahead). Set
  // before it starts.
  std::vector<PerJobArray> to_map;
  std::thread thread;

  // Starts the thread (none if no thread is to be had: append_next checks the chunks).
  void start() {
    if (!std::exchange(thread_due, false)) return;
    try {
      thread = std::thread([this] { run(); });
    } catch (const std::system_error&) {
    }
  }
  void run() {
    while (!reader->done()) {
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stop || ready.size() < kAhead; });
        if (stop) return;
      }
      const std::size_t first = reader->jobs_read();
      const bool ok = reader->next();
      for (const PerJobArray& a : to_map)
        prefault(static_cast<const char*>(a.data) + first * a.bytes_per_job, (reader->jobs_read() - first) * a.bytes_per_job);
      {
        const std::lock_guard lock(m);
        if (ok) ready.push_back(reader->jobs_read());
        else failed = true;
      }
      cv.notify_all();
      if (!ok) return;
    }
  }
};

std::unique_ptr<TraceCacheFeed> TraceCacheEntry::feed(Workload& w) const {
  if (file_.empty()) return nullptr;
  auto s = std::make_unique<TraceCacheFeed::State>();
  s->file = file_;
  const int fd = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;  // no entry
  const char* why = nullptr;
  s->reader = trace_cache_file::Reader::open(fd, key_, why);
  ::close(fd);
  if (!s->reader) {
    log_distrust(file_, why);
    return nullptr;
  }
  if (s->reader->waits() || !s->reader->in_submit_order()) return nullptr;
  w = s->reader->start();
  note_used(w);
  log_warnings(s->reader->warnings());
  s->thread_due = reading_threads(options_) > 1;
  return std::make_unique<TraceCacheFeed>(std::move(s));
}

TraceCacheFeed::TraceCacheFeed(std::unique_ptr<State> s) : s_(std::move(s)) {}

TraceCacheFeed::~TraceCacheFeed() {
  {
    const std::lock_guard lock(s_->m);
    s_->stop = true;
  }
  s_->cv.notify_all();
  if (s_->thread.joinable()) s_->thread.join();
}

bool TraceCacheFeed::map_ahead(const std::vector<PerJobArray>& arrays) {
  State& s = *s_;
  if (!s.thread_due) return false;  // no thread, or started already
  s.to_map.insert(s.to_map.end(), arrays.begin(), arrays.end());
  s.start();
  return s.thread.joinable();
}

bool TraceCacheFeed::append_next(Workload& w) {
  State& s = *s_;
  s.start();
  if (w.size() == s.reader->jobs()) return false;
  if (!s.thread.joinable()) {  // checked here
    if (!s.reader->next()) throw WholeWorkloadNeeded(s.file + ": damaged");
    s.reader->show(w);
    return true;
  }
  std::size_t checked;
  {
    std::unique_lock lock(s.m);
    s.cv.wait(lock, [&] { return !s.ready.empty() || s.failed; });
    if (s.ready.empty()) throw WholeWorkloadNeeded(s.file + ": damaged");
    checked = s.ready.front();
    s.ready.pop_front();
  }
  s.cv.notify_all();
  w.requests.show(checked);
  w.profiles.show(checked);
  w.names.show(checked);
  w.keys.show(checked);
  if (w.time_limits.is_view()) w.time_limits.show(checked);
  return true;
}

std::size_t TraceCacheFeed::expected_jobs() const { return s_->reader->jobs(); }

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
