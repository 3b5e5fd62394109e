#include "workloads/acme_trace_reader.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/error.h"
#include "sim/log.h"
#include "workloads/csv_lines.h"

namespace acme {
namespace {

using csv_lines::LineReader;
using csv_lines::shown;
using csv_lines::split;
using csv_lines::SplitError;

enum Col : std::size_t { kJobId, kUser, kNodeNum, kGpuNum, kCpuNum, kType, kState, kSubmit, kStart, kEnd, kCols };
constexpr std::array<std::string_view, kCols> kColNames = {
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time", "start_time", "end_time"};

// A row problem: the column and the message. Thrown inside the reader only.
struct RowError {
  std::string_view column;
  std::string message;
};

std::int32_t parse_count(std::string_view s, std::string_view column) {
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

// A selected row's job id, for finding ids used twice: its 64-bit hash, job and line (lines past
// 2^32, in a file of 400 GB, are kept as 4294967295).
struct IdRef {
  std::uint64_t hash;
  JobId job;
  std::uint32_t line;
};

// The job ids of the selected rows, to find ids used twice, cheaply on millions of rows. Rows are
// appended in order (16 bytes each, no allocation per row), and each id's hash sets a bit of a
// filter of 16 to 32 bits a row (at most 4 MiB for a million rows); a row whose bit was set already
// is a suspect. At the end, only the rows that share a suspect's hash are sorted and their ids
// compared. (A hash table as large as the ids would miss the caches on nearly every row.)
class IdIndex {
 public:
  // Loads the filter word of `hash` into the cache ahead of add().
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&bits_[(hash & mask_) / 64]); }

  void add(std::uint64_t hash, JobId job, std::size_t line) {
    rows_.push_back({hash, job, static_cast<std::uint32_t>(std::min<std::size_t>(line, UINT32_MAX))});
    if (rows_.size() * 16 <= mask_) return mark(hash);
    bits_.assign(bits_.size() * 2, 0);  // grown: every row again
    mask_ = bits_.size() * 64 - 1;
    suspects_.clear();
    for (const IdRef& r : rows_) mark(r.hash);
  }

  // Each row whose id an earlier row has, with the first row of that id, by the later row's line.
  std::vector<std::pair<IdRef, IdRef>> duplicates(const StringTable& names) const {
    std::vector<std::uint64_t> suspects = suspects_;
    std::sort(suspects.begin(), suspects.end());
    // The suspects' hashes in a filter of their own (other bits of the hash), so that most rows
    // are passed over without a binary search.
    std::vector<std::uint64_t> filter(std::bit_ceil(suspects.size() / 4 + 1));
    const std::uint64_t mask = filter.size() * 64 - 1;
    auto bit = [&](std::uint64_t hash) {
      return std::pair{((hash >> 32) & mask) / 64, std::uint64_t{1} << (hash >> 32) % 64};
    };
    for (std::uint64_t h : suspects) filter[bit(h).first] |= bit(h).second;
    std::vector<IdRef> same;  // rows with a suspect's hash, by hash, then in file order
    for (const IdRef& r : rows_)
      if ((filter[bit(r.hash).first] & bit(r.hash).second) &&
          std::binary_search(suspects.begin(), suspects.end(), r.hash))
        same.push_back(r);
    std::stable_sort(same.begin(), same.end(), [](const IdRef& a, const IdRef& b) { return a.hash < b.hash; });
    std::vector<std::pair<IdRef, IdRef>> out;
    for (std::size_t first = 0, i = 1; i < same.size(); ++i) {
      if (same[i].hash != same[first].hash) first = i;
      for (std::size_t k = first; k < i; ++k)
        if (names[same[k].job] == names[same[i].job]) {
          out.emplace_back(same[i], same[k]);
          break;
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first.line < b.first.line; });
    return out;
  }

 private:
  void mark(std::uint64_t hash) {
    std::uint64_t& word = bits_[(hash & mask_) / 64];
    const std::uint64_t bit = std::uint64_t{1} << hash % 64;
    if (word & bit) suspects_.push_back(hash);
    word |= bit;
  }
  std::vector<IdRef> rows_;
  std::vector<std::uint64_t> bits_ = std::vector<std::uint64_t>(64);
  std::uint64_t mask_ = 64 * 64 - 1;     // bits_ holds mask_ + 1 bits, a power of two
  std::vector<std::uint64_t> suspects_;  // hashes whose bit another row had set
};

// A count of rows with something worth a warning, and the first line it was seen on.
struct Oddity {
  std::uint64_t rows = 0;
  std::size_t first_line = 0;
  void saw(std::size_t line) {
    if (rows++ == 0) first_line = line;
  }
};

class TraceParser {
 public:
  TraceParser(std::string_view name, const TraceOptions& opt, std::vector<std::string>* warnings)
      : name_(name), opt_(opt), warnings_(warnings) {
    w_.source = "AcmeTrace " + std::string(name);
    w_.window_from = opt.from;
    w_.window_to = opt.to;
  }

