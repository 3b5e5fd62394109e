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
#include "io/philly_trace.h"
#include "sim/error.h"
#include "sim/log.h"
#include "sim/prefault.h"
#include "workloads/csv_lines.h"
#include "workloads/openb_trace.h"
#include "workloads/swf_trace.h"
#include "workloads/pai_trace.h"
#include "workloads/table_cells.h"
#include "workloads/trace_ids.h"
#include "workloads/acme_trace_rows.h"

namespace acme {
namespace acme_trace_rows {

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
  if (!w.time_limits.empty() || !later.w.time_limits.empty()) {  // kept once a part records one
    if (w.time_limits.empty()) w.time_limits.assign(job_base, 0);
    if (later.w.time_limits.empty()) w.time_limits.resize(w.size(), 0);
    else w.time_limits.insert(w.time_limits.end(), later.w.time_limits.begin(), later.w.time_limits.end());
  }
  for (JobId j : later.open) all.open.push_back(job_base + j);
  all.ids.append(later.ids, line_base);
  all.rows += later.rows;
  w.rows_skipped += later.w.rows_skipped;
  w.rows_outside_window += later.w.rows_outside_window;
  all.uneven.add(later.uneven, line_base);
  all.slurm_states.add(later.slurm_states, line_base);
  all.naive_times.add(later.naive_times, line_base);
  all.steps.add(later.steps, line_base);
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

// The warnings about the whole file, once every part is joined into `w`.
void warn_of_whole(std::string_view name, const Part& all, const Workload& w, std::vector<std::string>* warnings) {
  if (w.rows_skipped > kShownSkipped) log::warn_kept(name, warnings, ": {} malformed rows skipped in all", w.rows_skipped);
  if (w.size() == 0 && w.rows_skipped == 0)
    log::warn_kept(name, warnings, ": none of its {} rows is submitted within the window: the run has no jobs", all.rows);
  if (all.uneven.rows > 0)
    log::warn_kept(name, warnings,
                   ": {} jobs have a gpu_num that node_num does not divide (first on line {}): their GPUs are "
                   "spread as evenly as possible, the first nodes one more",
                   all.uneven.rows, all.uneven.first_line);
  if (all.slurm_states.rows > 0)
    log::warn_kept(name, warnings,
                   ": {} rows end in a Slurm state AcmeTrace does not use (first on line {}): OUT_OF_MEMORY read as "
                   "FAILED, BOOT_FAIL as NODE_FAIL, DEADLINE as TIMEOUT, REVOKED and CANCELLED by <uid> as CANCELLED, "
                   "SUSPENDED as PREEMPTED, PENDING as RUNNING (a job not started when the trace ends)",
                   all.slurm_states.rows, all.slurm_states.first_line);
  if (all.steps.rows > 0)
    log::warn_kept(name, warnings,
                   ": {} rows are job steps (an id with a '.', first on line {}): skipped, a job is its allocation's row "
                   "(sacct -X exports only those)",
                   all.steps.rows, all.steps.first_line);
  if (!all.header->typed())
    log::warn_kept(name, warnings, ": no type column: jobs with GPUs read as Other, the others as CPU");
  if (all.naive_times.rows > 0)
    log::warn_kept(name, warnings,
                   ": {} rows have timestamps without a UTC offset (first on line {}): read as UTC; "
                   "workload.trace_utc_offset says the trace's offset (for example +08:00)",
                   all.naive_times.rows, all.naive_times.first_line);
  if (all.unordered.rows > 0)
    log::warn_kept(name, warnings,
                   ": {} rows are submitted before a row above them (first on line {}): jobs are released in "
                   "submit-time order all the same",
                   all.unordered.rows, all.unordered.first_line);
}

}  // namespace acme_trace_rows

using namespace acme_trace_rows;

namespace {

// The first part that stopped reading throws its problem (lines of parts[k] numbered from
// `line_base[k]` + 1), after the rows skipped before it are reported as one reader reports them.
void report_skipped_and_stops(std::string_view name, const std::vector<Part>& parts,
                              const std::vector<std::size_t>& line_base, std::vector<std::string>* warnings) {
  std::uint64_t shown_rows = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Part& p = parts[k];
    for (const Problem& s : p.skipped)
      if (shown_rows++ < kShownSkipped)
        log::warn_kept(name, warnings, ":{}: {}: {} (row skipped: workload.lenient is on)", line_base[k] + s.line,
                       s.column, s.message);
    if (p.failed) std::rethrow_exception(p.failed);
    if (p.stop) throw_input_error(name, line_base[k] + p.stop->line, p.stop->column, p.stop->message);
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
    log::warn_kept(name, warnings, ":{}: {}: {} (row skipped: workload.lenient is on)", dups[i].first.line,
                   kColNames[kJobId], message(dups[i]));
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
    const JobId k = kept.add(w.names[j], r, w.profiles[j]);
    if (w.time_limit(j) > Time{}) kept.set_time_limit(k, w.time_limit(j));
  }
  w = std::move(kept);
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

// Reads a whole file from one reader (a file's LineReader, or TextLines over text in memory), on
// this thread. `file_bytes`, if known, sizes the workload up front when every row is read (no window).
template <class Lines>
Workload read_on_one_thread(Lines& lines, std::string_view name, const TraceOptions& opt,
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

}  // namespace

unsigned reading_threads(const TraceOptions& options) {
  return options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// An AcmeTrace-schema CSV (Helios's and sacct's too): compressed text read whole, else on
// reading_threads() threads or streamed on one.
Workload read_acme_csv(const std::string& path, const TraceOptions& options, std::vector<std::string>* warnings) {
  if (gzip_text::is_gzip(path)) return read_acme_trace_text(gzip_text::read_all(path), path, options, warnings);
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

// A trace format: whether a file is in it, told from the file's first bytes of text (`head`,
// through its first line) and that line; what a workload read from it names as its source; and
// its reader.
struct FormatEntry {
  TraceFormat format;
  std::string_view source_name;
  bool (*is)(std::string_view head, std::string_view first_line, const std::string& path);
  Workload (*read)(const std::string& path, const TraceOptions&, std::vector<std::string>* warnings);
};

// Tried in this order; AcmeTrace's, the last, takes every other file (its reader says what is wrong).
constexpr std::array<FormatEntry, 5> kFormats{{
    {TraceFormat::Philly, "Philly ", [](std::string_view head, std::string_view, const std::string&) { return is_json_text(head); },
     [](const std::string& path, const TraceOptions& o, std::vector<std::string>* warnings) {
       return read_philly_trace(path, {o.from, o.to, o.utc_offset_s}, warnings);
     }},
    {TraceFormat::Pai, "PAI ",
     [](std::string_view, std::string_view line, const std::string& path) { return is_pai_table(line, path); },
     [](const std::string& path, const TraceOptions& o, std::vector<std::string>* warnings) {
       return read_pai_trace(path, {o.from, o.to}, warnings);
     }},
    {TraceFormat::PodList, "openb ",
     [](std::string_view, std::string_view line, const std::string&) { return is_openb_pod_list(line); },
     [](const std::string& path, const TraceOptions& o, std::vector<std::string>* warnings) {
       return read_openb_pod_list(path, {o.from, o.to}, warnings);
     }},
    {TraceFormat::Swf, "SWF ", [](std::string_view, std::string_view line, const std::string&) { return is_swf_log(line); },
     [](const std::string& path, const TraceOptions& o, std::vector<std::string>* warnings) {
       return read_swf_trace(path, {o.from, o.to, o.lenient, o.feedback}, warnings);
     }},
    {TraceFormat::AcmeTrace, "AcmeTrace ", [](std::string_view, std::string_view, const std::string&) { return true; },
     read_acme_csv},
}};

const FormatEntry& format_of(const std::string& path) {
  const std::string head = gzip_text::head_through_line(path, 64, csv_lines::kMaxLine);
  const std::string_view line = table_cells::first_line_of(head);
  for (const FormatEntry& f : kFormats)
    if (f.is(head, line, path)) return f;
  return kFormats.back();
}

}  // namespace

TraceFormat trace_format(const std::string& path) { return format_of(path).format; }

std::string trace_source(const std::string& path) { return std::string(format_of(path).source_name) + path; }

bool is_trace_source(std::string_view source) {
  return std::any_of(kFormats.begin(), kFormats.end(), [&](const FormatEntry& f) { return source.starts_with(f.source_name); });
}

Workload read_acme_trace(const std::string& path, const TraceOptions& options, std::vector<std::string>* warnings) {
  return format_of(path).read(path, options, warnings);
}

Workload read_acme_trace_text(std::string_view text, std::string_view name, const TraceOptions& options,
                               std::vector<std::string>* warnings) {
  if (const unsigned threads = reading_threads(options); threads > 1 && text.size() < kMaxPartedText)
    return read_in_parts(text, name, options, threads, false, warnings);
  csv_lines::TextLines lines(text);
  return read_on_one_thread(lines, name, options, warnings);
}

}  // namespace acme
