// Jobs: what a user asked for (JobRequest, visible to policies) kept apart from what really
// happens when the job runs (JobProfile, known only to the simulator), as in Batsim.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/job_column.h"
#include "sim/time.h"

namespace acme {

// A job's index in its Workload: dense, 0-based, stable for the whole run.
using JobId = std::uint32_t;
inline constexpr JobId kNoJob = 0xffffffffu;

// The job types of AcmeTrace. CPU jobs use no GPU.
enum class JobType : std::uint8_t { CPU, Eval, Pretrain, SFT, MLLM, Debug, Other };
inline constexpr std::size_t kJobTypeCount = 7;
inline constexpr std::array<std::string_view, kJobTypeCount> kJobTypeNames = {
    "CPU", "Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"};

// The states a job can end in. The first seven are AcmeTrace's own (RUNNING: the trace ended
// while the job ran; it is cut off at the trace horizon). REJECTED is acmesim's: the job can
// never fit on the modeled cluster, so it was refused when it arrived.
enum class JobState : std::uint8_t {
  Completed, Failed, Cancelled, Preempted, Timeout, NodeFail, Running, Rejected
};
inline constexpr std::size_t kJobStateCount = 8;
inline constexpr std::array<std::string_view, kJobStateCount> kJobStateNames = {
    "COMPLETED", "FAILED", "CANCELLED", "PREEMPTED", "TIMEOUT", "NODE_FAIL", "RUNNING", "REJECTED"};

// The type or state a name spells; with `any_case`, in any case too ("eval", "failed": a trace
// written by another tool), tried after the exact name.
std::optional<JobType> parse_job_type(std::string_view s, bool any_case = false);
// The type of a job of a trace that names none (Helios's, sacct's, Philly's, PAI's, Alibaba's
// pods): CPU for a job without GPUs, else Other, the type AcmeTrace gives to jobs outside its
// named kinds.
inline JobType untyped_job_type(std::int32_t gpus) { return gpus > 0 ? JobType::Other : JobType::CPU; }
std::optional<JobState> parse_job_state(std::string_view s, bool any_case = false);
inline std::string_view name(JobType t) { return kJobTypeNames[static_cast<std::size_t>(t)]; }
inline std::string_view name(JobState s) { return kJobStateNames[static_cast<std::size_t>(s)]; }

// FAILED, TIMEOUT and NODE_FAIL: the job's GPU-time counts as wasted.
bool is_failure(JobState s);

// At most this many distinct users in a workload (JobRequest::user has 24 bits).
inline constexpr std::uint32_t kMaxUsers = (1u << 24) - 1;

// What the user asked for; the only job data a policy may see. 24 bytes: a million are kept.
struct JobRequest {
  Time submit;
  std::int32_t gpu_num = 0;   // total GPUs, 0 for CPU jobs
  std::int32_t node_num = 1;  // nodes the GPUs (and CPUs) are spread over, >= 1
  std::int32_t cpu_num = 0;   // total CPU cores
  JobType type = JobType::Other;
  std::uint32_t user : 24 = 0;  // index into Workload::users (UserTable keeps it below kMaxUsers)
};
static_assert(sizeof(JobRequest) == 24);

// What happens once the job runs; hidden from policies. 24 bytes: a million of them are kept.
class JobProfile {
 public:
  Time run;  // run time once started
  // Share of each run that does not fail during which the GPUs sit idle (model loading, metric
  // computation inside evaluation jobs): wasted, cause eval_idle. 0: the job type's share
  // (FeatureControl::set_idle_share).
  float idle_share = 0.0f;
  JobState final_state = JobState::Completed;

  // A job has one or the other: its start in the trace, or (never started there) when it leaves
  // the queue if still pending. Setting one clears the other.
  OptionalTime recorded_start() const { return started_ ? at_ : OptionalTime{}; }
  OptionalTime cancel_pending_at() const { return started_ ? OptionalTime{} : at_; }
  void set_recorded_start(OptionalTime t) {
    at_ = t;
    started_ = t.has_value();
  }
  void set_cancel_pending_at(OptionalTime t) {
    at_ = t;
    started_ = false;
  }
  // Whether the bytes of `p`, as read from a file, make a JobProfile: its state one of the
  // JobStates, its flag's byte 0 or 1 (read as a byte: another value is no bool).
  static bool valid(const JobProfile& p) {
    unsigned char started, state;
    std::memcpy(&started, &p.started_, 1);
    std::memcpy(&state, &p.final_state, 1);
    return started <= 1 && state < kJobStateCount;
  }

