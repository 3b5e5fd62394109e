// The one table of workload sources: where a run's jobs come from (workload.source); each
// registers as every plugin does (io/registry.h), in workloads/registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/cluster_spec.h"
#include "io/config.h"
#include "sim/job.h"
#include "workloads/trace_cache.h"

namespace acme {

struct WorkloadSourceEntry {
  std::string_view name;
  std::string_view description;
  Workload (*load)(const RunConfig& config, const ClusterSpec& cluster);
  // For a source that can draw its jobs as the replay goes (else null): makes `w` the workload's
  // start (no jobs yet) and returns the feed of its jobs.
  std::unique_ptr<JobFeed> (*open)(const RunConfig& config, const ClusterSpec& cluster, Workload& w);
  int order = 1000;  // where it is listed: by order, then by name
  static constexpr std::string_view kKind = "workload source";
};

std::span<const WorkloadSourceEntry> workload_source_table();

// Throws InputError naming the workload.source key and the valid names for an unknown source.
Workload load_workload(const RunConfig& config, const ClusterSpec& cluster);
// The feed of the workload's jobs into `w`, for a source that has one; else null (and `w` as it
// was). The same jobs as load_workload.
std::unique_ptr<JobFeed> open_workload(const RunConfig& config, const ClusterSpec& cluster, Workload& w);
// The trace cache's settings of a run (cache.*); throws InputError for a key it does not know.
TraceCacheSettings trace_cache_settings(const RunConfig& config);
// Whether the jobs come from a trace file of any format (its Workload::source), not a generator.
bool is_trace(const Workload& w);
// "N jobs (S rows skipped)", and for a trace read with a window, how many of its rows the window
// kept: what the log says after loading.
std::string describe_loaded(const Workload& w);

}  // namespace acme
