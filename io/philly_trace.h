// Reader of Microsoft's Philly job trace (msr-fiddle/philly-traces, `cluster_job_log`; Jeon et al.,
// ATC '19), unchanged: a JSON array of jobs, each with `jobid`, `user`, `status`,
// `submitted_time` and its `attempts` (a run each: `start_time`, `end_time`, and `detail`, the
// machines it ran on with their `gpus`). The AcmeTrace reader (workloads/acme_trace_reader.h)
// hands it a file whose first byte past white space is '[' or '{'; it lives here, the home of JSON.
//
// A job becomes one of the workload's, by the AcmeTrace reader's rules where they apply:
//  - GPUs and nodes: its first attempt that ran on machines (the GPUs listed, the machines); a job
//    none of whose attempts ran on a machine names no size: skipped, with a warning counting them.
//  - Cores: none (Philly records none): cpu_num 0, an assumption.
//  - Type: Other (a job without GPUs: CPU), as for any trace without a type.
//  - Start: its first attempt's. Run time: its attempts' run times added up (a retry's wait for
//    its next attempt is not GPU time); an attempt without an end runs to the horizon (the window's
//    end, else the latest time in the file), and so does the job, as AcmeTrace's RUNNING rows.
//    A job that never started is withdrawn at its last attempt's end, else at submission.
//  - State: Pass as COMPLETED, Killed as CANCELLED, Failed as FAILED; an attempt still running as
//    RUNNING. Any other status is an error.
//  - Times ("2017-10-07 17:21:10", "None" for none) carry no offset: read at `utc_offset_s`, else
//    as UTC with a warning.
// Errors name the file, the job (its place in the array and jobid) and the key, and throw
// InputError; so does JSON that does not parse (with its byte offset). The file is parsed whole
// (nlohmann/json): 120,000 jobs, 39 MB of JSON, took 2.0 s and 339 MB at the peak here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"

namespace acme {

struct PhillyOptions {
  std::optional<Time> from, to;     // jobs submitted in [from, to)
  std::optional<int> utc_offset_s;  // of the trace's times; none: UTC, with a warning
};

// Whether the text's first byte past white space (and a UTF-8 byte-order mark) opens JSON (`head`:
// a file's first bytes, workloads/acme_trace_reader.h's trace_format).
bool is_json_text(std::string_view head);

// With `warnings`, each warning logged is also appended there without the leading path (as
// read_acme_trace's).
Workload read_philly_trace(const std::string& path, const PhillyOptions& options,
                           std::vector<std::string>* warnings = nullptr);

}  // namespace acme
