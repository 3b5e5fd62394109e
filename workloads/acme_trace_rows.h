// The AcmeTrace reader's rows, for its two readers (workloads/acme_trace_reader.cpp, a file or
// text at once; workloads/acme_trace_feed.cpp, a file as a run goes): the schema's columns and
// cells, the header, a Part (the rows of one part of a file, read on one thread) and how parts
// are joined. Internal to workloads/; the interface is workloads/acme_trace_reader.h.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "sim/error.h"
#include "sim/log.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/csv_lines.h"
#include "workloads/sacct_columns.h"
#include "workloads/trace_ids.h"

namespace acme::acme_trace_rows {

using csv_lines::LineReader;
using csv_lines::shown;
using csv_lines::split;
using csv_lines::SplitError;
using trace_ids::IdIndex;
using trace_ids::IdRef;

enum Col : std::size_t { kJobId, kUser, kNodeNum, kGpuNum, kCpuNum, kType, kState, kSubmit, kStart, kEnd, kCols };
inline constexpr std::array<std::string_view, kCols> kColNames = {
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time", "start_time", "end_time"};

// The latest Unix time a timestamp cell may give in seconds: 9999-12-31 23:59:59 UTC, as the
// dates parse_timestamp reads.
inline constexpr std::int64_t kMaxUnixSeconds = 253'402'300'799;

// A row problem: the column and the message. Thrown inside the reader only.
struct RowError {
  std::string_view column;
  std::string message;
};

// parse_count's forms other than 1 to 6 digits: "12.0", longer numbers, and the errors.
[[gnu::noinline]] inline std::int32_t parse_count_slow(std::string_view s, std::string_view column) {
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

// A count cell (GPUs, nodes, cores): 0 to 1,000,000, written whole (or "12.0"); else RowError.
// Inlined whatever the unity batch around it (a row reads three).
[[gnu::always_inline]] inline std::int32_t parse_count(std::string_view s, std::string_view column) {
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
  return parse_count_slow(s, column);
}

// A timestamp cell in a form other than a date and time: empty or sacct's "Unknown" or "None" (a
// time not come: none, or the error if `required`), or Unix seconds (digits, perhaps with a
// fraction, which is dropped); else the error.
[[gnu::noinline]] inline std::optional<Time> parse_other_time(std::string_view s, std::string_view column,
                                                             bool required) {
  if (s.empty() || s == "Unknown" || s == "None") {
    if (required) throw RowError{column, s.empty() ? std::string("empty") : "missing (" + shown(s) + ")"};
    return std::nullopt;
  }
  const std::string_view whole = s.substr(0, s.find('.'));
  std::int64_t seconds = 0;
  const auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), seconds);
  const bool fraction_digits = whole.size() == s.size() ||
                               s.find_first_not_of("0123456789", whole.size() + 1) == std::string_view::npos;
  if (ec == std::errc() && p == whole.data() + whole.size() && !whole.empty() && whole[0] != '-' && fraction_digits &&
      seconds <= kMaxUnixSeconds)
    return Time::seconds(seconds);
  throw RowError{column, "expected a timestamp like 2023-03-01 00:18:22+08:00 (or Unix seconds), got " + shown(s)};
}

// A timestamp cell: a date and time with its UTC offset, or without one (read at `naive_offset_s`;
// then `naive` is set), or one of parse_other_time's forms.
inline std::optional<Time> parse_time(std::string_view s, std::string_view column, bool required, int naive_offset_s,
                                      bool& naive) {
  if (auto t = parse_timestamp(s)) return t;  // AcmeTrace's form, first: a trace's timestamps are alike
  bool this_naive = false;
  if (auto t = parse_timestamp(s, naive_offset_s, this_naive)) {
    naive = naive || this_naive;
    return t;
  }
  return parse_other_time(s, column, required);
}

// Slurm's end states that AcmeTrace does not use, and the AcmeTrace state each is read as (sacct's
// "CANCELLED by <uid>" is read as CANCELLED too): a trace exported from another Slurm cluster
// carries them.
inline constexpr std::array<std::pair<std::string_view, JobState>, 6> kSlurmStates{{
    {"OUT_OF_MEMORY", JobState::Failed},
    {"BOOT_FAIL", JobState::NodeFail},
    {"DEADLINE", JobState::Timeout},
    {"REVOKED", JobState::Cancelled},
    {"SUSPENDED", JobState::Preempted},  // stopped to give its resources to others (once in Helios's Uranus)
    {"PENDING", JobState::Running},      // not started when the trace ends (sacct): waits until the horizon
}};
inline constexpr std::string_view kCancelledBy = "CANCELLED by ";

// A row's state: AcmeTrace's (a JobState's name, REJECTED aside, in any case), or one of Slurm's
// read as one of AcmeTrace's (then `slurm` is set). Throws RowError for any other.
inline JobState parse_trace_state(std::string_view s, std::string_view column, bool& slurm) {
  slurm = false;
  if (const auto state = parse_job_state(s, true); state && *state != JobState::Rejected) return *state;
  slurm = true;
  if (s.starts_with(kCancelledBy)) return JobState::Cancelled;
  for (const auto& [name, state] : kSlurmStates)
    if (s == name) return state;
  throw RowError{column, "unknown job state " + shown(s) +
                             " (AcmeTrace's: COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, RUNNING; "
                             "Slurm's OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, REVOKED, SUSPENDED, PENDING, CANCELLED by <uid>)"};
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

inline constexpr std::string_view kLongLine = "line longer than 1 MiB (is this an AcmeTrace CSV file?)";
using csv_lines::kShownSkipped;

// The header's columns, read once; the parts of a file share it, read-only.
struct Header {
  std::vector<std::string> names;
  std::array<std::size_t, kCols> index{};  // SIZE_MAX for the `type` column of an untyped trace
  std::size_t min_fields = 0;
  char delimiter = ',';  // '|' for sacct's export
  bool sacct = false;    // sacct's fields (workloads/sacct_columns.h): gpu_num from a TRES list, steps skipped
  std::size_t requested = SIZE_MAX;  // sacct's ReqTRES, if exported: the GPUs of a job never started
  std::size_t time_limit = SIZE_MAX;  // sacct's Timelimit, if exported: each job's (Workload::time_limits)
  bool typed() const { return index[kType] != SIZE_MAX; }
  // The name of each column for messages: AcmeTrace's, or the sacct field that holds it.
  std::array<std::string_view, kCols> shown_names = kColNames;
  std::string_view name_of(Col c) const { return shown_names[c]; }
};

inline Header read_header(std::string_view line, std::string_view name) {
  if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // UTF-8 byte-order mark
  if (line.starts_with("\x1f\x8b")) throw_input_error(name, 1, "header", "gzip-compressed: decompress it first (gunzip)");
  if (line.starts_with("PK\x03\x04")) throw_input_error(name, 1, "header", "a zip archive: extract the CSV first (unzip)");
  if (line.find('\0') != std::string_view::npos)
    throw_input_error(name, 1, "header", "binary data (a NUL byte): not a CSV text file");
  Header h;
  // sacct --parsable2: its header's fields are split at '|', and it has no comma.
  if (line.find(',') == std::string_view::npos && line.find('|') != std::string_view::npos) h.delimiter = '|';
  std::vector<std::string_view> fields;
  std::string scratch;
  try {
    split(line, fields, scratch, h.delimiter);
  } catch (const SplitError& e) {
    throw_input_error(name, 1, "header", e.message);
  }
  h.names.assign(fields.begin(), fields.end());
  h.index.fill(SIZE_MAX);
  // Column c in the field named `want` (sacct's: without regard to case), if the header has it.
  const auto find = [&](Header& in, std::size_t c, std::string_view want, bool sacct) {
    if (want.empty() || in.index[c] != SIZE_MAX) return;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (!(sacct ? sacct_columns::same_name(fields[i], want) : fields[i] == want)) continue;
      if (in.index[c] != SIZE_MAX) throw_input_error(name, 1, "header", "column '" + std::string(fields[i]) + "' appears twice");
      in.index[c] = i;
      in.shown_names[c] = want;  // a literal
    }
  };
  for (std::size_t c = 0; c < kCols; ++c) find(h, c, kColNames[c], false);
  // Without AcmeTrace's job_id, the header may be sacct's, whose job id is JobID.
  if (h.index[kJobId] == SIZE_MAX) {
    Header sacct = h;
    sacct.index.fill(SIZE_MAX);
    for (std::size_t c = 0; c < kCols; ++c)
      for (const std::string_view field : sacct_columns::kFields[c]) find(sacct, c, field, true);
    if (sacct.index[kJobId] != SIZE_MAX) {
      h = std::move(sacct);
      h.sacct = true;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (sacct_columns::same_name(fields[i], sacct_columns::kRequested)) h.requested = i;
        if (sacct_columns::same_name(fields[i], sacct_columns::kTimelimit)) h.time_limit = i;
      }
      for (const std::size_t i : {h.requested, h.time_limit})
        if (i != SIZE_MAX) h.min_fields = std::max(h.min_fields, i + 1);
    }
  }
  for (std::size_t c = 0; c < kCols; ++c) {
    if (c == kType && h.index[c] == SIZE_MAX) continue;  // an untyped trace (untyped_job_type)
    if (h.index[c] == SIZE_MAX && h.sacct)
      throw_input_error(name, 1, "header", "missing sacct field " + std::string(sacct_columns::kFields[c][0]) + " (" +
                                               std::string(sacct_columns::kExport) + " exports a trace)");
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
  Oddity uneven, unordered, slurm_states, naive_times, steps;
  Time latest, last_submit;

 private:
  std::string_view field(Col c) const { return fields_[header->index[c]]; }
  std::string_view col(Col c) const { return header->name_of(c); }
  // The header's name of the i-th field of a row.
  std::string_view column_name(std::size_t i) const {
    return i < header->names.size() ? std::string_view(header->names[i])
                                    : std::string_view("(past the header's columns)");
  }

  // The row's fields into fields_, every column there.
  [[gnu::always_inline]] void split_row(std::string_view line) {
    try {
      split(line, fields_, scratch_, header->delimiter);
    } catch (const SplitError& e) {
      throw RowError{column_name(e.field), e.message};
    }
    if (line.find('\0') != std::string_view::npos)
      for (std::size_t i = 0; i < fields_.size(); ++i)
        if (fields_[i].find('\0') != std::string_view::npos)
          throw RowError{column_name(i), "binary data (a NUL byte): not a CSV text file"};
    if (fields_.size() < header->min_fields) {
      std::size_t missing = std::min(header->requested, header->time_limit);  // the first column past the line's end
      for (std::size_t c = 0; c < kCols; ++c)
        if (header->index[c] != SIZE_MAX && header->index[c] >= fields_.size()) missing = std::min(missing, header->index[c]);
      throw RowError{header->names[missing], "missing: the line has " + std::to_string(fields_.size()) +
                                                 " fields, the header " + std::to_string(header->names.size()) +
                                                 " (truncated line?)"};
    }
  }

  // The job's type and size: its GPUs (of a TRES list for sacct's), cores and nodes.
  [[gnu::always_inline]] void read_size(JobRequest& r) const {
    if (header->typed()) {
      const auto type = parse_job_type(field(kType), true);
      if (!type) throw RowError{col(kType), "unknown job type " + shown(field(kType))};
      r.type = *type;
    }
    if (header->sacct) {
      const bool allocated = !field(kGpuNum).empty() || header->requested == SIZE_MAX;
      const std::string_view tres = allocated ? field(kGpuNum) : fields_[header->requested];
      const std::string_view column = allocated ? col(kGpuNum) : std::string_view(header->names[header->requested]);
      r.gpu_num = sacct_columns::gpus_of_tres(tres, [&](std::string_view n) { return parse_count(n, column); });
    } else {
      r.gpu_num = field(kGpuNum).empty() && r.type == JobType::CPU ? 0 : parse_count(field(kGpuNum), col(kGpuNum));
    }
    if (!header->typed()) r.type = untyped_job_type(r.gpu_num);
    r.cpu_num = parse_count(field(kCpuNum), col(kCpuNum));
    r.node_num = field(kNodeNum).empty() ? 0 : parse_count(field(kNodeNum), col(kNodeNum));
    if (r.node_num == 0) r.node_num = r.gpu_num > 0 ? (r.gpu_num + 7) / 8 : 1;
  }

  void read_row(std::string_view line, std::size_t number) {
    split_row(line);
    bool naive = false;  // a timestamp without its UTC offset
    const int naive_offset = opt.utc_offset_s.value_or(0);
    if (header->sacct && sacct_columns::is_step(field(kJobId))) {
      steps.saw(number);  // a part of the job of its allocation's row
      return;
    }
    const Time submit = *parse_time(field(kSubmit), col(kSubmit), true, naive_offset, naive);
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
    bool slurm = false;
    p.final_state = parse_trace_state(field(kState), col(kState), slurm);
    read_size(r);
    if (id.empty()) throw RowError{col(kJobId), "empty"};

    const std::optional<Time> start = parse_time(field(kStart), col(kStart), false, naive_offset, naive);
    const std::optional<Time> end =
        parse_time(field(kEnd), col(kEnd), p.final_state != JobState::Running, naive_offset, naive);
    if (start && *start < submit) throw RowError{col(kStart), "before " + std::string(col(kSubmit))};
    if (end && start && *end < *start) throw RowError{col(kEnd), "before " + std::string(col(kStart))};
    if (end && *end < submit) throw RowError{col(kEnd), "before " + std::string(col(kSubmit))};
    if (end) latest = std::max(latest, *end);
    latest = std::max(latest, start.value_or(submit));
    if (r.gpu_num % r.node_num != 0) uneven.saw(number);
    if (slurm) slurm_states.saw(number);
    if (naive && !opt.utc_offset_s) naive_times.saw(number);
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
    std::int64_t limit = 0;
    if (header->time_limit != SIZE_MAX) {
      const std::string_view text = fields_[header->time_limit];
      const std::optional<std::int64_t> seconds = sacct_columns::timelimit_seconds(text);
      if (!seconds)
        throw RowError{header->names[header->time_limit],
                       "expected [days-]hours:minutes:seconds, UNLIMITED or Partition_Limit, got " + shown(text)};
      limit = *seconds;
    }
    try {
      r.user = w.users.intern(field(kUser));
    } catch (const std::length_error& e) {
      throw RowError{col(kUser), e.what()};
    }
    const JobId job = w.add(id, hash, r, p);  // the id's hash is its key
    if (limit > 0) w.set_time_limit(job, Time::seconds(limit));
    ids.add(hash, number);
  }

  std::vector<std::string_view> fields_;
  std::string scratch_;
};

// Appends to `w` (the jobs of the parts before `later`, joined; `all` holds their ids and counts)
// the part `later`, whose lines are numbered from `line_base` + 1: jobs, users (interned in
// order), ids and every count, as one reader of both gives them.
void join(Part& all, Workload& w, Part& later, std::size_t line_base);

// The RUNNING jobs `open` of `w`, without an end, run (or wait) until the horizon.
void finish_open_jobs(Workload& w, const std::vector<JobId>& open, Time horizon);

// The warnings about the whole file, once every part is joined into `w`.
void warn_of_whole(std::string_view name, const Part& all, const Workload& w, std::vector<std::string>* warnings);

// Line numbers are kept in 32 bits (IdRef): longer texts are read on one thread.
inline constexpr std::size_t kMaxPartedText = std::size_t{1} << 32;

}  // namespace acme::acme_trace_rows
