// Reader of the published AcmeTrace job traces, unchanged: trace_seren.csv and trace_kalos.csv.
//
// Columns are found by header name (extra columns are ignored, order does not matter). Required:
// job_id, user, node_num, gpu_num, cpu_num, state, submit_time, start_time, end_time; and type,
// but for a trace in these columns from elsewhere (Helios's cluster_log.csv), whose jobs with GPUs
// are read as Other and the others as CPU, with a warning. Timestamps carry their UTC offset
// (+08:00 in Seren, +00:00 in Kalos; also written +0800 or +08); one without (Helios's local
// times) is read at TraceOptions::utc_offset_s, or as UTC with a warning when none is given; Unix
// seconds are read too. Run time is always end_time - start_time (Kalos's `duration` includes
// queueing, so it is not used). Slurm's export (sacct --parsable2, '|'-separated) reads as such a
// trace: its fields (JobID, AllocTRES, ...) hold the columns (workloads/sacct_columns.h), its job
// steps are skipped with a warning, "Unknown" and "None" are times not come. A file that opens
// JSON is Philly's (io/philly_trace.h), a PAI job or task table (by its first line) is read with
// its partner (workloads/pai_trace.h), and Alibaba's 2023 pod list by workloads/openb_trace.h:
// each is read whole, and none by the rules below.
//
// Row rules:
//  - start_time empty: the job never started; it is withdrawn from the queue at end_time.
//    A CANCELLED job with start_time == end_time is treated the same way.
//  - end_time empty: only for RUNNING (the trace ended first); the job runs until the horizon,
//    workload.to if given, else the latest timestamp in the file.
//  - type and state: AcmeTrace's names in any case (Eval, eval); the states COMPLETED, FAILED,
//    CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, RUNNING, or one of Slurm's end states that
//    AcmeTrace does not use, read as the nearest of them: OUT_OF_MEMORY as FAILED, BOOT_FAIL as
//    NODE_FAIL, DEADLINE as TIMEOUT, REVOKED and sacct's "CANCELLED by <uid>" as CANCELLED,
//    SUSPENDED as PREEMPTED, PENDING as RUNNING (not started when the trace ends).
//  - gpu_num empty: 0 for CPU jobs, an error otherwise. node_num empty or 0: 1 for CPU-only jobs,
//    ceil(gpu_num / 8) otherwise. gpu_time and every other column are not read.
//  - end before start or before submit, a start before submit, a negative or non-numeric number,
//    an unknown type or state, a field missing from a truncated line, a NUL byte (a binary file),
//    a job id already used by a selected row: an error "file:line: column: what" (a duplicate
//    also names the line of the first).
//  - An empty file, or a header without rows, is an error; so is a line longer than 1 MiB.
//  - Accepted with a warning (one per file, with a count and the first line): gpu_num not a
//    multiple of node_num (spread as evenly as possible, sim/cluster.h), Slurm's states read as
//    AcmeTrace's, timestamps without an offset read as UTC, no type column, rows out of submit order
//    (jobs are released in submit order all the same), a window that selects no row.
//
// The window [from, to) selects rows by submit time. With `lenient`, a malformed row (of two with
// one id, the later) is skipped, counted in Workload::rows_skipped and reported (the first few
// with their message); a line longer than 1 MiB still stops reading.
//
// On one thread the file streams through a 1 MiB buffer: memory grows with the jobs selected,
// not with the file (duplicate ids are looked for among the selected rows: 16 bytes a row, and 2
// to 4 of a filter, while reading). On N threads (a regular file under 4 GiB; the text of
// read_acme_trace_text likewise) the file is mapped, cut into N parts at line starts, each part
// read on its own thread and the parts joined in file order: user ids, duplicate ids, warnings
// and the first error are those of one reader. Each part gives its pages back every MiB read,
// so little of the file is held at once, but the jobs of all parts but the first are held twice
// while they are joined (about 84 bytes a job). REQUIRES: nobody truncates the file while it is
// read on several threads (a mapped page past its new end kills the process with SIGBUS).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"

