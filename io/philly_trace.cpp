#include "io/philly_trace.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "io/gzip_text.h"
#include "sim/error.h"
#include "sim/log.h"

namespace acme {
namespace {

using nlohmann::json;

// One job of the array, read: where it is for errors, and its times.
struct JobReader {
  const std::string& path;
  std::size_t index;  // in the array, from 1
  std::string id;
  const PhillyOptions& opt;
  bool naive = false;  // a time read at the offset given or UTC

  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    throw_input_error(path, 0, "", "job " + std::to_string(index) + (id.empty() ? "" : " (" + id + ")") + ": " +
                                       std::string(key) + ": " + what);
  }
  std::string text(const json& j, std::string_view key) const {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) fail(key, it == j.end() ? "missing" : "expected a string, got " + it->dump());
    return it->get<std::string>();
  }
  // A time, or none for "None" or null (`required`: an error then).
  std::optional<Time> time(const json& j, std::string_view key, bool required) {
    const auto it = j.find(key);
    if (it != j.end() && (it->is_null() || (it->is_string() && it->get_ref<const std::string&>() == "None"))) {
      if (required) fail(key, "missing");
      return std::nullopt;
    }
    const std::string s = text(j, key);
    bool this_naive = false;
    const auto t = parse_timestamp(s, opt.utc_offset_s.value_or(0), this_naive);
    if (!t) fail(key, "expected a time like 2017-10-07 17:21:10, got '" + s + "'");
    naive = naive || this_naive;
    return t;
  }
};

JobState state_of(const JobReader& in, const std::string& status) {
  if (status == "Pass") return JobState::Completed;
  if (status == "Killed") return JobState::Cancelled;
  if (status == "Failed") return JobState::Failed;
  in.fail("status", "unknown status '" + status + "' (Philly's: Pass, Killed, Failed)");
}

json parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the trace file");
  try {
    if (gzip_text::is_gzip(path)) return json::parse(gzip_text::read_all(path));
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(path + ": not a Philly trace (JSON that does not parse, at byte " + std::to_string(e.byte) + ")");
  }
}

// A job as read: its request and profile, the start of its attempt still running (if any), and
// its latest time.
struct Job {
  JobRequest r;
  JobProfile p;
  std::optional<Time> running_since;
  Time latest;
};

// The job `in` names, from its object; none if no attempt ran on a machine (no size).
std::optional<Job> read_job(const json& job, JobReader& in) {
  if (!job.is_object()) in.fail("job", "expected an object");
  in.id = in.text(job, "jobid");
  Job out;
  out.r.submit = *in.time(job, "submitted_time", true);
  out.r.node_num = 0;
  out.p.final_state = state_of(in, in.text(job, "status"));
  out.latest = out.r.submit;
  const json none = json::array();
  const json& attempts = job.contains("attempts") ? job["attempts"] : none;
  if (!attempts.is_array()) in.fail("attempts", "expected an array");
  std::optional<Time> first_start, last_end;
  for (const json& a : attempts) {
    if (!a.is_object()) in.fail("attempts", "expected objects");
    const std::optional<Time> start = in.time(a, "start_time", false), end = in.time(a, "end_time", false);
    if (start && end && *end < *start) in.fail("end_time", "before start_time");
    if (start && *start < out.r.submit) in.fail("start_time", "before submitted_time");
    if (start && !first_start) first_start = start;
    if (start && end) out.p.run += *end - *start;
    if (start && !end) out.running_since = start;
    if (end) last_end = end;
    out.latest = std::max({out.latest, start.value_or(out.latest), end.value_or(out.latest)});
    const auto detail = a.find("detail");
    if (out.r.node_num > 0 || detail == a.end() || !detail->is_array()) continue;
    for (const json& machine : *detail) {
      const auto gpus = machine.find("gpus");
      out.r.gpu_num += gpus != machine.end() && gpus->is_array() ? static_cast<std::int32_t>(gpus->size()) : 0;
      ++out.r.node_num;
    }
  }
  if (out.r.node_num == 0) return std::nullopt;
  out.r.cpu_num = 0;  // Philly records none
  out.r.type = untyped_job_type(out.r.gpu_num);
  if (first_start) out.p.set_recorded_start(first_start);
  else out.p.set_cancel_pending_at(last_end.value_or(out.r.submit));
  if (out.running_since) out.p.final_state = JobState::Running;
  return out;
}

}  // namespace

bool is_json_text(std::string_view head) {
  std::string_view s = head;
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
  const std::size_t first = s.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (s[first] == '[' || s[first] == '{');
}

Workload read_philly_trace(const std::string& path, const PhillyOptions& opt, std::vector<std::string>* warnings) {
  const json jobs = parse_file(path);
  if (!jobs.is_array()) throw InputError(path + ": not a Philly trace (a JSON array of jobs expected)");
  Workload w;
  w.source = "Philly " + path;
  w.window_from = opt.from;
  w.window_to = opt.to;
  std::unordered_set<std::string> ids;
  std::vector<std::pair<JobId, Time>> open;  // jobs whose last attempt has no end, and its start
  std::uint64_t unsized = 0, naive = 0;
  Time latest;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    JobReader in{path, i + 1, {}, opt};
    std::optional<Job> job = read_job(jobs[i], in);
    if (!job) {
      ++unsized;
      continue;
    }
    if ((opt.from && job->r.submit < *opt.from) || (opt.to && job->r.submit >= *opt.to)) {
      ++w.rows_outside_window;
      continue;
    }
    if (!ids.insert(in.id).second) in.fail("jobid", "used by an earlier job");
    latest = std::max(latest, job->latest);
    try {
      job->r.user = w.users.intern(in.text(jobs[i], "user"));
    } catch (const std::length_error& e) {
      in.fail("user", e.what());
    }
    naive += in.naive && !opt.utc_offset_s;
    const JobId added = w.add(in.id, job->r, job->p);
    if (job->running_since) open.emplace_back(added, *job->running_since);
  }
  const Time horizon = opt.to.value_or(latest);
  for (const auto& [job, since] : open) w.profiles[job].run += std::max(horizon, since) - since;
  if (unsized > 0)
    log::warn_kept(path, warnings, ": {} jobs ran on no machine in any attempt, so name no GPUs: skipped", unsized);
  if (naive > 0)
    log::warn_kept(path, warnings,
                   ": {} jobs have times without a UTC offset, as Philly's: read as UTC; workload.trace_utc_offset says "
                   "the trace's offset",
                   naive);
  if (w.size() == 0) log::warn_kept(path, warnings, ": none of its {} jobs is in the window: the run has no jobs", jobs.size());
  return w;
}

}  // namespace acme
