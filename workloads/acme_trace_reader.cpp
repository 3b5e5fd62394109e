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

#include "sim/error.h"
#include "sim/log.h"
#include "sim/prefault.h"
#include "workloads/csv_lines.h"
#include "workloads/trace_ids.h"

namespace acme {
namespace {

using csv_lines::LineReader;
using csv_lines::shown;
using csv_lines::split;
using csv_lines::SplitError;
using trace_ids::IdIndex;
using trace_ids::IdRef;

enum Col : std::size_t { kJobId, kUser, kNodeNum, kGpuNum, kCpuNum, kType, kState, kSubmit, kStart, kEnd, kCols };
constexpr std::array<std::string_view, kCols> kColNames = {
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time", "start_time", "end_time"};

// A row problem: the column and the message. Thrown inside the reader only.
struct RowError {
  std::string_view column;
  std::string message;
};

std::int32_t parse_count(std::string_view s, std::string_view column) {
  if (!s.empty() && s.size() <= 6) {  // fast path: 1 to 6 digits, nothing else (below 1,000,000)
    std::int32_t n = 0;
    bool digits = true;
    for (const char c : s) {
      const auto d = static_cast<unsigned>(static_cast<unsigned char>(c)) - '0';
      digits &= d <= 9;
      n = n * 10 + static_cast<std::int32_t>(d);
    }
    if (digits) return n;
  }
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // Accept "12.0": some exports print whole numbers as floats.
  if (ec == std::errc() && p != s.data() + s.size() && *p == '.') {
    ++p;
    while (p != s.data() + s.size() && *p == '0') ++p;
  }
  if ((ec != std::errc() && ec != std::errc::result_out_of_range) || p != s.data() + s.size() || s.empty())
    throw RowError{column, "expected a whole number, got " + shown(s)};
  if (ec != std::errc() || v < 0 || v > 1'000'000)
    throw RowError{column, "must be between 0 and 1000000, got " + std::string(s)};
  return static_cast<std::int32_t>(v);
}

std::optional<Time> parse_time(std::string_view s, std::string_view column, bool required) {
  if (s.empty()) {
    if (required) throw RowError{column, "empty"};
    return std::nullopt;
  }
  if (auto t = parse_timestamp(s)) return t;
  throw RowError{column, "expected a timestamp like 2023-03-01 00:18:22+08:00, got " + shown(s)};
}

// A count of rows with something worth a warning, and the first line it was seen on.
struct Oddity {
  std::uint64_t rows = 0;
  std::size_t first_line = 0;
  void saw(std::size_t line) {
    if (rows++ == 0) first_line = line;
  }
  // Adds those of a later part of the file, whose lines are numbered from `line_base` + 1.
  void add(const Oddity& later, std::size_t line_base) {
    if (rows == 0 && later.rows > 0) first_line = line_base + later.first_line;
    rows += later.rows;
  }
};

// Logs "<name><text>" and, given `kept`, keeps the text (without the name) for the caller.
template <class... A>
void warn(std::string_view name, std::vector<std::string>* kept, fmt::format_string<A...> f, A&&... a) {
  std::string text = fmt::format(f, std::forward<A>(a)...);
  log::warn("{}{}", name, text);
  if (kept) kept->push_back(std::move(text));
}

constexpr std::string_view kLongLine = "line longer than 1 MiB (is this an AcmeTrace CSV file?)";
constexpr std::uint64_t kShownSkipped = 5;  // lenient: the skipped rows reported one by one

// The header's columns, read once; the parts of a file share it, read-only.
struct Header {
  std::vector<std::string> names;
  std::array<std::size_t, kCols> index{};
  std::size_t min_fields = 0;
};

Header read_header(std::string_view line, std::string_view name) {
  if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // UTF-8 byte-order mark
  if (line.find('\0') != std::string_view::npos)
    throw_input_error(name, 1, "header", "binary data (a NUL byte): not a CSV text file");
  std::vector<std::string_view> fields;
  std::string scratch;
  try {
    split(line, fields, scratch);
  } catch (const SplitError& e) {
    throw_input_error(name, 1, "header", e.message);
  }
  Header h;
  h.names.assign(fields.begin(), fields.end());
  h.index.fill(SIZE_MAX);
  for (std::size_t i = 0; i < fields.size(); ++i)
    for (std::size_t c = 0; c < kCols; ++c) {
      if (fields[i] != kColNames[c]) continue;
      if (h.index[c] != SIZE_MAX)
        throw_input_error(name, 1, "header", "column '" + std::string(kColNames[c]) + "' appears twice");
      h.index[c] = i;
    }
  for (std::size_t c = 0; c < kCols; ++c) {
    if (h.index[c] == SIZE_MAX)
      throw_input_error(name, 1, "header", "missing required column '" + std::string(kColNames[c]) +
                                               "' (is this an AcmeTrace file?)");
    h.min_fields = std::max(h.min_fields, h.index[c] + 1);
  }
  return h;
}

// The first line of `lines`, read as the header.
template <class Lines>
Header read_header_line(Lines& lines, std::string_view name) {
  std::string_view line;
  bool any = false;
  try {
    any = lines.next(line);
  } catch (const csv_lines::LongLine&) {
    throw_input_error(name, 1, "header", std::string(kLongLine));
  }
  if (!any) throw_input_error(name, 1, "header", "empty file: expected an AcmeTrace header");
  return read_header(line, name);
}

// A row or line that could not be read: its line (as the part's reader numbers it), column and why.
struct Problem {
  std::size_t line;
  std::string_view column;  // a literal, or a name the Header holds
  std::string message;
};

// The rows of one part of a trace (every row, read on one thread), in file order. Its jobs are
// numbered from 0 and its users in the order the part first names them; lines as its reader
// numbers them. join() makes of the parts of a file, in order, the part one reader of the whole
// file gives; finish() makes the Workload.
struct Part {
  Part(const Header& h, const TraceOptions& opt, bool filter_ids) : header(&h), opt(opt), ids(filter_ids) {}

  // Reads rows until the end or a row or line that stops reading (`stop`, `failed`); throws nothing.
  template <class Lines>
  void read(Lines& reader) noexcept {
    try {
      std::string_view line;
      while (reader.next(line)) {
        if (line.empty()) continue;
        ++rows;
        try {
          read_row(line, reader.number());
        } catch (const RowError& e) {
          if (!opt.lenient) {
            stop = Problem{reader.number(), e.column, e.message};
            break;
          }
          if (++w.rows_skipped <= kShownSkipped) skipped.push_back({reader.number(), e.column, e.message});
        }
      }
    } catch (const csv_lines::LongLine& e) {
      stop = Problem{e.line, "", std::string(kLongLine)};
    } catch (...) {
      failed = std::current_exception();
    }
    lines = reader.number();
  }

  const Header* header;
  TraceOptions opt;
  Workload w;
  IdIndex ids;
  std::vector<JobId> open;     // RUNNING jobs without an end, set at the horizon by finish()
  std::uint64_t rows = 0;      // lines that are not empty
  std::size_t lines = 0;       // the number of the last line read
  std::vector<Problem> skipped;  // lenient: the first kShownSkipped skipped rows (all: w.rows_skipped)
  std::optional<Problem> stop;   // the row (strict) or line (too long) that stopped reading
  std::exception_ptr failed;     // a read error, or another exception
  Oddity uneven, unordered;
  Time latest, last_submit;

 private:
  std::string_view field(Col c) const { return fields_[header->index[c]]; }
  // The header's name of the i-th field of a row.
  std::string_view column_name(std::size_t i) const {
    return i < header->names.size() ? std::string_view(header->names[i])
                                    : std::string_view("(past the header's columns)");
  }

  void read_row(std::string_view line, std::size_t number) {
    try {
      split(line, fields_, scratch_);
    } catch (const SplitError& e) {
      throw RowError{column_name(e.field), e.message};
    }
    if (line.find('\0') != std::string_view::npos)
      for (std::size_t i = 0; i < fields_.size(); ++i)
        if (fields_[i].find('\0') != std::string_view::npos)
          throw RowError{column_name(i), "binary data (a NUL byte): not a CSV text file"};
    if (fields_.size() < header->min_fields) {
      std::size_t missing = kCols;  // the first required column past the line's end
      for (std::size_t c = 0; c < kCols; ++c)
        if (header->index[c] >= fields_.size() && (missing == kCols || header->index[c] < header->index[missing]))
          missing = c;
      throw RowError{kColNames[missing], "missing: the line has " + std::to_string(fields_.size()) +
                                             " fields, the header " + std::to_string(header->names.size()) +
                                             " (truncated line?)"};
    }
    const Time submit = *parse_time(field(kSubmit), kColNames[kSubmit], true);
    if ((opt.from && submit < *opt.from) || (opt.to && submit >= *opt.to)) {
      ++w.rows_outside_window;
      return;
    }
    const std::string_view id = field(kJobId);
    const std::uint64_t hash = trace_ids::id_hash(id);
    ids.prefetch(hash);  // its filter word loads while the rest of the row is parsed

    JobRequest r;
    JobProfile p;
    r.submit = submit;
    const auto type = parse_job_type(field(kType));
    if (!type) throw RowError{kColNames[kType], "unknown job type " + shown(field(kType))};
    r.type = *type;
    const auto state = parse_job_state(field(kState));
    if (!state || *state == JobState::Rejected)
      throw RowError{kColNames[kState], "unknown job state " + shown(field(kState))};
    p.final_state = *state;
    r.gpu_num = field(kGpuNum).empty() && r.type == JobType::CPU ? 0 : parse_count(field(kGpuNum), kColNames[kGpuNum]);
    r.cpu_num = parse_count(field(kCpuNum), kColNames[kCpuNum]);
    r.node_num = field(kNodeNum).empty() ? 0 : parse_count(field(kNodeNum), kColNames[kNodeNum]);
    if (r.node_num == 0) r.node_num = r.gpu_num > 0 ? (r.gpu_num + 7) / 8 : 1;
    if (id.empty()) throw RowError{kColNames[kJobId], "empty"};

    const std::optional<Time> start = parse_time(field(kStart), kColNames[kStart], false);
    const std::optional<Time> end = parse_time(field(kEnd), kColNames[kEnd], p.final_state != JobState::Running);
    if (start && *start < submit) throw RowError{kColNames[kStart], "before submit_time"};
    if (end && start && *end < *start) throw RowError{kColNames[kEnd], "before start_time"};
    if (end && *end < submit) throw RowError{kColNames[kEnd], "before submit_time"};
    if (end) latest = std::max(latest, *end);
    latest = std::max(latest, start.value_or(submit));
    if (r.gpu_num % r.node_num != 0) uneven.saw(number);
    if (w.size() > 0 && submit < last_submit) unordered.saw(number);
    last_submit = std::max(last_submit, submit);

    if (!start || (p.final_state == JobState::Cancelled && end && *start == *end)) {
      p.set_cancel_pending_at(end);  // none for RUNNING rows without start: set at the horizon
      if (!end) open.push_back(static_cast<JobId>(w.size()));
    } else {
      p.set_recorded_start(start);
      if (end) p.run = *end - *start;
      else open.push_back(static_cast<JobId>(w.size()));
    }
    try {
      r.user = w.users.intern(field(kUser));
    } catch (const std::length_error& e) {
      throw RowError{kColNames[kUser], e.what()};
    }
    w.add(id, hash, r, p);  // the id's hash is its key
    ids.add(hash, number);
  }

  std::vector<std::string_view> fields_;
  std::string scratch_;
};

// The first part that stopped reading throws its problem (lines of parts[k] numbered from
// `line_base[k]` + 1), after the rows skipped before it are reported as one reader reports them.
void report_skipped_and_stops(std::string_view name, const std::vector<Part>& parts,
                              const std::vector<std::size_t>& line_base, std::vector<std::string>* warnings) {
  std::uint64_t shown_rows = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Part& p = parts[k];
    for (const Problem& s : p.skipped)
      if (shown_rows++ < kShownSkipped)
        warn(name, warnings, ":{}: {}: {} (row skipped: workload.lenient is on)", line_base[k] + s.line, s.column,
             s.message);
    if (p.failed) std::rethrow_exception(p.failed);
    if (p.stop) throw_input_error(name, line_base[k] + p.stop->line, p.stop->column, p.stop->message);
  }
}

// Appends to `w` (the jobs of the parts before `later`, joined; `all` holds their ids and counts)
// the part `later`, whose lines are numbered from `line_base` + 1: jobs, users (interned in
// order), ids and every count, as one reader of both gives them.
void join(Part& all, Workload& w, Part& later, std::size_t line_base) {
  const auto job_base = static_cast<JobId>(w.size());
  std::vector<std::uint32_t> user_of(later.w.users.size());
  for (std::uint32_t u = 0; u < user_of.size(); ++u) user_of[u] = w.users.intern(later.w.users[u]);
  if (const std::size_t need = w.size() + later.w.size(); need > w.requests.capacity())  // geometric: a feed joins chunks
    w.requests.reserve(std::max(need, 2 * w.requests.capacity()));
  for (std::size_t j = 0; j < later.w.size(); ++j) {
    JobRequest r = later.w.requests[j];
    r.user = user_of[r.user];
    // Out of order against every row above, not only those of its part.
    if (w.size() > 0 && r.submit < all.last_submit) all.unordered.saw(line_base + later.ids.line(static_cast<JobId>(j)));
    all.last_submit = std::max(all.last_submit, r.submit);
    w.requests.push_back(r);
  }
  w.profiles.insert(w.profiles.end(), later.w.profiles.begin(), later.w.profiles.end());
  w.names.append(later.w.names);
  w.keys.insert(w.keys.end(), later.w.keys.begin(), later.w.keys.end());
  for (JobId j : later.open) all.open.push_back(job_base + j);
  all.ids.append(later.ids, line_base);
  all.rows += later.rows;
  w.rows_skipped += later.w.rows_skipped;
  w.rows_outside_window += later.w.rows_outside_window;
  all.uneven.add(later.uneven, line_base);
  all.latest = std::max(all.latest, later.latest);
  later.w = Workload{};
  later.ids = IdIndex(false);
}

// The RUNNING jobs `open` of `w`, without an end, run (or wait) until the horizon.
void finish_open_jobs(Workload& w, const std::vector<JobId>& open, Time horizon) {
  for (JobId j : open) {
    JobProfile& p = w.profiles[j];
    if (const OptionalTime start = p.recorded_start()) p.run = std::max(horizon, *start) - *start;
    else p.set_cancel_pending_at(std::max(horizon, w.requests[j].submit));
  }
}

// A row whose job id an earlier selected row has is an error naming both lines (the first such
// row in the file), or, lenient, skipped and counted like any malformed row. `w`: the jobs of
// every part, joined; `all`, their ids.
void drop_duplicates(const Part& all, Workload& w, std::string_view name, std::vector<std::string>* warnings) {
  const std::vector<std::pair<IdRef, IdRef>> dups = all.ids.duplicates(w.names);
  if (dups.empty()) return;
  auto message = [&](const std::pair<IdRef, IdRef>& d) {
    return "duplicate job id " + shown(w.names[d.first.job]) + ", also on line " + std::to_string(d.second.line);
  };
  if (!all.opt.lenient) throw_input_error(name, dups.front().first.line, kColNames[kJobId], message(dups.front()));
  for (std::size_t i = 0; i < dups.size() && w.rows_skipped + i < kShownSkipped; ++i)
    warn(name, warnings, ":{}: {}: {} (row skipped: workload.lenient is on)", dups[i].first.line, kColNames[kJobId],
         message(dups[i]));
  w.rows_skipped += dups.size();
  std::vector<bool> drop(w.size());
  for (const auto& d : dups) drop[d.first.job] = true;
  Workload kept;
  kept.source = w.source;
  kept.rows_skipped = w.rows_skipped;
  kept.rows_outside_window = w.rows_outside_window;
  kept.window_from = w.window_from;
  kept.window_to = w.window_to;
  for (JobId j = 0; j < w.size(); ++j) {
    if (drop[j]) continue;
    JobRequest r = w.requests[j];
    r.user = kept.users.intern(w.users[r.user]);
    kept.add(w.names[j], r, w.profiles[j]);
  }
  w = std::move(kept);
}

// The warnings about the whole file, once every part is joined into `w`.
void warn_of_whole(std::string_view name, const Part& all, const Workload& w, std::vector<std::string>* warnings) {
  if (w.rows_skipped > kShownSkipped) warn(name, warnings, ": {} malformed rows skipped in all", w.rows_skipped);
  if (w.size() == 0 && w.rows_skipped == 0)
    warn(name, warnings, ": none of its {} rows is submitted within the window: the run has no jobs", all.rows);
  if (all.uneven.rows > 0)
    warn(name, warnings,
         ": {} jobs have a gpu_num that node_num does not divide (first on line {}): their GPUs are "
         "spread as evenly as possible, the first nodes one more",
         all.uneven.rows, all.uneven.first_line);
  if (all.unordered.rows > 0)
    warn(name, warnings,
         ": {} rows are submitted before a row above them (first on line {}): jobs are released in "
         "submit-time order all the same",
         all.unordered.rows, all.unordered.first_line);
}

// The workload of a file read in `parts` (one, or several in file order; the lines of parts[0]
// numbered as in the file, those of parts[k] from the end of parts[k - 1]), with its warnings.
// With `warnings`, each warning logged is also kept there, without the name.
Workload finish(std::string_view name, const TraceOptions& opt, std::vector<Part>& parts,
                std::vector<std::string>* warnings) {
  std::vector<std::size_t> line_base(parts.size(), 0);
  for (std::size_t k = 1; k < parts.size(); ++k) line_base[k] = line_base[k - 1] + parts[k - 1].lines;
  report_skipped_and_stops(name, parts, line_base, warnings);
  Part& all = parts.front();
  for (std::size_t k = 1; k < parts.size(); ++k) join(all, all.w, parts[k], line_base[k]);
  Workload& w = all.w;
  w.source = "AcmeTrace " + std::string(name);
  w.window_from = opt.from;
  w.window_to = opt.to;
  if (all.rows == 0) throw_input_error(name, 1, "header", "no job rows after the header");
  finish_open_jobs(w, all.open, opt.to.value_or(all.latest));
  drop_duplicates(all, w, name, warnings);
  warn_of_whole(name, all, w, warnings);
  return std::move(w);
}


// Reads a whole file from one reader, on this thread. `file_bytes`, if known, sizes the workload
// up front when every row is read (no window).
Workload read_on_one_thread(csv_lines::LineReader& lines, std::string_view name, const TraceOptions& opt,
                            std::vector<std::string>* warnings, std::uintmax_t file_bytes = 0) {
  const Header header = read_header_line(lines, name);
  std::vector<Part> parts;
  parts.emplace_back(header, opt, true);
  // AcmeTrace rows take 100 to 130 bytes: 80 a row over-reserves, which costs address space only.
  if (file_bytes > 0 && !opt.from && !opt.to) {
    parts[0].w.reserve(file_bytes / 80, file_bytes / 10);
    parts[0].ids.reserve(file_bytes / 120);  // about a row's bytes: the filter's size (rows past it grow it)
  }
  parts[0].read(lines);
  return finish(name, opt, parts, warnings);
}

// Reads text in memory in `threads` parts cut at line starts, each on its own thread (the first
// on this one), then joins them. `mapped`: the text is a MappedFile, whose pages each part gives
// back once read.
Workload read_in_parts(std::string_view text, std::string_view name, const TraceOptions& opt, unsigned threads,
                       bool mapped, std::vector<std::string>* warnings) {
  csv_lines::TextLines head(text);
  const Header header = read_header_line(head, name);
  const std::string_view body = text.substr(head.position());
  std::vector<std::size_t> cut(threads + 1, body.size());
  cut[0] = 0;
  for (std::size_t k = 1; k < threads; ++k) {
    std::size_t c = std::max(cut[k - 1], body.size() / threads * k);
    if (c > 0 && c < body.size() && body[c - 1] != '\n') {
      const std::size_t nl = body.find('\n', c);
      c = nl == std::string_view::npos ? body.size() : nl + 1;
    }
    cut[k] = c;
  }
  std::vector<Part> parts;
  for (std::size_t k = 0; k < threads; ++k) {
    parts.emplace_back(header, opt, k == 0);
    // The first part makes room for every row (see read_on_one_thread): the others join it.
    const std::size_t bytes = k == 0 ? text.size() : cut[k + 1] - cut[k];
    if (!opt.from && !opt.to) parts[k].w.reserve(bytes / 80, bytes / 10);
  }
  auto read = [&](std::size_t k) {
    // The first part's lines are numbered as in the file: after the header.
    csv_lines::TextLines lines(body.substr(cut[k], cut[k + 1] - cut[k]), mapped, k == 0 ? head.number() : 0);
    parts[k].read(lines);
  };
  std::vector<std::thread> workers;
  std::vector<bool> started(threads, false);
  for (std::size_t k = 1; k < threads; ++k) {
    try {
      workers.emplace_back(read, k);
      started[k] = true;
    } catch (const std::system_error&) {  // no thread to be had: read here
    }
  }
  read(0);
  for (std::size_t k = 1; k < threads; ++k)
    if (!started[k]) read(k);
  for (std::thread& t : workers) t.join();
  return finish(name, opt, parts, warnings);
}

// Line numbers are kept in 32 bits (IdRef): longer texts are read on one thread.
constexpr std::size_t kMaxPartedText = std::size_t{1} << 32;

}  // namespace

unsigned reading_threads(const TraceOptions& options) {
  return options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

Workload read_acme_trace(const std::string& path, const TraceOptions& options, std::vector<std::string>* warnings) {
  if (const unsigned threads = reading_threads(options); threads > 1) {
    const csv_lines::MappedFile file(path.c_str());
    if (file.mapped() && file.text().size() < kMaxPartedText)
      return read_in_parts(file.text(), path, options, threads, true, warnings);
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw_input_error(path, 0, "", "cannot open the trace file");
  LineReader lines(f.get(), path);
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  return read_on_one_thread(lines, path, options, warnings, ec ? 0 : bytes);
}

Workload read_acme_trace_text(std::string_view text, std::string_view name, const TraceOptions& options) {
  if (const unsigned threads = reading_threads(options); threads > 1 && text.size() < kMaxPartedText)
    return read_in_parts(text, name, options, threads, false, nullptr);
  std::string copy(text);  // fmemopen needs a mutable buffer
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      copy.empty() ? std::tmpfile() : fmemopen(copy.data(), copy.size(), "rb"), &std::fclose);
  if (!f) throw_input_error(name, 0, "", "cannot read the text");
  LineReader lines(f.get(), name);
  return read_on_one_thread(lines, name, options, nullptr);
}

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
  if (options.lenient) return nullptr;
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
  // Chunks of 2 MiB (about 17,000 rows), the first of 256 KiB so that the replay starts soon.
  s->cut.push_back(0);
  for (std::size_t chunk = std::size_t{1} << 18; s->cut.back() < s->body_size; chunk = std::size_t{1} << 21)
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
