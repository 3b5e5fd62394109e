// AcmeTraceFeed (workloads/acme_trace_reader.h): a trace file read in chunks as a run goes.
#include "workloads/acme_trace_reader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/gzip_text.h"
#include "sim/error.h"
#include "sim/log.h"
#include "sim/prefault.h"
#include "workloads/csv_lines.h"
#include "workloads/trace_ids.h"
#include "workloads/acme_trace_rows.h"

namespace acme {

using namespace acme_trace_rows;

struct AcmeTraceFeed::State {
  State(const std::string& path, const TraceOptions& options)
      : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), name(path), opt(options) {}
  ~State() {
    if (fd >= 0) ::close(fd);
  }
  // Read with pread, never mapped: a mapped page stays in the resident set (a large page-cache
  // folio maps whole at one touch, and MADV_DONTNEED did not always give it back).
  const int fd;
  const std::string name;
  const TraceOptions opt;
  Header header;
  std::size_t header_lines = 0;
  std::size_t body_at = 0, body_size = 0;  // the rows: the file's bytes from body_at on
  std::vector<std::size_t> cut;  // chunk k: the body's bytes [cut[k], cut[k + 1])
  std::size_t expected_jobs = 0;

  // Reads up to `bytes` of the file from `at` (fewer at its end) into `out`, grown to hold them
  // but never shrunk (a buffer to use again, not zeroed again); returns how many it read. Throws
  // InputError if it cannot be read.
  std::size_t read_into(std::size_t at, std::size_t bytes, std::string& out) const {
    if (out.size() < bytes) out.resize(bytes);
    std::size_t got = 0;
    while (got < bytes) {
      const ssize_t n = ::pread(fd, out.data() + got, bytes - got, static_cast<off_t>(at + got));
      if (n < 0) throw_input_error(name, 0, "", std::string("read failed (") + std::strerror(errno) + ")");
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    return got;
  }
  // The same, in a string of its own.
  std::string read_at(std::size_t at, std::size_t bytes) const {
    std::string out;
    out.resize(read_into(at, bytes, out));
    return out;
  }
  // The first line start at or after body offset `c` (body_size when none).
  std::size_t line_start(std::size_t c) const {
    for (std::size_t from = c - 1; from < body_size; from += std::size_t{1} << 16) {
      const std::string window = read_at(body_at + from, std::size_t{1} << 16);
      if (const std::size_t nl = window.find('\n'); nl != std::string::npos) return std::min(body_size, from + nl + 1);
    }
    return body_size;
  }

  // Read ahead by the workers (by append_next when there is none).
  std::mutex m;
  std::condition_variable read_cv;
  std::vector<std::unique_ptr<Part>> read;  // [chunk], once read
  std::vector<std::unique_ptr<Part>> joined_parts;  // for a worker to free
  std::size_t next_to_read = 0;
  bool stopping = false;
  std::vector<std::thread> workers;

  // Joined by append_next (`joined` read by the workers under the lock).
  static constexpr std::size_t kAhead = 2;
  // The ids (a filter only: IdIndex::Keep::Filter) and counts of the chunks joined; its workload unused.
  Part all{header, opt, true};
  std::size_t joined = 0, line_base = 0;
  bool whole = false;
  std::vector<std::string> warnings;
  // The arrays the first worker maps a share at a time (prefault), each {data, bytes for the
  // expected jobs}: the workload's, and the caller's (map_ahead). Set before the workers start.
  std::vector<std::pair<const void*, std::size_t>> to_map;
  bool started = false;
  // Starts threads - 1 workers (none if no thread is to be had: append_next reads the chunks).
  void start_workers() {
    if (std::exchange(started, true)) return;
    for (unsigned i = 1; i < reading_threads(opt); ++i) {
      try {
        workers.emplace_back([this, first = i == 1] {
          // The first maps the pages the jobs are joined into, after each chunk it reads those of
          // the file's share read kAhead chunks later: not all of them before the replay starts.
          std::size_t mapped = 0;  // of the body's bytes
          for (std::size_t k = 0; read_one(true, &k);) {
            const std::size_t upto = cut[std::min(k + 1 + kAhead, chunks())];
            if (!first || upto <= mapped) continue;
            for (const auto& [data, bytes] : to_map)
              prefault(static_cast<const char*>(data) + bytes * mapped / body_size, bytes * (upto - mapped) / body_size);
            mapped = upto;
          }
        });
      } catch (const std::system_error&) {
        break;
      }
    }
  }
  std::thread checker;           // looks for ids used twice once the whole trace is in
  std::promise<bool> unique;     // its answer: no id used twice
  // Its work (IdIndex::duplicates in steps): it finds the suspects; then it and finish(), which
  // would only wait, scan blocks of rows for them until none is left; it pairs what they found.
  struct IdCheck {
    static constexpr std::size_t kBlock = std::size_t{1} << 16;
    const trace_ids::IdIndex* ids = nullptr;
    const StringTable* names = nullptr;
    trace_ids::IdIndex::Suspects suspects;
    std::atomic<std::size_t> next{0};  // the next block to scan
    std::mutex m;
    std::condition_variable cv;
    bool ready = false, failed = false;  // the suspects are set, or will never be; under m
    std::size_t rows = 0, blocks = 0;    // set with the suspects
    std::size_t scanned = 0;             // blocks; under m
    std::vector<IdRef> same;             // the rows found; under m

    void scan() {
      for (std::size_t b; (b = next++) < blocks;) {
        std::vector<IdRef> found;
        ids->suspected(*names, suspects, b * kBlock, std::min(rows, (b + 1) * kBlock), found);
        const std::lock_guard lock(m);
        same.insert(same.end(), found.begin(), found.end());
        ++scanned;
        cv.notify_all();
      }
    }
    // Whether an id is used twice (on the checker's thread).
    bool twice() {
      try {
        suspects = ids->suspects();
        rows = ids->size();
        blocks = (rows + kBlock - 1) / kBlock;
      } catch (...) {
        const std::lock_guard lock(m);
        failed = true;
        cv.notify_all();
        throw;
      }
      {
        const std::lock_guard lock(m);
        ready = true;
      }
      cv.notify_all();
      scan();
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return scanned == blocks; });
      return !trace_ids::IdIndex::pairs(*names, std::move(same)).empty();
    }
    // Scans with the checker, if it got that far.
    void help() {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return ready || failed; });
      if (failed) return;
      lock.unlock();
      scan();
    }
  } id_check;

  std::size_t chunks() const { return cut.size() - 1; }
  std::unique_ptr<Part> read_chunk(std::size_t k) const {
    auto part = std::make_unique<Part>(header, opt, false);
    const std::size_t bytes = cut[k + 1] - cut[k];
    if (!opt.from && !opt.to) part->w.reserve(bytes / 80, bytes / 10);
    thread_local std::string buffer;  // each reading thread's, used again for its next chunk
    std::string_view text;
    try {
      text = std::string_view(buffer.data(), read_into(body_at + cut[k], bytes, buffer));
      if (text.size() < bytes) throw_input_error(name, 0, "", "read failed (the file shrank)");
    } catch (...) {
      part->failed = std::current_exception();
      return part;
    }
    // The first chunk's lines are numbered as in the file: after the header.
    csv_lines::TextLines lines(text, false, k == 0 ? header_lines : 0);
    part->read(lines);
    return part;
  }
  // Takes the next chunk nobody took and reads it; false when none is left (or stopping). Frees
  // the chunks joined meanwhile first (off the replay's thread).
  // `bounded`: at most kAhead chunks read and not yet joined (a worker waits for the replay).
  bool read_one(bool bounded, std::size_t* chunk_read = nullptr) {
    std::unique_lock lock(m);
    const auto room = [&] { return !bounded || next_to_read < joined + kAhead; };
    read_cv.wait(lock, [&] { return stopping || room() || !joined_parts.empty(); });
    std::vector<std::unique_ptr<Part>> freed;
    freed.swap(joined_parts);
    if (stopping || next_to_read == chunks()) return false;
    if (!room()) return true;  // only freed
    const std::size_t k = next_to_read++;
    lock.unlock();
    freed.clear();
    std::unique_ptr<Part> part = read_chunk(k);
    lock.lock();
    read[k] = std::move(part);
    read_cv.notify_all();
    if (chunk_read) *chunk_read = k;
    return true;
  }
  // Chunk k, read here if there is no worker, else once its worker is done with it.
  std::unique_ptr<Part> take(std::size_t k) {
    std::unique_lock lock(m);
    if (!read[k] && next_to_read == k && workers.empty()) {
      ++next_to_read;
      lock.unlock();
      return read_chunk(k);
    }
    read_cv.wait(lock, [&] { return read[k] != nullptr; });
    return std::move(read[k]);
  }
  // The latest timestamp of the whole file, once every chunk is read (those from `k` on not yet joined).
  Time latest_of_file(std::size_t k) {
    while (read_one(false)) {
    }
    std::unique_lock lock(m);
    Time latest = all.latest;
    for (; k < chunks(); ++k) {
      read_cv.wait(lock, [&] { return read[k] != nullptr; });
      latest = std::max(latest, read[k]->latest);
    }
    return latest;
  }
};

