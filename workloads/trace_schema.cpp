#include "workloads/trace_schema.h"

#include <array>

#include "io/gzip_text.h"

namespace acme {

std::string_view name(TraceSchema s) {
  return s == TraceSchema::Kalos ? "kalos" : s == TraceSchema::Seren ? "seren" : "other";
}

TraceSchema schema_of_header(std::string_view header) {
  static constexpr std::array<std::string_view, 4> kKalosOnly = {"mem_per_pod_GB", "shared_mem_per_pod", "fail_time",
                                                                 "stop_time"};
  bool typed = false;
  for (std::size_t begin = 0; begin <= header.size();) {
    std::size_t end = header.find(',', begin);
    if (end == std::string_view::npos) end = header.size();
    std::string_view column = header.substr(begin, end - begin);
    while (!column.empty() && (column.back() == '\r' || column.back() == ' ')) column.remove_suffix(1);
    if (column.size() >= 2 && column.front() == '"' && column.back() == '"') column = column.substr(1, column.size() - 2);
    for (std::string_view k : kKalosOnly)
      if (column == k) return TraceSchema::Kalos;
    typed = typed || column == "type";
    begin = end + 1;
  }
  return typed ? TraceSchema::Seren : TraceSchema::Other;
}

std::optional<TraceSchema> read_trace_schema(const std::string& path) {
  const std::string line = gzip_text::head_through_line(path, 0, 64 * 1024);  // of its text, if compressed
  if (line.empty()) return std::nullopt;
  return schema_of_header(std::string_view(line).substr(0, line.find('\n')));
}

std::optional<std::string> trace_unlike_cluster(std::string_view source, std::string_view schema,
                                                const ClusterSpec& cluster, std::size_t too_large) {
  if (schema.empty()) return std::nullopt;
  const bool shipped = cluster.name == "seren" || cluster.name == "kalos";
  const bool other = shipped && schema != name(TraceSchema::Other) && cluster.name != schema;
  if (!other && too_large == 0) return std::nullopt;
  std::string text = std::string(source) + ": a trace of the " + std::string(schema) + " schema replayed on cluster " +
                     cluster.name + " (" + std::to_string(cluster.nodes) + " nodes of " +
                     std::to_string(cluster.gpus_per_node) + " GPUs)";
  if (other) text += ", the " + cluster.name + " schema's cluster: its jobs were sized for the other cluster";
  if (too_large > 0)
    text += std::string(other ? ", and " : ": ") + std::to_string(too_large) +
            " of its jobs need more nodes than the cluster has (REJECTED)";
  return text;
}

}  // namespace acme
