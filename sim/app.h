// The commands of the acmesim executable; main.cpp parses the command line and calls these.
// This is the one place where the engine, the policies, the workloads and the sinks meet.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace acme {

struct RunArgs {
  std::string config;
  std::vector<std::string> overrides;  // key=value
  std::string out_dir = "out";
  bool progress = true;                // a progress line on stderr, when stderr is a terminal
};
int run_command(const RunArgs& args);

int list_command();

struct GenArgs {
  std::string cluster = "seren";  // seren | kalos: picks the schema and the default files
  std::string from, to;
  std::uint64_t seed = 1;
  double load = 1.0;
  std::string output;
  std::string model_file;    // default: configs/workloads/<cluster>.yaml
  std::string cluster_file;  // default: configs/clusters/<cluster>.yaml
};
int gen_command(const GenArgs& args);

// Help text listing every run configuration key with its default and meaning.
std::string config_keys_help();

}  // namespace acme
