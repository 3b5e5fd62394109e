// Reader of the published AcmeTrace job traces, unchanged: trace_seren.csv and trace_kalos.csv.
//
// Columns are found by header name (extra columns are ignored, order does not matter). Required:
// job_id, user, node_num, gpu_num, cpu_num, type, state, submit_time, start_time, end_time.
// Timestamps carry their UTC offset (+08:00 in Seren, +00:00 in Kalos). Run time is always
// end_time - start_time (Kalos's `duration` includes queueing, so it is not used).
//
// Row rules:
//  - start_time empty: the job never started; it is withdrawn from the queue at end_time.
//    A CANCELLED job with start_time == end_time is treated the same way.
//  - end_time empty: only for RUNNING (the trace ended first); the job runs until the horizon,
//    workload.to if given, else the latest timestamp in the file.
//  - gpu_num empty: 0 for CPU jobs, an error otherwise. node_num empty or 0: 1 for CPU-only jobs,
//    ceil(gpu_num / 8) otherwise. gpu_time and every other column are not read.
//  - end before start or before submit, a start before submit, a negative or non-numeric number,
//    an unknown type or state: an error "file:line: column: what".
//
// The window [from, to) selects rows by submit time. The file streams through a 1 MiB buffer:
// memory grows with the jobs selected, not with the file. With `lenient`, a malformed row is
// skipped, counted in Workload::rows_skipped and reported (the first few with their message).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/job.h"

namespace acme {

struct TraceOptions {
  std::optional<Time> from;
  std::optional<Time> to;
  bool lenient = false;
};

Workload read_acme_trace(const std::string& path, const TraceOptions& options);

// The same on text in memory; `name` stands for the file name in errors.
Workload read_acme_trace_text(std::string_view text, std::string_view name, const TraceOptions& options);

}  // namespace acme
