// Reader of Alibaba PAI's GPU trace (alibaba/clusterdata, cluster-trace-gpu-v2020; Weng et al.,
// NSDI '22), unchanged: its job table (`pai_job_table.csv`: job_name, inst_id, user, status,
// start_time, end_time) and task table (`pai_task_table.csv`: job_name, task_name, inst_num,
// status, start_time, end_time, plan_cpu, plan_mem, plan_gpu, gpu_type) together. Either may be
// given as the trace; the other is read from beside it (its name with `job_table` and `task_table`
// swapped). The release ships both without a header line and each header in a `.header` file
// beside it (`pai_job_table.header`): a table's columns are its first line if that names them (in
// any order), else its `.header` file's, else the published order. The AcmeTrace reader
// (workloads/acme_trace_reader.h) hands it any file whose first line is such a table's.
//
// A job of the job table becomes one of the workload's, by the AcmeTrace reader's rules where
// they apply:
//  - Submit: the job's start_time (PAI's submission time); times are seconds (PAI's desensitized
//    clock, read as Unix time: the same time of day in UTC+8 as the original trace, fake dates).
//  - Start: its tasks' earliest start_time (0 or empty: the task never started); end: the job's
//    end_time, else its tasks' latest. A job still Running runs to the horizon (the window's end,
//    else the latest time in the tables), as AcmeTrace's RUNNING rows. A job none of whose tasks
//    started (Waiting, or failed before) is withdrawn at its end, else at the horizon; a task that
//    started before its job's submission is read as started at it (counted in one warning).
//  - GPUs: each task's inst_num instances times its plan_gpu (percent of a GPU) rounded up to whole
//    GPUs per instance (PAI shares GPUs between instances, acmesim does not: an assumption, the
//    jobs concerned counted in one warning). Cores: inst_num times plan_cpu / 100, rounded up.
//  - Nodes: as few as hold the GPUs and cores at 8 GPUs and 128 cores a node, the Acme clusters'
//    (an assumption: PAI places instances on machines only in its instance table, not read).
//  - Type: Other (a job without GPUs: CPU), as for any trace without a type.
//  - State: Terminated as COMPLETED, Failed as FAILED, Running as RUNNING, Waiting as CANCELLED
//    (it never started). Any other job status is an error.
// A job with no task is skipped, and so is a task of no job of the job table, each counted in one
// warning. Errors name the table, its line and the column, and throw InputError.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"

namespace acme {

struct PaiOptions {
  std::optional<Time> from, to;  // jobs submitted in [from, to)
};

// Whether the file at `path`, whose first line is `first_line`, is a PAI job or task table (by that
// line, or its `.header` file, as above).
bool is_pai_table(std::string_view first_line, const std::string& path);

// The files a read of the PAI table at `path` reads besides it (its partner table and the
// `.header` files that exist), for a cache's key; none for a file that is not a PAI table.
std::vector<std::string> pai_companions(const std::string& path);

// With `warnings`, each warning logged is also appended there without the leading path (as
// read_acme_trace's).
Workload read_pai_trace(const std::string& path, const PaiOptions& options,
                        std::vector<std::string>* warnings = nullptr);

}  // namespace acme
