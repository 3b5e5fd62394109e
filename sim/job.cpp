#include "sim/job.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace acme {

namespace {

// The place in `names` of the name `s` spells in any case (apart: the exact match is the hot path).
template <std::size_t N>
[[gnu::noinline]] std::optional<std::size_t> place_in_any_case(std::string_view s, const std::array<std::string_view, N>& names) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const auto alike = [&](char a, char b) { return lower(a) == lower(b); };
  for (std::size_t i = 0; i < N; ++i)
    if (s.size() == names[i].size() && std::equal(s.begin(), s.end(), names[i].begin(), alike)) return i;
  return std::nullopt;
}

// The name of `names` that `s` is (a T, by its place): exactly, else with `any_case` in any case.
template <class T, std::size_t N>
std::optional<T> parse_name(std::string_view s, const std::array<std::string_view, N>& names, bool any_case) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<T>(i);
  const auto i = any_case ? place_in_any_case(s, names) : std::nullopt;
  return i ? std::optional(static_cast<T>(*i)) : std::nullopt;
}

}  // namespace

std::optional<JobType> parse_job_type(std::string_view s, bool any_case) {
  return parse_name<JobType>(s, kJobTypeNames, any_case);
}

std::optional<JobState> parse_job_state(std::string_view s, bool any_case) {
  return parse_name<JobState>(s, kJobStateNames, any_case);
}

bool is_failure(JobState s) {
  return s == JobState::Failed || s == JobState::Timeout || s == JobState::NodeFail;
}

std::uint32_t StringTable::add(std::string_view s) {
  blob_.insert(blob_.end(), s.begin(), s.end());
  offsets_.push_back(static_cast<std::uint32_t>(blob_.size()));
  return static_cast<std::uint32_t>(offsets_.size() - 2);
}

void StringTable::add_numbers(std::uint64_t first, std::size_t count) {
  if (count == 0) return;
  const std::uint64_t last = first + count;  // exclusive
  std::size_t bytes = 0;
  for (std::uint64_t lo = first, ten = 10, width = 1; lo < last; ten *= 10, ++width)
    if (lo < ten) {  // the numbers of `width` digits
      bytes += static_cast<std::size_t>((std::min(ten, last) - lo) * width);
      lo = std::min(ten, last);
    }
  constexpr std::size_t kChunk = 8;  // names are copied in 8-byte chunks; the blob has that slack
  const std::size_t old_bytes = blob_.size();
  blob_.resize(old_bytes + bytes + kChunk);
  const std::size_t old_count = offsets_.size();
  offsets_.resize(old_count + count);
  // The number, right-aligned in `digits` with kChunk bytes of slack after it, incremented in
  // place: carrying costs a digit or two on average, where to_chars costs 60 instructions.
  char digits[24 + kChunk] = {};
  char* const end = digits + 24;
  char* begin = end;
  for (std::uint64_t v = first; begin == end || v > 0; v /= 10) *--begin = static_cast<char>('0' + v % 10);
  char* out = blob_.data() + old_bytes;
  std::uint32_t* offset = offsets_.data() + old_count;
  const char* const blob = blob_.data();
  for (std::size_t n = 0; n < count; ++n) {
    const auto length = static_cast<std::size_t>(end - begin);
    std::memcpy(out, begin, kChunk);
    for (std::size_t k = kChunk; k < length; k += kChunk) std::memcpy(out + k, begin + k, kChunk);
    out += length;
    *offset++ = static_cast<std::uint32_t>(out - blob);
    char* c = end - 1;
    while (*c == '9') *c-- = '0';  // carry
    if (c < begin) *(begin = c) = '0';  // a new leading digit (0, then carried to 1)
    ++*c;
  }
  blob_.resize(old_bytes + bytes);
}

void StringTable::append(const StringTable& other) {
  const auto base = static_cast<std::uint32_t>(blob_.size());
  blob_.insert(blob_.end(), other.blob_.begin(), other.blob_.end());
  const std::size_t old_count = offsets_.size();
  offsets_.resize(old_count + other.size());
  std::uint32_t* out = offsets_.data() + old_count;  // its own memory now: no check a string
  for (std::size_t i = 0; i < other.size(); ++i) out[i] = base + other.offsets_[i + 1];
}

std::uint32_t UserTable::intern(std::string_view name) {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  if (names_.size() >= kMaxUsers) throw std::length_error("more than 16,777,215 distinct users");
  const std::uint32_t id = names_.add(name);
  index_.emplace(std::string(name), id);
  return id;
}

JobId Workload::add(std::string_view job_name, const JobRequest& r, const JobProfile& p) {
  return add(job_name, job_key(job_name), r, p);
}

JobId Workload::add(std::string_view job_name, std::uint64_t key, const JobRequest& r, const JobProfile& p) {
  names.add(job_name);
  keys.push_back(key);
  requests.push_back(r);
  profiles.push_back(p);
  if (!after.empty()) after.push_back(kNoJob);
  if (!think_s.empty()) think_s.push_back(0);
  if (!time_limits.empty()) time_limits.push_back(0);
  return static_cast<JobId>(requests.size() - 1);
}

void Workload::set_time_limit(JobId job, Time limit) {
  if (time_limits.empty()) time_limits.assign(requests.size(), 0);
  const std::int64_t s = std::clamp<std::int64_t>(limit.sec(), 1, UINT32_MAX);
  time_limits[job] = static_cast<std::uint32_t>(s);
}

JobId Workload::add_after(JobId predecessor, std::string_view job_name, const JobRequest& r, const JobProfile& p,
                          Time think) {
  if (predecessor >= requests.size())
    throw std::logic_error("Workload::add_after: job " + std::to_string(predecessor) + " is not in the workload yet");
  const JobId job = add(job_name, r, p);
  set_after(job, predecessor, think);
  return job;
}

void Workload::set_after(JobId job, JobId predecessor, Time think) {
  if (predecessor >= job) throw std::logic_error("Workload::set_after: a job may only wait for an earlier one");
  if (after.empty()) after.assign(requests.size(), kNoJob);
  after[job] = predecessor;
  if (think <= Time{}) return;
  if (think_s.empty()) think_s.assign(requests.size(), 0);
  think_s[job] = static_cast<std::uint32_t>(std::min<std::int64_t>(think.sec(), UINT32_MAX));
}

}  // namespace acme
