// Helpers shared by the tests: small clusters, scenario runs, file reading.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "policies/registry.h"
#include "sim/simulation.h"
#include "workloads/acme_trace_reader.h"

namespace acme::test {

inline ClusterSpec small_cluster(int nodes, int gpus_per_node = 8, int cpus_per_node = 64) {
  ClusterSpec c;
  c.name = "test";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.cpus_per_node = cpus_per_node;
  c.nodes_per_leaf = 2;
  c.spines = 2;
  return c;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

inline std::filesystem::path source_dir() { return ACMESIM_SOURCE_DIR; }

// A fresh, empty folder under the system temp folder.
inline std::filesystem::path temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("acmesim-test-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

}  // namespace acme::test