AcmeTraceFeed::AcmeTraceFeed(std::unique_ptr<State> s) : s_(std::move(s)) {}

AcmeTraceFeed::~AcmeTraceFeed() {
  {
    const std::lock_guard lock(s_->m);
    s_->stopping = true;
    s_->read_cv.notify_all();
  }
  for (std::thread& t : s_->workers) t.join();
  if (s_->checker.joinable()) s_->checker.join();
}

std::unique_ptr<AcmeTraceFeed> AcmeTraceFeed::open(const std::string& path, const TraceOptions& options,
                                                   Workload& w) {
  // Other formats, and compressed files (no offset to cut at), are read whole.
  if (options.lenient || trace_format(path) != TraceFormat::AcmeTrace || gzip_text::is_gzip(path)) return nullptr;
  auto s = std::make_unique<State>(path, options);
  struct stat st {};
  if (s->fd < 0 || ::fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
      static_cast<std::size_t>(st.st_size) >= kMaxPartedText)
    return nullptr;
  const auto size = static_cast<std::size_t>(st.st_size);
  {
    const std::string start = s->read_at(0, std::min(size, csv_lines::kMaxLine + 2));
    csv_lines::TextLines head(start);
    s->header = read_header_line(head, path);
    s->header_lines = head.number();
    s->body_at = head.position();
  }
  s->body_size = size - s->body_at;
  // Chunks of 1 MiB (about 8,500 rows), the first of 256 KiB so that the replay starts soon. Those
  // read ahead and their text buffers are much of what two threads hold beyond one: 1 MiB holds
  // 1.6-3.7 MB less at the peak of a 1M-job replay than 2 MiB did, in the same time.
  s->cut.push_back(0);
  for (std::size_t chunk = std::size_t{1} << 18; s->cut.back() < s->body_size; chunk = std::size_t{1} << 20)
    s->cut.push_back(s->cut.back() + chunk >= s->body_size ? s->body_size : s->line_start(s->cut.back() + chunk));
  s->read.resize(s->chunks());
  s->all.ids = IdIndex(true, IdIndex::Keep::Filter);
  // Rows expected: the file's bytes over the mean line length of 64 KiB at its start, middle and
  // end (ids and numbers grow longer down a trace).
  std::size_t sampled = 0, lines = 0;
  for (const std::size_t at : {std::size_t{0}, s->body_size / 2, s->body_size - std::min(s->body_size, std::size_t{1} << 16)}) {
    const std::string sample = s->read_at(s->body_at + at, std::min(s->body_size - at, std::size_t{1} << 16));
    sampled += sample.size();
    lines += static_cast<std::size_t>(std::count(sample.begin(), sample.end(), '\n'));
  }
  if (lines > 0) s->expected_jobs = static_cast<std::size_t>(static_cast<double>(s->body_size) * lines / sampled);
  w = Workload{};
  w.source = "AcmeTrace " + path;
  w.window_from = options.from;
  w.window_to = options.to;
  if (!options.from && !options.to) w.reserve(s->expected_jobs + s->expected_jobs / 20, s->body_size / 10);
  s->all.ids.reserve(s->expected_jobs + s->expected_jobs / 20);
  const std::size_t expected = std::min(w.requests.capacity(), s->expected_jobs);
  s->to_map = {{w.requests.data(), expected * sizeof(JobRequest)}, {w.profiles.data(), expected * sizeof(JobProfile)}};
  return std::make_unique<AcmeTraceFeed>(std::move(s));
}

