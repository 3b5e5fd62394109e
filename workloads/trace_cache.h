// The parsed-trace cache. The first read of a trace file stores what read_acme_trace returned
// (the Workload and the warnings it logged) in a binary file of a cache folder; later reads
// (replays, sweeps, every MPI rank) map it instead of parsing the CSV, then log the same
// warnings. The Workload's columns (requests, profiles, names) are views of the mapped file
// (sim/job_column.h; processes that map one entry share its pages), not copies. Same
// Workload, field by field, and the same warnings as an uncached read
// (tests/workloads/test_trace_cache.cpp). A replay in submit order reads the entry as it goes
// (TraceCacheFeed).
//
// Key: the trace's canonical path, size, modification time (ns) and a hash of its first and last
// 64 KiB; the options (from, to, lenient, feedback: an entry holds the rows they select, so
// each window is an entry of its own); the acmesim version; the format version
// (kTraceCacheVersion). An entry of one path and options with another key is rebuilt in place.
// Only a read that succeeds is cached (a trace with an error is parsed, and fails, every time),
// and only if the trace did not change while it was parsed.
//
// File: <dir>/<trace file name>.<16 hex digits: path and options>.acmecache, in the format of
// workloads/trace_cache_file.h. An entry shorter or longer than its header says, with another
// magic, version or key, a bad checksum, or a value out of range is never trusted: the trace is
// parsed and the entry rewritten.
// Writes go to a temporary file in the same folder, renamed over the entry: processes or threads
// that build one entry at once each write a whole file, and the last rename wins. No entry is
// written in place, so a mapping of one stays whole (an entry changed in place by hand while a
// run maps it may end that run with SIGBUS). A folder that cannot be created or written: one
// warning per process, and the run goes on uncached.
// Size: a read from an entry marks it used (its modification time); after writing one, the least
// recently used other entries are removed until the folder's entries fit in cache.max_mb.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/params.h"
#include "sim/job.h"
#include "workloads/acme_trace_reader.h"

namespace acme {

inline constexpr std::uint32_t kTraceCacheVersion = 7;  // bump when the file or what the reader returns changes

struct TraceCacheSettings {
  bool enabled = true;  // cache.enabled
  std::string dir;      // cache.dir; empty: default_trace_cache_dir()
  double max_mb = 4096;  // cache.max_mb: the entries' total size, 10^6 bytes; 0: no limit
};

// cache.enabled, cache.dir and cache.max_mb, from keys under the prefix "cache" (`acmesim list` shows them).
TraceCacheSettings read_trace_cache_settings(Params& p);

// $ACMESIM_CACHE_DIR, else $XDG_CACHE_HOME/acmesim, else $HOME/.cache/acmesim; empty if none is set.
std::string default_trace_cache_dir();

enum class TraceCacheUse {
  Off,       // settings.enabled false: parsed
  Hit,       // from the cache: not parsed
  Built,     // parsed, and the entry written
  Uncached,  // parsed, no entry written (no folder, unwritable, not a regular file, changed meanwhile)
};

struct CachedTrace {
  Workload workload;
  TraceCacheUse use = TraceCacheUse::Off;
  std::string entry;  // the cache file, when one was named
};

class TraceCacheFeed;

// The entry of one trace read with `options`, for a reader that parses the trace itself when the
// entry is missing (the streaming AcmeTraceFeed): load() or feed(), else parse and store().
class TraceCacheEntry {
 public:
  // Computes the key (stat, and the hash of the file's first and last 64 KiB); settings.enabled
  // false, no folder or not a regular file: an entry that is never there and stores nothing.
  TraceCacheEntry(const std::string& path, const TraceOptions& options, const TraceCacheSettings& settings);
  // The entry's file; empty when there is none.
  const std::string& file() const { return file_; }
  // The workload from the entry, its warnings logged again (with `warnings`, put there instead)
  // and the entry marked used; none when it is missing or not to be trusted.
  std::optional<Workload> load(std::vector<std::string>* warnings = nullptr) const;
  void log_warnings(const std::vector<std::string>& warnings) const;
  // The entry replayed as it is read, with `w` made the workload's start (no jobs; its source,
  // window, users and row counts), the entry's warnings logged and the entry marked used; null
  // when it is missing, of another key or version, damaged in its head, or its jobs wait for
  // others or are out of submit order (load() reads those).
  std::unique_ptr<TraceCacheFeed> feed(Workload& w) const;
  // Writes `w` and the warnings its parse logged as the entry, if the trace is still what the
  // key says, then trims the folder to cache.max_mb; whether it was written.
  bool store(const Workload& w, const std::vector<std::string>& warnings) const;

 private:
  std::string path_;
  TraceOptions options_;
  TraceCacheSettings settings_;
  std::string dir_, key_, file_;
  void note_used(Workload& w) const;  // w's source and window set, the entry marked used
};

// A cache entry replayed as it is read (a JobFeed, Simulation::set_feed): a thread of its own
// (with more than one reading thread, TraceOptions::threads; else append_next; started by
// map_ahead or the first append_next) checks the entry's chunks (workloads/trace_cache_file.h),
// at most 2 ahead of the replay, and maps the pages of the caller's arrays (map_ahead) their jobs
// will fill; append_next shows a checked chunk's jobs in the workload's views. The same workload
// as load(), without the replay's thread waiting for all of it. A damaged chunk throws WholeWorkloadNeeded from append_next (the entry's
// warnings, logged when the feed opened, are then logged again).
class TraceCacheFeed : public JobFeed {
 public:
  struct State;
  explicit TraceCacheFeed(std::unique_ptr<State> s);
  ~TraceCacheFeed() override;
  bool map_ahead(const std::vector<PerJobArray>& arrays) override;
  bool append_next(Workload& w) override;
  std::size_t expected_jobs() const override;

 private:
  std::unique_ptr<State> s_;
};

// read_acme_trace(path, options) through the cache. Throws what read_acme_trace throws; never
// fails for the cache's sake.
CachedTrace read_acme_trace_cached(const std::string& path, const TraceOptions& options,
                                   const TraceCacheSettings& settings);

}  // namespace acme
