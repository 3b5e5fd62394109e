// Alibaba's 2023 GPU-sharing pod list (cluster-trace-gpu-v2023, workloads/openb_trace.h), from the
// rows of tests/data/other_formats/openb_pod_list.csv worked out by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "harness.h"
#include "sim/error.h"
#include "workloads/acme_trace_reader.h"

namespace acme::test {

TEST_CASE("An Alibaba 2023 pod list reads: a pod a one-node job, a GPU share a whole GPU, no users", "[reader]") {
  std::vector<std::string> warnings;
  const std::string sample = (source_dir() / "tests/data/other_formats/openb_pod_list.csv").string();
  const Workload w = read_acme_trace(sample, {}, &warnings);
  REQUIRE(w.size() == 6);
  // 8 GPUs and 88 cores on one node, scheduled at creation, deleted 1,332,357 s later: completed.
  CHECK(w.names[0] == "openb-pod-0017");
  CHECK(w.requests[0].gpu_num == 8);
  CHECK(w.requests[0].cpu_num == 88);
  CHECK(w.requests[0].node_num == 1);
  CHECK(w.requests[0].submit == Time::seconds(9437497));
  CHECK(w.profiles[0].run == Time::seconds(10769854 - 9437497));
  CHECK(w.profiles[0].final_state == JobState::Completed);
  // 220 milli-GPUs: a whole GPU; deleted while running.
  CHECK(w.requests[1].gpu_num == 1);
  CHECK(w.profiles[1].final_state == JobState::Cancelled);
  // 3,152 milli-cores: 4 cores; failed.
  CHECK(w.requests[2].cpu_num == 4);
  CHECK(w.profiles[2].final_state == JobState::Failed);
  // Scheduled 5 s after creation.
  CHECK(*w.profiles[3].recorded_start() == Time::seconds(9967063));
  // No GPU: a CPU job.
  CHECK(w.requests[4].type == JobType::CPU);
  // Never scheduled: withdrawn at its deletion.
  CHECK(!w.profiles[5].recorded_start());
  CHECK(*w.profiles[5].cancel_pending_at() == Time::seconds(10001403));
  CHECK(w.users.size() == 1);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == ": 1 pods ask for part of a GPU (the trace shares GPUs): given a whole GPU");
  CHECK(warnings[1] == ": the trace names no users: every pod is user openb");
}

TEST_CASE("An Alibaba 2023 pod list with a bad cell stops with one line", "[reader]") {
  const std::filesystem::path dir = temp_dir("openb-bad");
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                             "deletion_time,scheduled_time\n";
  const auto read = [&](const std::string& row) {
    std::ofstream(dir / "pods.csv", std::ios::trunc) << header << row;
    return read_acme_trace((dir / "pods.csv").string(), {});
  };
  CHECK_THROWS_WITH(read("p,1000,1,1,1000,,LS,Evicted,10,20,10\n"),
                    Catch::EndsWith("pods.csv:2: pod_phase: unknown phase 'Evicted' (the trace's: Succeeded, Running, "
                                    "Pending, Failed)"));
  CHECK_THROWS_WITH(read("p,1000,1,1,1000,,LS,Running,20,10,10\n"),
                    Catch::EndsWith("pods.csv:2: deletion_time: before creation_time"));
  CHECK_THROWS_WITH(read("p,1000,1,1.5,1000,,LS,Running,10,20,10\n"),
                    Catch::EndsWith("pods.csv:2: num_gpu: expected a whole number of GPUs up to 64"));
  CHECK_THROWS_WITH(read("p,1000,1,1,1000,,LS,Running,10,20,10\np,1000,1,1,1000,,LS,Running,11,20,11\n"),
                    Catch::EndsWith("pods.csv:3: name: used by an earlier pod"));
  CHECK(read("p,1000,1,1,1000,,LS,Running,10,20,10\n").size() == 1);
  // Scheduled after its deletion: read as scheduled at it (a warning), so it ran for no time.
  const Workload late = read("p,1000,1,1,1000,,LS,Running,10,20,30\n");
  CHECK(*late.profiles[0].recorded_start() == Time::seconds(20));
  CHECK(late.profiles[0].run == Time{});
}

}  // namespace acme::test
