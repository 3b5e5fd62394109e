// The trace cache's file (workloads/trace_cache.h): one entry, written whole, then mapped and
// checked chunk by chunk before any of a chunk's jobs is used. The jobs' columns are stored as
// they are in memory, so a reader shows them as views of the mapping (sim/job_column.h) instead
// of copying them.
//
//   header, 40 bytes: magic "acmeTRCH", u32 version (kTraceCacheVersion), u32 key bytes,
//                     u64 bytes after the header, u64 head bytes, u64 checksum of key and head
//   key (text)
//   head: counts (jobs, rows skipped, rows outside the window, name bytes, users, user bytes,
//         warnings, warning bytes, whether jobs wait for others, jobs a chunk, whether the jobs
//         come in submit order, the bytes of a JobRequest and of a JobProfile, whether time
//         limits are recorded), then the users'
//         and the warnings' lengths and bytes
//   zero bytes up to a multiple of 64 from the file's start, then the columns:
//   requests: every job's JobRequest; profiles: every job's JobProfile (its padding zero);
//   keys: every job's u64 key (Workload::keys, job_key of its name); name offsets: u32, one a job
//   and one more (the first 0, the last the name bytes); after and think times: u32 a job each,
//   if jobs wait; time limits: u32 a job, if any is recorded; names: the job names back to back;
//   zero bytes up to a multiple of 8, then a u64 checksum for each chunk of `jobs a chunk` jobs
//   (the last fewer), of its jobs' columns (seeded with the chunk's number)
// Host byte order and layout: a cache is not moved between machines. A file of another length
// than its header says, of another magic, version, key or layout, with a bad checksum or a value
// out of range is not trusted.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/job.h"

namespace acme::trace_cache_file {

// XXH64's structure: a checksum, not a cryptographic hash, at several GB/s.
std::uint64_t hash_bytes(const char* p, std::size_t n, std::uint64_t seed);

// Writes the entry of `w` and its parse's warnings under `key` to `f`; false on a write error.
bool write(std::FILE* f, const std::string& key, const Workload& w, const std::vector<std::string>& warnings);

// An entry mapped read-only, checked chunk by chunk. Not thread-safe; what it shows stays valid
// while a view of it lives, the Reader gone or not.
class Reader {
 public:
  // The entry in the open file `fd` (not owned; it may be closed after), its header, key and head
  // checked: none, with `why`, when it is not the entry of `key` or is damaged.
  static std::optional<Reader> open(int fd, const std::string& key, const char*& why);
  std::size_t jobs() const { return jobs_; }
  bool waits() const { return waits_; }  // Workload::after is kept
  bool in_submit_order() const { return sorted_; }
  // The workload's start: its users and row counts, and views of the entry's columns showing no job.
  const Workload& start() const { return start_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  std::size_t jobs_read() const { return next_job_; }
  bool done() const { return next_job_ == jobs_; }
  // Checks the next chunk's jobs (checksum, values in range); false if it is damaged or there is none.
  bool next();
  // `w`'s columns (requests, profiles, keys, names, after, think_s, time_limits): views of the jobs checked so far.
  void show(Workload& w) const;

 private:
  Reader() = default;
  std::shared_ptr<const void> mapping_;
  const JobRequest* requests_ = nullptr;  // the columns, in the mapping
  const JobProfile* profiles_ = nullptr;
  const std::uint64_t* keys_ = nullptr;
  const std::uint32_t* offsets_ = nullptr;
  const JobId* after_ = nullptr;  // none unless waits()
  const std::uint32_t* think_ = nullptr;  // Workload::think_s; none unless waits()
  const std::uint32_t* limits_ = nullptr;  // Workload::time_limits, if recorded
  const char* names_ = nullptr;
  const std::uint64_t* sums_ = nullptr;  // a chunk's checksum
  std::size_t jobs_ = 0, name_bytes_ = 0, chunk_jobs_ = 0, next_job_ = 0, chunk_ = 0;
  bool waits_ = false, sorted_ = false;
  Workload start_;
  std::vector<std::string> warnings_;
};

}  // namespace acme::trace_cache_file
