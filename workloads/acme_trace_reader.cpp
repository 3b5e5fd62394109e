#include "workloads/acme_trace_reader.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "sim/error.h"
#include "sim/log.h"

namespace acme {
namespace {

// Yields the lines of a FILE* one at a time through a fixed buffer; '\r' before '\n' is dropped.
class LineReader {
 public:
  explicit LineReader(std::FILE* f) : file_(f), buf_(kChunk) {}

  bool next(std::string_view& line) {
    for (;;) {
      if (const void* nl = std::memchr(buf_.data() + begin_, '\n', end_ - begin_)) {
        const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data());
        line = std::string_view(buf_.data() + begin_, pos - begin_);
        begin_ = pos + 1;
        ++number_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      if (eof_) {
        if (begin_ == end_) return false;
        line = std::string_view(buf_.data() + begin_, end_ - begin_);  // no final newline
        begin_ = end_;
        ++number_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      refill();
    }
  }
  std::size_t number() const { return number_; }

 private:
  static constexpr std::size_t kChunk = 1 << 20;
  void refill() {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);  // a line longer than the buffer
    const std::size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_);
    end_ += got;
    if (got == 0) eof_ = true;
  }
  std::FILE* file_;
  std::vector<char> buf_;
  std::size_t begin_ = 0, end_ = 0, number_ = 0;
  bool eof_ = false;
};

enum Col : std::size_t { kJobId, kUser, kNodeNum, kGpuNum, kCpuNum, kType, kState, kSubmit, kStart, kEnd, kCols };
constexpr std::array<std::string_view, kCols> kColNames = {
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time", "start_time", "end_time"};

// A row problem: the column and the message. Thrown inside the reader only.
struct RowError {
  std::string_view column;
  std::string message;
};

// Splits a CSV line into fields. Quoted fields may hold commas and doubled quotes; those are
// unescaped into `scratch`, which must outlive the fields.
void split(std::string_view line, std::vector<std::string_view>& out, std::string& scratch) {
  out.clear();
  scratch.clear();
  scratch.reserve(line.size());
  std::size_t i = 0;
  for (;;) {
    if (i < line.size() && line[i] == '"') {
      const std::size_t begin = scratch.size();
      ++i;
      for (;;) {
        if (i >= line.size()) throw RowError{"", "a quoted field is not closed on its line"};
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            scratch.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        scratch.push_back(line[i++]);
      }
      out.emplace_back(scratch.data() + begin, scratch.size() - begin);
      if (i < line.size() && line[i] != ',') throw RowError{"", "text after a closing quote"};
    } else {
      const std::size_t comma = line.find(',', i);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      out.push_back(line.substr(i, end - i));
      i = end;
    }
    if (i >= line.size()) return;
    ++i;  // the comma
  }
}

std::int32_t parse_count(std::string_view s, std::string_view column) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // Accept "12.0": some exports print whole numbers as floats.
  if (ec == std::errc() && p != s.data() + s.size() && *p == '.') {
    ++p;
    while (p != s.data() + s.size() && *p == '0') ++p;
  }
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    throw RowError{column, "expected a whole number, got '" + std::string(s) + "'"};
  if (v < 0 || v > 1'000'000) throw RowError{column, "must be between 0 and 1000000, got " + std::string(s)};
  return static_cast<std::int32_t>(v);
}

std::optional<Time> parse_time(std::string_view s, std::string_view column, bool required) {
  if (s.empty()) {
    if (required) throw RowError{column, "empty"};
    return std::nullopt;
  }
  if (auto t = parse_timestamp(s)) return t;
  throw RowError{column, "expected a timestamp like 2023-03-01 00:18:22+08:00, got '" + std::string(s) + "'"};
}

class TraceParser {
 public:
  TraceParser(std::string_view name, const TraceOptions& opt) : name_(name), opt_(opt) {
    w_.source = "AcmeTrace " + std::string(name);
    w_.window_from = opt.from;
    w_.window_to = opt.to;
  }

  Workload parse(LineReader& lines) {
    std::string_view line;
    if (!lines.next(line)) throw_input_error(name_, 0, "", "empty file: expected an AcmeTrace header");
    read_header(line);
    while (lines.next(line)) {
      if (line.empty()) continue;
      try {
        read_row(line);
      } catch (const RowError& e) {
        if (!opt_.lenient) throw_input_error(name_, lines.number(), e.column, e.message);
        if (++w_.rows_skipped <= 5)
          log::warn("{}:{}: {}: {} (row skipped: workload.lenient is on)", name_, lines.number(), e.column,
                    e.message);
      }
    }
    if (w_.rows_skipped > 5) log::warn("{}: {} malformed rows skipped in all", name_, w_.rows_skipped);
    finish_open_jobs();
    return std::move(w_);
  }

