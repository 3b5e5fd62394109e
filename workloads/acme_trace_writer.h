// Writes jobs as an AcmeTrace CSV in the exact schema of trace_seren.csv (timestamps +08:00) or
// trace_kalos.csv (+00:00, with its extra columns), so that the reader replays it unchanged.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "sim/outcome.h"
#include "workloads/trace_schema.h"

namespace acme {

// Jobs that never started are written with an empty start_time; `outcomes` gives the times.
void write_acme_trace(const std::filesystem::path& path, TraceSchema schema, const Workload& w,
                      const std::vector<JobOutcome>& outcomes);

}  // namespace acme
