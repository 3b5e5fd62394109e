// Reader of the Standard Workload Format (SWF 2.2; Feitelson et al., the Parallel Workloads
// Archive's format, which its logs and many schedulers' traces are written in), unchanged: a text
// file of header comments (lines opening with ';', "; UnixStartTime: 1029798000" among them) and a
// line a job of 18 fields separated by white space, -1 for a field not recorded. The AcmeTrace
// reader (workloads/acme_trace_reader.h) hands it a file that opens with a ';' line, or whose
// first line is 18 numbers.
//
// A line becomes a job of the workload (fields by their SWF numbers):
//  - Name: the job number (1). Submit: UnixStartTime (0 if the header gives none) + submit time (2).
//  - Start: submit + wait time (3); run time (4). A job cancelled (status 5) without a run time, or
//    without a wait time, never started: withdrawn at submit + wait (at submit if none). Any other
//    job without a run time cannot be replayed: skipped (counted in one warning). One with a run
//    time and no wait time (SWF's models record none) has no recorded start: a policy replay runs
//    it, a recorded replay leaves it waiting (counted in one warning).
//  - Processors (5, allocated; else 8, requested) are GPUs: SWF counts the unit a machine
//    allocates, and acmesim's is the GPU (an ASSUMPTION, said in one warning). Nodes: as few as
//    hold them at 8 GPUs (an ASSUMPTION, as for PAI's jobs). Cores: none recorded, cpu_num 0 (as
//    for Philly's). A job of no processors is skipped (counted in one warning).
//  - User: the user ID (12) as its text ("-1": not recorded). Type: Other, as for any trace
//    without a type.
//  - State: status (11) 1 COMPLETED, 0 FAILED, 5 CANCELLED, -1 (not recorded) COMPLETED. The lines
//    of a job's partial executions (status 2, 3, 4: checkpointed or swapped out and back) follow
//    its summary line under its number: skipped, the summary line is the job.
//  - Time limit: the requested time (9), rounded up to whole seconds (Workload::time_limits;
//    none when -1 or 0), what estimate.model recorded gives a backfilling policy.
//  - Preceding job (17) and think time (18), the log's feedback, read only with workload.feedback
//    (SwfOptions::feedback): a job whose preceding job is replayed waits for it and is submitted
//    its think time (-1: 0) after it ends, whatever its end (Workload::after, think_s), in place of
//    its recorded submit time; what a closed-loop simulation of the log's users needs. A job whose
//    preceding job is not replayed (outside the window, not replayable, or not in the log: counted
//    in one warning) is submitted when the log says. A cancelled job that never started is
//    withdrawn as long after its submission as the log says it waited.
//  - Not read: CPU time, memory, group, executable, queue, partition.
// Errors name the file, the line and the field, and throw InputError: a line of other than 18
// fields, a field that is no number, a status SWF does not define, a job number used twice. With
// workload.lenient (SwfOptions::lenient) such a line is skipped instead, counted in rows_skipped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"

namespace acme {

struct SwfOptions {
  std::optional<Time> from, to;  // jobs submitted in [from, to)
  bool lenient = false;          // a line with an error is skipped (counted, the first 5 named), not the end
  bool feedback = false;         // jobs wait for their preceding job (fields 17, 18), as above
};

// Whether a file whose first line is `first_line` is an SWF log: it opens with a header comment
// (';'), or is 18 numbers.
bool is_swf_log(std::string_view first_line);

// With `warnings`, each warning logged is also appended there without the leading path (as
// read_acme_trace's).
Workload read_swf_trace(const std::string& path, const SwfOptions& options, std::vector<std::string>* warnings = nullptr);

}  // namespace acme