 private:
  void read_header(std::string_view line) {
    if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // UTF-8 byte-order mark
    try {
      split(line, fields_, scratch_);
    } catch (const RowError& e) {
      throw_input_error(name_, 1, "header", e.message);
    }
    index_.fill(SIZE_MAX);
    for (std::size_t i = 0; i < fields_.size(); ++i)
      for (std::size_t c = 0; c < kCols; ++c)
        if (fields_[i] == kColNames[c]) index_[c] = i;
    for (std::size_t c = 0; c < kCols; ++c) {
      if (index_[c] == SIZE_MAX)
        throw_input_error(name_, 1, "header", "missing required column '" + std::string(kColNames[c]) +
                                                  "' (is this an AcmeTrace file?)");
      min_fields_ = std::max(min_fields_, index_[c] + 1);
    }
  }

  std::string_view field(Col c) const { return fields_[index_[c]]; }

  void read_row(std::string_view line) {
    split(line, fields_, scratch_);
    if (fields_.size() < min_fields_)
      throw RowError{"", "expected at least " + std::to_string(min_fields_) + " fields, found " +
                             std::to_string(fields_.size()) + " (truncated line?)"};
    const Time submit = *parse_time(field(kSubmit), kColNames[kSubmit], true);
    if ((opt_.from && submit < *opt_.from) || (opt_.to && submit >= *opt_.to)) return;

    JobRequest r;
    JobProfile p;
    r.submit = submit;
    const auto type = parse_job_type(field(kType));
    if (!type) throw RowError{kColNames[kType], "unknown job type '" + std::string(field(kType)) + "'"};
    r.type = *type;
    const auto state = parse_job_state(field(kState));
    if (!state || *state == JobState::Rejected)
      throw RowError{kColNames[kState], "unknown job state '" + std::string(field(kState)) + "'"};
    p.final_state = *state;
    r.gpu_num = field(kGpuNum).empty() && r.type == JobType::CPU ? 0 : parse_count(field(kGpuNum), kColNames[kGpuNum]);
    r.cpu_num = parse_count(field(kCpuNum), kColNames[kCpuNum]);
    r.node_num = field(kNodeNum).empty() ? 0 : parse_count(field(kNodeNum), kColNames[kNodeNum]);
    if (r.node_num == 0) r.node_num = r.gpu_num > 0 ? (r.gpu_num + 7) / 8 : 1;
    if (field(kJobId).empty()) throw RowError{kColNames[kJobId], "empty"};

    const std::optional<Time> start = parse_time(field(kStart), kColNames[kStart], false);
    const std::optional<Time> end = parse_time(field(kEnd), kColNames[kEnd], p.final_state != JobState::Running);
    if (start && *start < submit) throw RowError{kColNames[kStart], "before submit_time"};
    if (end && start && *end < *start) throw RowError{kColNames[kEnd], "before start_time"};
    if (end && *end < submit) throw RowError{kColNames[kEnd], "before submit_time"};
    if (end) latest_ = std::max(latest_, *end);
    latest_ = std::max(latest_, start.value_or(submit));

    if (!start || (p.final_state == JobState::Cancelled && end && *start == *end)) {
      p.cancel_pending_at = end;  // none for RUNNING rows without start: set at the horizon
      if (!end) open_.push_back(static_cast<JobId>(w_.size()));
    } else {
      p.recorded_start = start;
      if (end) p.run = *end - *start;
      else open_.push_back(static_cast<JobId>(w_.size()));
    }
    r.user = w_.users.intern(field(kUser));
    w_.add(field(kJobId), r, p);
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
  Workload w_;
  std::array<std::size_t, kCols> index_{};
  std::size_t min_fields_ = 0;
  std::vector<std::string_view> fields_;
  std::string scratch_;
  std::vector<JobId> open_;
  Time latest_;
};

}  // namespace

Workload read_acme_trace(const std::string& path, const TraceOptions& options) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw_input_error(path, 0, "", "cannot open the trace file");
  LineReader lines(f.get());
  return TraceParser(path, options).parse(lines);
}

Workload read_acme_trace_text(std::string_view text, std::string_view name, const TraceOptions& options) {
  std::string copy(text);  // fmemopen needs a mutable buffer
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      copy.empty() ? std::tmpfile() : fmemopen(copy.data(), copy.size(), "rb"), &std::fclose);
  if (!f) throw_input_error(name, 0, "", "cannot read the text");
  LineReader lines(f.get());
  return TraceParser(name, options).parse(lines);
}

}  // namespace acme