  // `file_bytes`, if known, sizes the workload up front when every row is read (no window).
  Workload parse(LineReader& lines, std::uintmax_t file_bytes = 0) {
    // AcmeTrace rows take 100 to 130 bytes: 80 a row over-reserves, which costs address space only.
    if (file_bytes > 0 && !opt_.from && !opt_.to) w_.reserve(file_bytes / 80, file_bytes / 10);
    std::string_view line;
    if (!lines.next(line)) throw_input_error(name_, 1, "header", "empty file: expected an AcmeTrace header");
    read_header(line);
    std::uint64_t rows = 0;
    while (lines.next(line)) {
      if (line.empty()) continue;
      ++rows;
      try {
        read_row(line, lines.number());
      } catch (const RowError& e) {
        if (!opt_.lenient) throw_input_error(name_, lines.number(), e.column, e.message);
        if (++w_.rows_skipped <= 5)
          warn(":{}: {}: {} (row skipped: workload.lenient is on)", lines.number(), e.column, e.message);
      }
    }
    if (rows == 0) throw_input_error(name_, 1, "header", "no job rows after the header");
    finish_open_jobs();
    drop_duplicates();
    if (w_.rows_skipped > 5) warn(": {} malformed rows skipped in all", w_.rows_skipped);
    if (w_.size() == 0 && w_.rows_skipped == 0)
      warn(": none of its {} rows is submitted within the window: the run has no jobs", rows);
    if (uneven_.rows > 0)
      warn(": {} jobs have a gpu_num that node_num does not divide (first on line {}): their GPUs are "
           "spread as evenly as possible, the first nodes one more",
           uneven_.rows, uneven_.first_line);
    if (unordered_.rows > 0)
      warn(": {} rows are submitted before a row above them (first on line {}): jobs are released in "
           "submit-time order all the same",
           unordered_.rows, unordered_.first_line);
    return std::move(w_);
  }

 private:
  // Logs "<name><text>" and keeps the text for the caller.
  template <class... A>
  void warn(fmt::format_string<A...> f, A&&... a) {
    std::string text = fmt::format(f, std::forward<A>(a)...);
    log::warn("{}{}", name_, text);
    if (warnings_) warnings_->push_back(std::move(text));
  }

  void read_header(std::string_view line) {
    if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // UTF-8 byte-order mark
    if (line.find('\0') != std::string_view::npos)
      throw_input_error(name_, 1, "header", "binary data (a NUL byte): not a CSV text file");
    try {
      split(line, fields_, scratch_);
    } catch (const SplitError& e) {
      throw_input_error(name_, 1, "header", e.message);
    }
    header_.assign(fields_.begin(), fields_.end());
    index_.fill(SIZE_MAX);
    for (std::size_t i = 0; i < fields_.size(); ++i)
      for (std::size_t c = 0; c < kCols; ++c) {
        if (fields_[i] != kColNames[c]) continue;
        if (index_[c] != SIZE_MAX)
          throw_input_error(name_, 1, "header", "column '" + std::string(kColNames[c]) + "' appears twice");
        index_[c] = i;
      }
    for (std::size_t c = 0; c < kCols; ++c) {
      if (index_[c] == SIZE_MAX)
        throw_input_error(name_, 1, "header", "missing required column '" + std::string(kColNames[c]) +
                                                  "' (is this an AcmeTrace file?)");
      min_fields_ = std::max(min_fields_, index_[c] + 1);
    }
  }

