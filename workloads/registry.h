// The one table of workload sources: where a run's jobs come from (workload.source).
#pragma once

#include <span>
#include <string_view>

#include "sim/cluster_spec.h"
#include "sim/config.h"
#include "sim/job.h"

namespace acme {

struct WorkloadSourceEntry {
  std::string_view name;
  std::string_view description;
  Workload (*load)(const RunConfig& config, const ClusterSpec& cluster);
};

std::span<const WorkloadSourceEntry> workload_source_table();

// Throws InputError naming the workload.source key and the valid names for an unknown source.
Workload load_workload(const RunConfig& config, const ClusterSpec& cluster);

}  // namespace acme
