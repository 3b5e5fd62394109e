// Reader of Alibaba's 2023 GPU-sharing cluster trace (alibaba/clusterdata, cluster-trace-gpu-v2023;
// Weng et al., ATC '23), unchanged: a pod list (`openb_pod_list_default.csv` and its samples), a
// CSV whose header names name, cpu_milli, num_gpu, gpu_milli, pod_phase, creation_time,
// deletion_time and scheduled_time (its other columns are not read). The AcmeTrace reader
// (workloads/acme_trace_reader.h) hands it a file whose first line names them.
//
// A pod becomes a job of the workload:
//  - Submit: creation_time; start: scheduled_time (empty: never scheduled); end: deletion_time.
//    Times are seconds from the trace's start, read as Unix time (1970-01-01 is its first day).
//    A pod never scheduled is withdrawn at its deletion; one scheduled outside its life is read as
//    scheduled at its nearer end (counted in one warning).
//  - GPUs: num_gpu (0 to 8); a share of one GPU (gpu_milli below 1000) is a whole GPU (the trace
//    shares GPUs, acmesim does not: an assumption, the pods concerned counted in one warning).
//    Cores: cpu_milli / 1000 rounded up. Nodes: 1 (a pod runs on one node).
//  - User: none is recorded: every pod is user "openb". Type: Other (no GPU: CPU), as for any trace
//    without a type.
//  - State: Succeeded as COMPLETED, Failed as FAILED, Running as CANCELLED (deleted while running),
//    Pending as CANCELLED (never scheduled). Any other phase is an error.
// Errors name the file, its line and the column, and throw InputError.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"

namespace acme {

struct OpenbOptions {
  std::optional<Time> from, to;  // pods created in [from, to)
};

// Whether a file's first line is an Alibaba 2023 pod list's header (as above).
bool is_openb_pod_list(std::string_view first_line);

// With `warnings`, each warning logged is also appended there without the leading path (as
// read_acme_trace's).
Workload read_openb_pod_list(const std::string& path, const OpenbOptions& options,
                             std::vector<std::string>* warnings = nullptr);

}  // namespace acme