  std::string_view field(Col c) const { return fields_[index_[c]]; }
  // The header's name of the i-th field of a row.
  std::string_view column_name(std::size_t i) const {
    return i < header_.size() ? std::string_view(header_[i]) : std::string_view("(past the header's columns)");
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
    if (fields_.size() < min_fields_) {
      std::size_t missing = kCols;  // the first required column past the line's end
      for (std::size_t c = 0; c < kCols; ++c)
        if (index_[c] >= fields_.size() && (missing == kCols || index_[c] < index_[missing])) missing = c;
      throw RowError{kColNames[missing], "missing: the line has " + std::to_string(fields_.size()) +
                                             " fields, the header " + std::to_string(header_.size()) +
                                             " (truncated line?)"};
    }
    const Time submit = *parse_time(field(kSubmit), kColNames[kSubmit], true);
    if ((opt_.from && submit < *opt_.from) || (opt_.to && submit >= *opt_.to)) {
      ++w_.rows_outside_window;
      return;
    }
    const std::string_view id = field(kJobId);
    const std::uint64_t hash = std::hash<std::string_view>{}(id);
    ids_.prefetch(hash);  // its filter word loads while the rest of the row is parsed

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
    if (end) latest_ = std::max(latest_, *end);
    latest_ = std::max(latest_, start.value_or(submit));
    if (r.gpu_num % r.node_num != 0) uneven_.saw(number);
    if (w_.size() > 0 && submit < last_submit_) unordered_.saw(number);
    last_submit_ = std::max(last_submit_, submit);

    if (!start || (p.final_state == JobState::Cancelled && end && *start == *end)) {
      p.cancel_pending_at = end;  // none for RUNNING rows without start: set at the horizon
      if (!end) open_.push_back(static_cast<JobId>(w_.size()));
    } else {
      p.recorded_start = start;
      if (end) p.run = *end - *start;
      else open_.push_back(static_cast<JobId>(w_.size()));
    }
    r.user = w_.users.intern(field(kUser));
    ids_.add(hash, w_.add(id, r, p), number);
  }

  // A row whose job id an earlier selected row has is an error naming both lines (the first such
  // row in the file), or, lenient, skipped and counted like any malformed row.
  void drop_duplicates() {
    const std::vector<std::pair<IdRef, IdRef>> dups = ids_.duplicates(w_.names);
    if (dups.empty()) return;
    auto message = [&](const std::pair<IdRef, IdRef>& d) {
      return "duplicate job id " + shown(w_.names[d.first.job]) + ", also on line " + std::to_string(d.second.line);
    };
    if (!opt_.lenient) throw_input_error(name_, dups.front().first.line, kColNames[kJobId], message(dups.front()));
    for (std::size_t i = 0; i < dups.size() && w_.rows_skipped + i < 5; ++i)
      warn(":{}: {}: {} (row skipped: workload.lenient is on)", dups[i].first.line, kColNames[kJobId],
           message(dups[i]));
    w_.rows_skipped += dups.size();
    std::vector<bool> drop(w_.size());
    for (const auto& d : dups) drop[d.first.job] = true;
    Workload kept;
    kept.source = w_.source;
    kept.rows_skipped = w_.rows_skipped;
    kept.rows_outside_window = w_.rows_outside_window;
    kept.window_from = w_.window_from;
    kept.window_to = w_.window_to;
    for (JobId j = 0; j < w_.size(); ++j) {
      if (drop[j]) continue;
      JobRequest r = w_.requests[j];
      r.user = kept.users.intern(w_.users[r.user]);
      kept.add(w_.names[j], r, w_.profiles[j]);
    }
    w_ = std::move(kept);
  }

  // RUNNING jobs without an end run (or wait) until the horizon.
  void finish_open_jobs() {
    const Time horizon = opt_.to.value_or(latest_);
    for (JobId j : open_) {
      JobProfile& p = w_.profiles[j];
      if (p.recorded_start) p.run = std::max(horizon, *p.recorded_start) - *p.recorded_start;
      else p.cancel_pending_at = std::max(horizon, w_.requests[j].submit);
    }
  }

  std::string name_;
  TraceOptions opt_;
  std::vector<std::string>* warnings_;
  Workload w_;
  std::vector<std::string> header_;
  std::array<std::size_t, kCols> index_{};
  std::size_t min_fields_ = 0;
  std::vector<std::string_view> fields_;
  std::string scratch_;
  std::vector<JobId> open_;
  IdIndex ids_;
  Oddity uneven_, unordered_;
  Time latest_, last_submit_;
};

}  // namespace

Workload read_acme_trace(const std::string& path, const TraceOptions& options, std::vector<std::string>* warnings) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw_input_error(path, 0, "", "cannot open the trace file");
  LineReader lines(f.get(), path);
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  return TraceParser(path, options, warnings).parse(lines, ec ? 0 : bytes);
}

Workload read_acme_trace_text(std::string_view text, std::string_view name, const TraceOptions& options) {
  std::string copy(text);  // fmemopen needs a mutable buffer
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      copy.empty() ? std::tmpfile() : fmemopen(copy.data(), copy.size(), "rb"), &std::fclose);
  if (!f) throw_input_error(name, 0, "", "cannot read the text");
  LineReader lines(f.get(), name);
  return TraceParser(name, options, nullptr).parse(lines);
}

}  // namespace acme
