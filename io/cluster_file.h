// Reading a cluster file (configs/clusters/*.yaml) into a ClusterSpec (sim/cluster_spec.h).
#pragma once

#include <span>
#include <string>

#include "sim/cluster_spec.h"
#include "io/yaml_util.h"

namespace acme {

// Every key of a cluster file, with its doc and how to read and print it.
std::span<const Field<ClusterSpec>> cluster_spec_fields();

// Reads and validates a cluster file. Throws InputError naming file, line and key.
ClusterSpec load_cluster_spec(const std::string& path);

}  // namespace acme
