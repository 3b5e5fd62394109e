#include "workloads/swf_trace.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <unordered_set>

#include "sim/error.h"
#include "sim/log.h"
#include "workloads/csv_lines.h"
#include "workloads/table_cells.h"

namespace acme {
// Named (not anonymous): the unity build joins this file to other readers with names of their own.
namespace swf {

constexpr std::size_t kFields = 18;
// SWF's fields, by their place in a line (the standard numbers them from 1).
enum SwfField : std::uint8_t { kJob, kSubmit, kWait, kRun, kAllocated, kRequested = 7, kStatus = 10, kUser = 11 };
constexpr std::array<std::string_view, kFields> kFieldNames{
    "job number",  "submit time", "wait time",     "run time",        "allocated processors", "CPU time",
    "memory",      "requested processors",         "requested time",  "requested memory",     "status",
    "user ID",     "group ID",    "executable",    "queue",           "partition",            "preceding job",
    "think time"};
constexpr int kGpusPerNode = 8;  // ASSUMPTION: the nodes a job's GPUs are packed on

// The white-space-separated fields of a line.
void split_blank(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t begin = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > begin) out.push_back(line.substr(begin, i - begin));
  }
}

std::optional<double> number_of(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_comment(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == ';';
}

// The header comment's "UnixStartTime: <seconds>", if the line is one.
std::optional<double> unix_start_of(std::string_view comment) {
  const std::size_t key = comment.find("UnixStartTime:");
  if (key == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> rest;
  split_blank(comment.substr(key + 14), rest);
  return rest.empty() ? std::nullopt : number_of(rest[0]);
}

// A job line's fields as numbers, -1 for none; errors name the line and the field.
struct JobLine {
  const std::string& path;
  std::size_t line;
  std::array<double, kFields> v{};

  [[noreturn]] void fail(SwfField f, const std::string& what) const { throw_input_error(path, line, kFieldNames[f], what); }
  bool has(SwfField f) const { return v[f] >= 0; }
  Time time(SwfField f) const { return Time::seconds(static_cast<std::int64_t>(std::floor(v[f]))); }
};

}  // namespace swf

bool is_swf_file(const std::string& path) {
  using namespace swf;
  const std::string line = table_cells::first_line(path);
  if (is_comment(line)) return true;
  std::vector<std::string_view> fields;
  split_blank(line, fields);
  if (fields.size() != kFields) return false;
  for (std::string_view f : fields)
    if (!number_of(f)) return false;
  return true;
}

Workload read_swf_trace(const std::string& path, const SwfOptions& opt, std::vector<std::string>* warnings) {
  using namespace swf;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw_input_error(path, 0, "", "cannot open the trace file");
  Workload w;
  w.source = "SWF " + path;
  w.window_from = opt.from;
  w.window_to = opt.to;
  csv_lines::LineReader lines(f.get(), path);
  std::vector<std::string_view> fields;
  std::unordered_set<std::int64_t> numbers;
  std::optional<double> unix_start;
  std::uint64_t jobs = 0, parts = 0, no_run = 0, no_wait = 0, no_size = 0;
  std::string_view text;
  try {
    while (lines.next(text)) {
      if (lines.number() == 1 && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a byte-order mark
      if (is_comment(text)) {
        if (jobs == 0 && !unix_start) unix_start = unix_start_of(text);
        continue;
      }
      split_blank(text, fields);
      if (fields.empty()) continue;
      if (fields.size() != kFields)
        throw_input_error(path, lines.number(), "",
                          "expected the 18 fields of SWF, the line has " + std::to_string(fields.size()));
      JobLine job{path, lines.number(), {}};
      for (std::size_t i = 0; i < kFields; ++i) {
        const std::optional<double> v = number_of(fields[i]);
        if (!v) job.fail(static_cast<SwfField>(i), "expected a number (-1: not recorded), got " + csv_lines::shown(fields[i]));
        job.v[i] = *v;
      }
      ++jobs;
      const int status = static_cast<int>(job.v[kStatus]);
      if (job.v[kStatus] != status || status < -1 || status > 5)
        job.fail(kStatus, "expected -1, 0, 1, 5, or 2-4 for a partial execution (SWF's), got " + csv_lines::shown(fields[kStatus]));
      if (status >= 2 && status <= 4) {  // a part of the job its summary line (the same number) gives
        ++parts;
        continue;
      }
      if (!job.has(kJob) || job.v[kJob] != std::floor(job.v[kJob])) job.fail(kJob, "expected a whole number of 0 or more");
      if (!numbers.insert(static_cast<std::int64_t>(job.v[kJob])).second) job.fail(kJob, "used by an earlier job");
      if (!job.has(kSubmit)) job.fail(kSubmit, "missing (-1)");
      JobRequest r;
      r.submit = Time::seconds(static_cast<std::int64_t>(std::floor(unix_start.value_or(0) + job.v[kSubmit])));  // floored
      if ((opt.from && r.submit < *opt.from) || (opt.to && r.submit >= *opt.to)) {
        ++w.rows_outside_window;
        continue;
      }
      const double processors = job.v[kAllocated] > 0 ? job.v[kAllocated] : job.v[kRequested];
      if (processors <= 0) {
        ++no_size;
        continue;
      }
      if (processors != std::floor(processors) || processors > 1e6)
        job.fail(job.v[kAllocated] > 0 ? kAllocated : kRequested, "expected a whole number of processors up to a million");
      r.gpu_num = static_cast<std::int32_t>(processors);
      r.node_num = (r.gpu_num + kGpusPerNode - 1) / kGpusPerNode;
      r.cpu_num = 0;
      r.type = untyped_job_type(r.gpu_num);
      r.user = w.users.intern(job.has(kUser) ? fields[kUser] : std::string_view("-1"));
      JobProfile p;
      p.final_state = status == 0 ? JobState::Failed : status == 5 ? JobState::Cancelled : JobState::Completed;
      // The start from the times as written (SWF allows fractions), then floored as the submit.
      const double submitted = unix_start.value_or(0) + job.v[kSubmit];
      const Time start = Time::seconds(static_cast<std::int64_t>(std::floor(submitted + std::max(job.v[kWait], 0.0))));
      if (status == 5 && (!job.has(kRun) || !job.has(kWait))) {
        p.set_cancel_pending_at(start);
      } else if (!job.has(kRun)) {
        ++no_run;
        continue;
      } else if (!job.has(kWait)) {
        ++no_wait;
        continue;
      } else {
        p.set_recorded_start(start);
        p.run = job.time(kRun);
      }
      w.add(fields[kJob], r, p);
    }
  } catch (const csv_lines::LongLine& e) {
    throw_input_error(path, e.line, "", "line longer than " + std::to_string(csv_lines::kMaxLine) + " bytes");
  }
  log::warn_kept(path, warnings, ": SWF counts processors: each is read as a GPU, packed {} to a node, with no cores",
                 kGpusPerNode);
  if (parts > 0) log::warn_kept(path, warnings, ": {} lines of partial executions (status 2-4) skipped: their jobs' summary lines are read", parts);
  if (no_size > 0) log::warn_kept(path, warnings, ": {} jobs record no processors: skipped", no_size);
  if (no_run > 0) log::warn_kept(path, warnings, ": {} jobs that were not cancelled record no run time: skipped", no_run);
  if (no_wait > 0) log::warn_kept(path, warnings, ": {} jobs record a run time but no wait time: skipped", no_wait);
  if (w.size() == 0) log::warn_kept(path, warnings, ": none of its {} job lines is read (in the window and replayable): the run has no jobs", jobs);
  return w;
}

}  // namespace acme
