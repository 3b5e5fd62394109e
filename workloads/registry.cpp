#include "workloads/registry.h"

#include <string>

#include "sim/error.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/synthetic.h"

namespace acme {
namespace {

Workload load_trace(const RunConfig& c, const ClusterSpec&) {
  return read_acme_trace(c.workload_trace, TraceOptions{c.workload_from, c.workload_to, c.workload_lenient});
}

Workload load_synthetic(const RunConfig& c, const ClusterSpec& cluster) {
  return generate_workload(load_synthetic_model(c.workload_model), *c.workload_from, *c.workload_to,
                           c.workload_load, c.seed, cluster.gpus_per_node);
}

constexpr WorkloadSourceEntry kSources[] = {
    {"acmetrace", "an AcmeTrace CSV (workload.trace), trace_seren.csv or trace_kalos.csv schema, "
                  "rows selected by submit time in [workload.from, workload.to)",
     load_trace},
    {"synthetic", "jobs drawn in-process from a model of the published statistics (workload.model), "
                  "arrival rate x workload.load, seeded by seed",
     load_synthetic},
};

}  // namespace

std::span<const WorkloadSourceEntry> workload_source_table() { return kSources; }

Workload load_workload(const RunConfig& config, const ClusterSpec& cluster) {
  std::string valid;
  for (const WorkloadSourceEntry& e : kSources) {
    if (e.name == config.workload_source) return e.load(config, cluster);
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError(config.where("workload.source") + ": workload.source: unknown source '" +
                   config.workload_source + "' (valid: auto, " + valid + ")");
}

}  // namespace acme
