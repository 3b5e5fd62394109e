#include "io/cluster_file.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace acme {
namespace {

template <class M>
Field<ClusterSpec> int_field(std::string_view key, std::string_view doc, M member, int min, int max) {
  return {key, doc,
          [member, min, max](ClusterSpec& c, const YamlValue& v) {
            c.*member = static_cast<int>(v.as_int(min, max));
          },
          [member](const ClusterSpec& c) { return std::to_string(c.*member); }};
}

template <class M>
Field<ClusterSpec> real_field(std::string_view key, std::string_view doc, M member, double min) {
  return {key, doc,
          [member, min](ClusterSpec& c, const YamlValue& v) {
            c.*member = v.as_double(min, std::numeric_limits<double>::max());
          },
          [member](const ClusterSpec& c) {
            std::string s = std::to_string(c.*member);
            s.erase(s.find_last_not_of('0') + 1);
            if (s.back() == '.') s.pop_back();
            return s;
          }};
}

template <class M>
Field<ClusterSpec> text_field(std::string_view key, std::string_view doc, M member) {
  return {key, doc, [member](ClusterSpec& c, const YamlValue& v) { c.*member = v.as_string(); },
          [member](const ClusterSpec& c) { return c.*member; }};
}

Field<ClusterSpec> fabric_field() {
  return {"fabric", "fat_tree (a node's NICs to its leaf) or rail_optimized (NIC i of a group's nodes to rail switch i)",
          [](ClusterSpec& c, const YamlValue& v) {
            const std::string name = v.as_string();
            for (std::size_t i = 0; i < std::size(kFabricNames); ++i)
              if (name == kFabricNames[i]) {
                c.fabric = static_cast<Fabric>(i);
                return;
              }
            v.fail("unknown fabric '" + name + "' (valid: fat_tree, rail_optimized)");
          },
          [](const ClusterSpec& c) { return std::string(kFabricNames[static_cast<std::size_t>(c.fabric)]); }};
}

}  // namespace

std::span<const Field<ClusterSpec>> cluster_spec_fields() {
  static const std::array<Field<ClusterSpec>, 18> kFields = {
      text_field("name", "cluster name, used in outputs", &ClusterSpec::name),
      int_field("nodes", "number of GPU nodes", &ClusterSpec::nodes, 1, 1'000'000),
      int_field("gpus_per_node", "GPUs per node", &ClusterSpec::gpus_per_node, 1, 64),
      text_field("gpu_model", "GPU model, informational", &ClusterSpec::gpu_model),
      int_field("gpu_memory_gb", "memory per GPU, GB", &ClusterSpec::gpu_memory_gb, 1, 1 << 20),
      real_field("nvlink_gbps", "NVLink bandwidth per GPU to the NVSwitch fabric, Gb/s",
                 &ClusterSpec::nvlink_gbps, 0.001),
      int_field("cpus_per_node", "CPU cores per node", &ClusterSpec::cpus_per_node, 1, 1 << 20),
      int_field("host_memory_gb", "host memory per node, GB", &ClusterSpec::host_memory_gb, 1, 1 << 24),
      int_field("nics_per_node", "InfiniBand NICs per node", &ClusterSpec::nics_per_node, 1, 64),
      real_field("nic_gbps", "bandwidth per NIC, Gb/s", &ClusterSpec::nic_gbps, 0.001),
      fabric_field(),
      int_field("nodes_per_leaf", "nodes under one leaf switch (rail_optimized: nodes per rail group)",
                &ClusterSpec::nodes_per_leaf, 1, 1 << 20),
      int_field("spines", "spine switches, each linked to every leaf (with pods: aggregation switches per pod)",
                &ClusterSpec::spines, 1, 1 << 16),
      real_field("oversubscription", "leaf downlink over uplink bandwidth", &ClusterSpec::oversubscription, 1.0),
      int_field("leaves_per_pod", "0: two switch levels; else three, pods of this many leaves (rail groups)",
                &ClusterSpec::leaves_per_pod, 0, 1 << 20),
      int_field("cores", "with pods: core switches, each linked to every aggregation switch", &ClusterSpec::cores, 1,
                1 << 16),
      real_field("pod_oversubscription", "with pods: aggregation downlink over core uplink bandwidth",
                 &ClusterSpec::pod_oversubscription, 1.0),
      real_field("storage_gbps", "bandwidth from each top-level switch (spine, or core) to the storage network, Gb/s",
                 &ClusterSpec::storage_gbps, 0.001),
  };
  return kFields;
}

ClusterSpec load_cluster_spec(const std::string& path) {
  ClusterSpec spec;
  const std::vector<YamlValue> values = read_yaml_file(path);
  apply_fields(cluster_spec_fields(), values, spec);
  // Totals are counted in int, and the topology graph holds a vertex per GPU.
  auto check_total = [&](std::string_view per_node, std::int64_t total, std::int64_t max) {
    if (total <= max) return;
    std::size_t line = 0;
    for (const YamlValue& v : values)
      if (v.key() == "nodes") line = v.line();
    throw_input_error(path, line, "nodes",
                      "nodes x " + std::string(per_node) + " is " + std::to_string(total) + ", more than the " +
                          std::to_string(max) + " a cluster may have");
  };
  check_total("gpus_per_node", std::int64_t{spec.nodes} * spec.gpus_per_node, kMaxClusterGpus);
  check_total("cpus_per_node", std::int64_t{spec.nodes} * spec.cpus_per_node, std::numeric_limits<int>::max());
  return spec;
}

}  // namespace acme