std::size_t AcmeTraceFeed::expected_jobs() const { return s_->expected_jobs; }

bool AcmeTraceFeed::map_ahead(const std::vector<PerJobArray>& arrays) {
  State& s = *s_;
  if (s.started) return false;
  for (const PerJobArray& a : arrays) s.to_map.emplace_back(a.data, a.bytes_per_job * s.expected_jobs);
  s.start_workers();
  return !s.workers.empty();
}

bool AcmeTraceFeed::append_next(Workload& w) {
  State& s = *s_;
  s.start_workers();
  if (s.whole) return false;
  if (s.joined < s.chunks()) {
    std::unique_ptr<Part> part = s.take(s.joined);
    if (part->failed) std::rethrow_exception(part->failed);
    if (part->stop) throw_input_error(s.name, s.line_base + part->stop->line, part->stop->column, part->stop->message);
    const std::size_t open_before = s.all.open.size();
    join(s.all, w, *part, s.line_base);
    s.line_base += part->lines;
    {
      const std::lock_guard lock(s.m);
      ++s.joined;
      if (!s.workers.empty()) s.joined_parts.push_back(std::move(part));  // a worker frees it
      s.read_cv.notify_all();
    }
    if (s.all.unordered.rows > 0)
      throw WholeWorkloadNeeded(s.name + ":" + std::to_string(s.all.unordered.first_line) +
                                ": a row submitted before a row above it");
    if (s.all.open.size() > open_before) {
      const std::vector<JobId> open(s.all.open.begin() + static_cast<std::ptrdiff_t>(open_before), s.all.open.end());
      finish_open_jobs(w, open, s.opt.to ? *s.opt.to : s.latest_of_file(s.joined));
    }
  }
  if (s.joined == s.chunks()) {  // the end of the file
    if (s.all.rows == 0) throw_input_error(s.name, 1, "header", "no job rows after the header");
    warn_of_whole(s.name, s.all, w, &s.warnings);
    s.whole = true;
    // Ids used twice are looked for on a thread of their own (finish() waits for the answer),
    // then, when there are none, on_whole is called there.
    s.id_check.ids = &s.all.ids;
    s.id_check.names = &w.names;
    s.checker = std::thread([this, &w] {
      State& c = *s_;
      bool twice = false;
      try {
        twice = c.id_check.twice();
      } catch (...) {
        c.unique.set_exception(std::current_exception());
        return;
      }
      c.all.ids = IdIndex(false);
      c.unique.set_value(!twice);
      if (!twice && on_whole) on_whole(w, c.warnings);
    });
  }
  return true;
}

void AcmeTraceFeed::finish() {
  State& s = *s_;
  if (!s.checker.joinable()) return;
  s.id_check.help();
  // An id used twice is an error naming both lines, which the whole read finds.
  if (!s.unique.get_future().get()) throw WholeWorkloadNeeded(s.name + ": a job id used twice");
}

}  // namespace acme