 private:
  bool started_ = false;  // at_ is the recorded start (beside final_state: 24 bytes in all)
  OptionalTime at_;
};
static_assert(sizeof(JobProfile) == 24);

// Strings stored back to back; ids are indices. Keeps a million job ids in one allocation, or
// views them in a mapped file (view(); a change copies them first, as JobColumn does).
class StringTable {
 public:
  std::uint32_t add(std::string_view s);
  // Adds the decimal numbers first, first + 1, ..., first + count - 1 (a synthetic workload's job
  // names), in one allocation and about 22 instructions a name.
  void add_numbers(std::uint64_t first, std::size_t count);
  // Adds every string of `other`, in order: a copy of its bytes and about 2 instructions a string.
  void append(const StringTable& other);
  void clear() {
    blob_.clear();
    offsets_.clear();
    offsets_.push_back(0);
  }
  std::string_view operator[](std::uint32_t i) const {
    return std::string_view(blob_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  std::size_t size() const { return offsets_.size() - 1; }
  void reserve(std::size_t strings, std::size_t bytes) {
    offsets_.reserve(strings + 1);
    blob_.reserve(bytes);
  }
  // The first `strings` strings of a read-only table that `keep` keeps valid: string i is
  // blob[offsets[i], offsets[i + 1]), offsets[0] is 0, and the offsets never decrease.
  void view(const char* blob, const std::uint32_t* offsets, std::size_t strings, const std::shared_ptr<const void>& keep) {
    offsets_.view(offsets, strings + 1, keep);
    blob_.view(blob, offsets[strings], keep);
  }
  // The bytes of every string, back to back; offsets()[i] is where string i starts, for i up to size().
  std::string_view bytes() const { return std::string_view(blob_.data(), blob_.size()); }
  const std::uint32_t* offsets() const { return offsets_.data(); }
  bool is_view() const { return offsets_.is_view() && blob_.is_view(); }
  // A view shows its first `strings` strings from now on.
  void show(std::size_t strings) {
    offsets_.show(strings + 1);
    blob_.show(std::as_const(offsets_)[strings]);  // read, not changed: the view stays
  }

 private:
  JobColumn<char> blob_;
  JobColumn<std::uint32_t> offsets_{0};
};

// Interns user names: the same name gets the same index.
class UserTable {
 public:
  // Throws std::length_error for a name past kMaxUsers.
  std::uint32_t intern(std::string_view name);
  std::string_view operator[](std::uint32_t i) const { return names_[i]; }
  std::size_t size() const { return names_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  StringTable names_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

// A job's identity for its random draws: a 64-bit hash of its name (a trace's job_id text, a
// synthetic job's generated id). Every per-job draw (launch latency, failures, power levels,
// run-time estimates) is keyed by it, never by the job's row (JobId): the same job meets the same
// draws in any row order, in any window cut from its trace and under any policy. Jobs of one name
// share their draws. Changing this function changes every draw of every run, and needs a new
// trace cache version (it stores the keys: workloads/trace_cache.h).
// The hash: up to 16 bytes read as two words and mixed (a job id is rarely longer), longer ones 8
// bytes at a time, then a multiply-xorshift finish; names of up to 8 bytes and one length never
// collide. About 15 instructions for a trace's ids (FNV-1a, a byte at a time, took about 40 more on
// 7-digit ids). The trace reader's duplicate search uses it too (workloads/trace_ids.h), so a row
// is hashed once.
inline std::uint64_t job_key(std::string_view name) {
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  std::uint64_t h = name.size() * kMul;
  std::size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, name.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  if (i < name.size()) {
    std::uint64_t w = 0;
    std::memcpy(&w, name.data() + i, name.size() - i);
    h = (h ^ w) * kMul;
  }
  h ^= h >> 32;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}

// A set of jobs ready to simulate: parallel columns indexed by JobId (sim/job_column.h).
struct Workload {
  JobColumn<JobRequest> requests;
  JobColumn<JobProfile> profiles;
  StringTable names;  // the trace's job_id
  // [job]: job_key(names[job]), what keys the job's random draws. Every source fills it: add()
  // does; a source that fills names in bulk calls add_keys_of_new_names() (or, the trace cache,
  // shows the keys it stored). A Simulation refuses a workload without one key a job.
  JobColumn<std::uint64_t> keys;
  UserTable users;

  // Empty, or one entry per job: the job it waits for (kNoJob: none). Such a job is submitted
  // when that one ends, whatever its end, plus its think time (its request's submit time is then
  // not used; one withdrawn while pending, JobProfile::cancel_pending_at, is withdrawn as long
  // after that as after its submit time); it must come later in the workload than the job it
  // waits for.
  JobColumn<JobId> after;
  // Empty, or one entry per job: seconds from the end of the job it waits for to its submission
  // (SWF's think time; 0 for a job that waits for none). Empty: 0 for every job.
  JobColumn<std::uint32_t> think_s;

  // Empty, or one entry per job: the run time its user asked for (a time limit: SWF's requested
  // time, sacct's Timelimit), whole seconds; 0: none recorded. What estimate.model recorded
  // reads (workloads/estimates.h).
  JobColumn<std::uint32_t> time_limits;

  std::string source;                // where the jobs came from, for run.json
  std::string schema;                // a trace file's schema, seren or kalos (workloads/trace_schema.h); empty: no file
  std::uint64_t rows_skipped = 0;    // malformed rows skipped in lenient mode
  std::uint64_t rows_outside_window = 0;  // a trace's rows submitted outside [window_from, window_to)
  std::optional<Time> window_from;   // the selection window, if any
  std::optional<Time> window_to;

  std::size_t size() const { return requests.size(); }
  JobId add(std::string_view job_name, const JobRequest& r, const JobProfile& p);
  // add(), with the name's key computed already. REQUIRES: key == job_key(job_name).
  JobId add(std::string_view job_name, std::uint64_t key, const JobRequest& r, const JobProfile& p);
  // add(), for a job submitted `think` after `predecessor` (an earlier job) ends.
  JobId add_after(JobId predecessor, std::string_view job_name, const JobRequest& r, const JobProfile& p,
                  Time think = {});
  bool waits(JobId job) const { return !after.empty() && after[job] != kNoJob; }
  // Makes `job` wait for `predecessor` (an earlier job), submitted `think` after it ends (whole
  // seconds, capped at UINT32_MAX).
  void set_after(JobId job, JobId predecessor, Time think);
  // Seconds from the end of the job `job` waits for to its submission.
  Time think_time(JobId job) const { return think_s.empty() ? Time{} : Time::seconds(think_s[job]); }
  // Records job's time limit (whole seconds, at least 1; capped at UINT32_MAX).
  void set_time_limit(JobId job, Time limit);
  Time time_limit(JobId job) const { return time_limits.empty() ? Time{} : Time::seconds(time_limits[job]); }
  // Appends the keys of the jobs named since the last key: names [keys.size(), names.size()).
  void add_keys_of_new_names() {
    for (std::size_t j = keys.size(); j < names.size(); ++j) keys.push_back(job_key(names[static_cast<std::uint32_t>(j)]));
  }
  // Room for `jobs` jobs whose names take `name_bytes` in all: a reader that can estimate its
  // row count avoids growing (and for a moment holding twice) a million-job workload.
  void reserve(std::size_t jobs, std::size_t name_bytes) {
    requests.reserve(jobs);
    profiles.reserve(jobs);
    keys.reserve(jobs);
    names.reserve(jobs, name_bytes);
  }
};

// An array of `bytes_per_job` bytes a job, filled a job at a time as jobs come.
struct PerJobArray {
  const void* data;
  std::size_t bytes_per_job;
};

// Jobs that join a workload while a Simulation replays it (Simulation::set_feed), from a source
// that draws them as the replay goes (workloads/synthetic_stream.h).
class JobFeed {
 public:
  virtual ~JobFeed() = default;
  // The caller's own per-job arrays, with room for the jobs it will append from its first on: a
  // feed that reads ahead on a thread of its own maps their pages there as it goes (prefault),
  // as it does the workload's, and returns true; else false, and the caller maps them. Called at
  // most once, before the first append_next.
  virtual bool map_ahead(const std::vector<PerJobArray>&) { return false; }
  // Appends the next jobs to `w`, in release order, none released before a job already in it;
  // returns false, appending nothing, when there are no more.
  virtual bool append_next(Workload& w) = 0;
  // About how many jobs it will append in all (to size buffers; 0: unknown).
  virtual std::size_t expected_jobs() const { return 0; }
  // Called once the replay is done, before its outputs: throws what it found wrong with the whole
  // workload (WholeWorkloadNeeded: read it whole and replay again).
  virtual void finish() {}
};

// Thrown by JobFeed::append_next when the jobs cannot come in release order after all (a trace
// with rows out of submit order): the run is to be made again with the whole workload loaded first.
struct WholeWorkloadNeeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace acme
