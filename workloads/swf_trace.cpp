#include "workloads/swf_trace.h"

#include <array>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "sim/error.h"
#include "sim/log.h"
#include "workloads/csv_lines.h"
#include "workloads/table_cells.h"

namespace acme {
// Named (not anonymous): the unity build joins this file to other readers with names of their own.
namespace swf {

constexpr std::size_t kFields = 18;
// SWF's fields, by their place in a line (the standard numbers them from 1).
enum SwfField : std::uint8_t {
  kJob, kSubmit, kWait, kRun, kAllocated, kRequested = 7, kRequestedTime = 8, kStatus = 10, kUser = 11,
  kPreceding = 16, kThink = 17
};
constexpr std::array<std::string_view, kFields> kFieldNames{
    "job number",  "submit time", "wait time",     "run time",        "allocated processors", "CPU time",
    "memory",      "requested processors",         "requested time",  "requested memory",     "status",
    "user ID",     "group ID",    "executable",    "queue",           "partition",            "preceding job",
    "think time"};
constexpr int kGpusPerNode = 8;  // ASSUMPTION: the nodes a job's GPUs are packed on
using csv_lines::kShownSkipped;

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

// A read under way: the lines so far, the jobs made of them, and what was skipped.
class Reading {
 public:
  Reading(const std::string& path, const SwfOptions& opt) : path_(path), opt_(opt) {
    w_.source = "SWF " + path;
    w_.window_from = opt.from;
    w_.window_to = opt.to;
  }

  void line(std::string_view text, std::size_t number) {
    if (is_comment(text)) {
      if (lines_ == 0 && !unix_start_) unix_start_ = unix_start_of(text);
      return;
    }
    try {
      job_line(text, number);
    } catch (const InputError& e) {  // "path:line: field: message"
      if (!opt_.lenient) throw;
      if (++w_.rows_skipped <= kShownSkipped) skipped_.push_back(std::string(e.what()).substr(path_.size()));
    }
  }

  Workload finish(std::vector<std::string>* warnings) {
    for (const std::string& s : skipped_) log::warn_kept(path_, warnings, "{} (line skipped: workload.lenient is on)", s);
    if (w_.rows_skipped > kShownSkipped) log::warn_kept(path_, warnings, ": {} malformed lines skipped in all", w_.rows_skipped);
    log::warn_kept(path_, warnings, ": SWF counts processors: each is read as a GPU, packed {} to a node, with no cores",
                   kGpusPerNode);
    if (parts_ > 0)
      log::warn_kept(path_, warnings, ": {} lines of partial executions (status 2-4) skipped: their jobs' summary lines are read",
                     parts_);
    if (no_size_ > 0) log::warn_kept(path_, warnings, ": {} jobs record no processors: skipped", no_size_);
    if (no_run_ > 0) log::warn_kept(path_, warnings, ": {} jobs that were not cancelled record no run time: skipped", no_run_);
    if (opt_.feedback) {
      log::info("{}: workload.feedback: {} jobs submitted their think time after their preceding job ends", path_, followers_);
      if (unreplayed_ > 0)
        log::warn_kept(path_, warnings, ": {} jobs name a preceding job that is not replayed (outside the window, not "
                       "replayable, or not in the log): submitted when the log says", unreplayed_);
    }
    if (no_wait_ > 0)
      log::warn_kept(path_, warnings, ": {} jobs record no wait time (as a model's log): a policy replay runs them, a recorded "
                     "replay leaves them waiting", no_wait_);
    if (w_.size() == 0)
      log::warn_kept(path_, warnings, ": none of its {} job lines is read (in the window and replayable): the run has no jobs",
                     lines_);
    return std::move(w_);
  }

 private:
  // A line that is not a comment: a job (or none: blank, a part, outside the window, not replayable).
  void job_line(std::string_view text, std::size_t number) {
    split_blank(text, fields_);
    if (fields_.empty()) return;
    if (fields_.size() != kFields)
      throw_input_error(path_, number, "", "expected the 18 fields of SWF, the line has " + std::to_string(fields_.size()));
    JobLine job{path_, number, {}};
    for (std::size_t i = 0; i < kFields; ++i) {
      const std::optional<double> v = number_of(fields_[i]);  // bounded: cast to whole numbers below
      if (!v || std::abs(*v) > 1e15)
        job.fail(static_cast<SwfField>(i), "expected a number (-1: not recorded), got " + csv_lines::shown(fields_[i]));
      job.v[i] = *v;
    }
    ++lines_;
    const int status = static_cast<int>(job.v[kStatus]);
    if (job.v[kStatus] != status || status < -1 || status > 5)
      job.fail(kStatus, "expected -1, 0, 1, 5, or 2-4 for a partial execution (SWF's), got " + csv_lines::shown(fields_[kStatus]));
    if (status >= 2 && status <= 4) {  // a part of the job its summary line (the same number) gives
      ++parts_;
      return;
    }
    if (!job.has(kJob) || job.v[kJob] != std::floor(job.v[kJob])) job.fail(kJob, "expected a whole number of 0 or more");
    const auto number_of_job = static_cast<std::int64_t>(job.v[kJob]);
    if (numbers_.count(number_of_job) > 0) job.fail(kJob, "used by an earlier job");
    if (!job.has(kSubmit)) job.fail(kSubmit, "missing (-1)");
    if (opt_.feedback && job.has(kPreceding) && job.v[kPreceding] != std::floor(job.v[kPreceding]))
      job.fail(kPreceding, "expected the whole number of an earlier job (-1: none)");
    // A line skipped for an error (lenient) takes no number; one not replayed maps to no job.
    numbers_.emplace(number_of_job, add(job, status));
  }

