// The trace cache's file (workloads/trace_cache.h): one entry, written whole, then mapped and
// checked chunk by chunk before any of a chunk's jobs is used. The jobs' requests and profiles
// are stored as they are in memory, so a reader shows them as views of the mapping
// (sim/job_column.h) instead of copying them.
//
//   header, 40 bytes: magic "acmeTRCH", u32 version (kTraceCacheVersion), u32 key bytes,
//                     u64 bytes after the header, u64 head bytes, u64 checksum of key and head
//   key (text)
//   head: counts (jobs, rows skipped, rows outside the window, name bytes, users, user bytes,
//         warnings, warning bytes, whether jobs wait for others, jobs a chunk, whether the jobs
//         come in submit order, the bytes of a JobRequest and of a JobProfile), then the users'
//         and the warnings' lengths and bytes
//   zero bytes up to a multiple of 64 from the file's start
//   requests: every job's JobRequest; profiles: every job's JobProfile (its padding zero)
//   chunks of `jobs a chunk` jobs (the last fewer), each: u64 body bytes, u64 checksum of the
//         chunk's requests, profiles and body (seeded with the chunk's number); body: the jobs'
//         `after` column if they wait, their names' lengths, then their names
// Host byte order and layout: a cache is not moved between machines. A file shorter or longer
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
  std::size_t name_bytes() const { return name_bytes_; }
  bool waits() const { return waits_; }  // Workload::after is kept
  bool in_submit_order() const { return sorted_; }
  // The workload's start: no jobs, its users and row counts, and its requests and profiles views
  // of the entry showing no job.
  const Workload& start() const { return start_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  std::size_t jobs_read() const { return next_job_; }
  bool done() const { return next_job_ == jobs_; }
  // Checks the next chunk and appends its jobs' names to `names` (and to `after` what they wait
  // for, if waits()); false, having appended nothing, if the chunk is damaged or the file ends
  // (or has more). Its jobs' requests and profiles are then shown by show().
  bool next(StringTable& names, std::vector<JobId>& after);
  // `w`'s requests and profiles: views of the jobs checked so far.
  void show(Workload& w) const;

 private:
  Reader() = default;
  std::shared_ptr<const void> mapping_;
  const char* file_ = nullptr;
  std::uint64_t size_ = 0, at_ = 0;  // the file's bytes; where the next chunk starts
  std::uint64_t dropped_ = 0;         // chunks' pages before this are no longer mapped (madvise)
  const JobRequest* requests_ = nullptr;
  const JobProfile* profiles_ = nullptr;
  std::size_t jobs_ = 0, name_bytes_ = 0, chunk_jobs_ = 0, next_job_ = 0, chunk_ = 0;
  bool waits_ = false, sorted_ = false;
  Workload start_;
  std::vector<std::string> warnings_;
};

}  // namespace acme::trace_cache_file