namespace acme {

struct TraceOptions {
  std::optional<Time> from;
  std::optional<Time> to;
  bool lenient = false;
  // An SWF log's jobs wait for their preceding job (SwfOptions::feedback); other formats record none.
  bool feedback = false;
  // Seconds east of UTC of the trace's timestamps that carry no offset (Helios's); none: read as
  // UTC, with a warning.
  std::optional<int> utc_offset_s;
  // Threads that read the rows; 0: std::thread::hardware_concurrency(). Any number gives the
  // same Workload, warnings and errors; 1 streams the file as described above.
  unsigned threads = 0;
};

// The threads a read with `options` uses: TraceOptions::threads, or for 0 every core.
unsigned reading_threads(const TraceOptions& options);

// The format of the trace file at `path`, told from its first line (JSON's first byte), read once:
// AcmeTrace's columns (Helios's and sacct's read as those), or one read whole by a reader of its
// own. Each format is one entry of a table in acme_trace_reader.cpp (its test, its source name,
// its reader), tried in order, AcmeTrace's last.
enum class TraceFormat : std::uint8_t { AcmeTrace, Philly, Pai, PodList, Swf };
TraceFormat trace_format(const std::string& path);

// What a read of `path` names as the workload's source (Workload::source): "AcmeTrace <path>",
// or for a trace of another format, "Philly <path>", "PAI <path>", "openb <path>" or "SWF <path>".
std::string trace_source(const std::string& path);
// Whether a workload's source names a trace file (of any format) rather than a generator.
bool is_trace_source(std::string_view source);

// Reads the file at `path` (workloads/trace_cache.h reads it through a cache). With `warnings`, each
// warning logged is also appended there, without the leading path ("path: 3 rows are ..." gives
// ": 3 rows are ..."), so that the trace cache can log them again.
Workload read_acme_trace(const std::string& path, const TraceOptions& options,
                         std::vector<std::string>* warnings = nullptr);

// The same on text in memory; `name` stands for the file name in errors (a file compressed with
// gzip, io/gzip_text.h, is read so).
Workload read_acme_trace_text(std::string_view text, std::string_view name, const TraceOptions& options,
                              std::vector<std::string>* warnings = nullptr);

// A trace read while it is replayed (a JobFeed, Simulation::set_feed). The file is cut at line
// starts into chunks of 1 MiB that threads - 1 workers (TraceOptions::threads; started by
// map_ahead or the first append_next) read ahead with pread, in order (with none, append_next
// reads them), one of them mapping the pages of the workload (and map_ahead's arrays) as it goes;
// append_next joins them into the workload one by one as read_acme_trace joins its parts: the
// same Workload in the end, the same warnings, and the same first row error, thrown from
// append_next. Strict reading only (a lenient one drops
// duplicate ids at the end, which renumbers jobs). A row submitted before one above it (from
// append_next), or a job id used twice (from finish(): ids are checked on a thread of their own
// once the trace is in, and the error names lines the feed does not keep), throws
// WholeWorkloadNeeded: read the trace whole instead. A RUNNING row without an end, with no window
// end, waits for every chunk (its horizon is the file's latest timestamp). Memory: a filter of 1
// to 3 bytes a job for the ids, and at most 2 chunks read ahead of the replay.
class AcmeTraceFeed : public JobFeed {
 public:
  // Null for lenient options, or a file it cannot cut (not a regular file, empty, 4 GiB or
  // more); else the feed, with `w` made the workload's start (no jobs; its source and window).
  // Throws InputError for a bad header.
  static std::unique_ptr<AcmeTraceFeed> open(const std::string& path, const TraceOptions& options, Workload& w);
  ~AcmeTraceFeed() override;
  bool map_ahead(const std::vector<PerJobArray>& arrays) override;
  bool append_next(Workload& w) override;
  std::size_t expected_jobs() const override;
  void finish() override;
  // Called once, if set, when append_next has joined the whole trace without error: the whole
  // workload and the warnings logged (as read_acme_trace's `warnings`). On a thread of its own,
  // which the feed's destruction waits for.
  std::function<void(const Workload&, const std::vector<std::string>&)> on_whole;

  struct State;
  explicit AcmeTraceFeed(std::unique_ptr<State> s);

 private:
  std::unique_ptr<State> s_;
};

}  // namespace acme
