// The two AcmeTrace schemas, told apart by a trace file's header: Kalos's rows carry
// mem_per_pod_GB, shared_mem_per_pod, fail_time and stop_time, which Seren's have not (the reader
// needs neither set: workloads/acme_trace_reader.h). A run records its trace's schema in run.json
// and warns when it is the other cluster's (app/app.cpp); validate says when its --cluster is not
// the trace's schema.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "sim/cluster_spec.h"

namespace acme {

// Other: a trace in AcmeTrace's columns from elsewhere, without a `type` column (Helios's, or
// sacct's export, whose header is split at '|'): of no shipped cluster.
enum class TraceSchema { Seren, Kalos, Other };

// "seren" or "kalos": the name of the cluster whose trace has this schema; "other".
std::string_view name(TraceSchema s);

// Kalos if the header line names any of Kalos's own columns, Other if it has no `type` column,
// else Seren.
TraceSchema schema_of_header(std::string_view header);

// The schema of the trace file at `path`, from its first line (up to 64 KiB read); none if it
// cannot be opened or has no line.
std::optional<TraceSchema> read_trace_schema(const std::string& path);

// The one warning, if any, for replaying the trace `source` of schema `schema` (seren, kalos or
// other; empty: not a trace file, no warning) on `cluster`: the schema is the other shipped cluster's
// (for a cluster named seren or kalos), or `too_large` of its jobs need more nodes than the
// cluster has. It names the trace's schema and the cluster.
std::optional<std::string> trace_unlike_cluster(std::string_view source, std::string_view schema,
                                                const ClusterSpec& cluster, std::size_t too_large);

}  // namespace acme