  // The job of a summary line (or kNoJob: out of the window, or not replayable, counted).
  JobId add(const JobLine& job, int status) {
    const double submitted = unix_start_.value_or(0) + job.v[kSubmit];  // SWF allows fractions: floored
    JobRequest r;
    r.submit = Time::seconds(static_cast<std::int64_t>(std::floor(submitted)));
    if ((opt_.from && r.submit < *opt_.from) || (opt_.to && r.submit >= *opt_.to)) return no_job(w_.rows_outside_window);
    const SwfField size = job.v[kAllocated] > 0 ? kAllocated : kRequested;
    if (job.v[size] <= 0) return no_job(no_size_);
    if (job.v[size] != std::floor(job.v[size]) || job.v[size] > 1e6)
      job.fail(size, "expected a whole number of processors up to a million");
    r.gpu_num = static_cast<std::int32_t>(job.v[size]);
    r.node_num = (r.gpu_num + kGpusPerNode - 1) / kGpusPerNode;
    r.cpu_num = 0;
    r.type = untyped_job_type(r.gpu_num);
    r.user = w_.users.intern(job.has(kUser) ? fields_[kUser] : std::string_view("-1"));
    JobProfile p;
    p.final_state = status == 0 ? JobState::Failed : status == 5 ? JobState::Cancelled : JobState::Completed;
    const Time start = Time::seconds(static_cast<std::int64_t>(std::floor(submitted + std::max(job.v[kWait], 0.0))));
    if (status == 5 && (!job.has(kRun) || !job.has(kWait))) {
      p.set_cancel_pending_at(start);
    } else if (!job.has(kRun)) {
      return no_job(no_run_);
    } else if (!job.has(kWait)) {  // a model's log (SWF's models record no wait): no recorded start
      ++no_wait_;
      p.run = job.time(kRun);
    } else {
      p.set_recorded_start(start);
      p.run = job.time(kRun);
    }
    const JobId added = w_.add(fields_[kJob], r, p);
    if (job.v[kRequestedTime] > 0)
      w_.set_time_limit(added, Time::seconds(static_cast<std::int64_t>(std::ceil(job.v[kRequestedTime]))));
    if (opt_.feedback && job.v[kPreceding] > 0) follow(job, added);
    return added;
  }
  // A line that makes no job, counted in `count`.
  static JobId no_job(std::uint64_t& count) {
    ++count;
    return kNoJob;
  }

  // Feedback: `job` waits for its preceding job, if that one is replayed, and is submitted its
  // think time (none: 0) after it ends.
  void follow(const JobLine& job, JobId added) {
    const auto preceding = numbers_.find(static_cast<std::int64_t>(job.v[kPreceding]));
    if (preceding == numbers_.end() || preceding->second == kNoJob) return void(++unreplayed_);
    w_.set_after(added, preceding->second, Time::seconds(static_cast<std::int64_t>(std::floor(std::max(job.v[kThink], 0.0)))));
    ++followers_;
  }

  const std::string& path_;
  const SwfOptions& opt_;
  Workload w_;
  std::vector<std::string_view> fields_;  // of the line under way
  std::vector<std::string> skipped_;      // lenient: the first kShownSkipped errors, after the path
  std::unordered_map<std::int64_t, JobId> numbers_;  // job numbers read so far: their jobs (kNoJob: not replayed)
  std::optional<double> unix_start_;
  std::uint64_t lines_ = 0, parts_ = 0, no_run_ = 0, no_wait_ = 0, no_size_ = 0;
  std::uint64_t followers_ = 0, unreplayed_ = 0;  // feedback: jobs that wait for their preceding job, and that cannot
};

}  // namespace swf

bool is_swf_log(std::string_view line) {
  using namespace swf;
  if (is_comment(line)) return true;
  std::vector<std::string_view> fields;
  split_blank(line, fields);
  if (fields.size() != kFields) return false;
  for (std::string_view f : fields)
    if (!number_of(f)) return false;
  return true;
}

Workload read_swf_trace(const std::string& path, const SwfOptions& opt, std::vector<std::string>* warnings) {
  swf::Reading reading(path, opt);
  table_cells::for_each_line(path, [&](std::string_view text, std::size_t number) { reading.line(text, number); });
  return reading.finish(warnings);
}

}  // namespace acme
