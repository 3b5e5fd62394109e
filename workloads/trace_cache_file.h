// The trace cache's file (workloads/trace_cache.h): one entry, written whole and read back chunk
// by chunk, each chunk checked before any of its jobs is used.
//
//   header, 40 bytes: magic "acmeTRCH", u32 version (kTraceCacheVersion), u32 key bytes,
//                     u64 bytes after the header, u64 head bytes, u64 checksum of key and head
//   key (text)
//   head: counts (jobs, rows skipped, rows outside the window, name bytes, users, user bytes,
//         warnings, warning bytes, whether jobs wait for others, jobs a chunk, whether the jobs
//         come in submit order), then the users'
//         and the warnings' lengths and bytes
//   chunks of `jobs a chunk` jobs (the last fewer), each: u64 body bytes, u64 checksum of the body
//         (seeded with the chunk's number), body: the jobs column by column, then their names
// Host byte order: a cache is not moved between machines. A file shorter or longer than its header
// says, of another magic, version or key, with a bad checksum or a value out of range is not
// trusted.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "sim/job.h"

namespace acme::trace_cache_file {

// XXH64's structure: a checksum, not a cryptographic hash, at several GB/s.
std::uint64_t hash_bytes(const char* p, std::size_t n, std::uint64_t seed);

// Writes the entry of `w` and its parse's warnings under `key` to `f`; false on a write error.
bool write(std::FILE* f, const std::string& key, const Workload& w, const std::vector<std::string>& warnings);

// An entry read with pread, chunk by chunk. Not thread-safe.
class Reader {
 public:
  // The entry in the open file `fd` (not owned), its header, key and head checked: none, with
  // `why`, when it is not the entry of `key` or is damaged.
  static std::optional<Reader> open(int fd, const std::string& key, const char*& why);
  std::size_t jobs() const { return jobs_; }
  std::size_t name_bytes() const { return name_bytes_; }
  bool waits() const { return waits_; }  // Workload::after is kept
  bool in_submit_order() const { return sorted_; }
  // The workload's start (no jobs; its users and row counts) and the warnings of the parse.
  const Workload& start() const { return start_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  std::size_t jobs_read() const { return next_job_; }
  bool done() const { return next_job_ == jobs_; }
  // Appends the next chunk's jobs to `w` (requests, profiles, names, and `after` if waits());
  // false, having appended nothing, if the chunk is damaged or the file ends (or has more).
  bool next(Workload& w);

 private:
  Reader() = default;
  bool read(std::uint64_t at, std::uint64_t n, std::vector<char>& out) const;
  int fd_ = -1;
  std::uint64_t size_ = 0, at_ = 0;  // the file's bytes; where the next chunk starts
  std::size_t jobs_ = 0, name_bytes_ = 0, chunk_jobs_ = 0, next_job_ = 0, chunk_ = 0;
  bool waits_ = false, sorted_ = false;
  Workload start_;
  std::vector<std::string> warnings_;
  std::vector<char> body_;
};

}  // namespace acme::trace_cache_file
