// The Acme baseline on traces unlike the synthetic ones: its limits and reservation never make a
// job unrunnable, and its queueing delay splits into a wait and a launch.
#include <catch2/catch.hpp>

#include <fstream>

#include "harness.h"
#include "app/app.h"

namespace acme::test {
namespace {

// A day of Seren-schema jobs: a burst of evaluation jobs of 64 to 1,024 GPUs by one user (larger
// than the shipped evaluation cap, and than the nodes left beside the pretraining reservation),
// between small evaluation and pretraining jobs.
std::filesystem::path big_evaluations(const std::filesystem::path& dir) {
  const auto path = dir / "big_eval.csv";
  std::ofstream f(path);
  f << "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
  int id = 1;
  auto row = [&](const char* user, int gpus, const char* type, int at_s, int run_s) {
    const int nodes = (gpus + 7) / 8;
    auto stamp = [](int s) {
      char b[40];
      std::snprintf(b, sizeof b, "2023-03-01 %02d:%02d:%02d+08:00", s / 3600, s / 60 % 60, s % 60);
      return std::string(b);
    };
    f << id++ << "," << user << "," << nodes << "," << gpus << "," << gpus * 16 << "," << type << ",COMPLETED,"
      << stamp(at_s) << "," << stamp(at_s) << "," << stamp(at_s + run_s) << "," << run_s << ",0," << gpus * run_s
      << ".0\n";
  };
  for (int i = 0; i < 40; ++i) row("u1", 1 << (6 + i % 5), "Eval", 600 + 30 * i, 1800);  // 64 .. 1,024 GPUs
  for (int i = 0; i < 60; ++i) row("u2", 1, "Eval", 60 * i, 600);
  for (int i = 0; i < 4; ++i) row("u3", 512, "Pretrain", 3600 * i, 7200);
  return path;
}

}  // namespace

TEST_CASE("Evaluation jobs of 64 to 1,024 GPUs all run under the Acme baseline, none REJECTED", "[baseline]") {
  const auto dir = temp_dir("big-eval");
  for (const char* config : {"configs/seren.yaml", "configs/kalos.yaml"}) {
    INFO(config);
    RunArgs args;
    args.config = (source_dir() / config).string();
    args.overrides = {"workload.trace=" + big_evaluations(dir).string(), "outputs=jobs"};
    args.out_dir = (dir / "out").string();
    args.progress = false;
    REQUIRE(run_command(args) == 0);
    const std::vector<std::string> rows = lines_of(read_file(dir / "out" / "jobs.csv"));
    REQUIRE(rows.size() == 105);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      INFO(rows[i]);
      CHECK(rows[i].find(",COMPLETED,") != std::string::npos);
      CHECK(rows[i].find("REJECTED") == std::string::npos);
    }
  }
}

}  // namespace acme::test
