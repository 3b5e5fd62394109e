// Helpers shared by the tests: small clusters, scenario runs, file reading.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "features/launch.h"
#include "policies/registry.h"
#include "sim/error.h"
#include "sim/simulation.h"
#include "sim/sink.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/estimates.h"
#include "workloads/synthetic.h"

namespace acme::test {

// The message of the InputError that `f()` throws, or "no error".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// The reader's error for the trace `text` (named t.csv), or "no error".
inline std::string trace_error(const std::string& text, TraceOptions opt = {}) {
  return error_of([&] { read_acme_trace_text(text, "t.csv", opt); });
}

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

// The environment variable's number, or `fallback` when it is unset or empty (the randomized
// tests' case counts and seeds).
inline std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

inline std::filesystem::path source_dir() { return ACMESIM_SOURCE_DIR; }

// Every registered policy's name, in table order, comma-separated (as an unknown name's error
// lists them): the shipped ones, fifo first, then any the test binary registers.
inline std::string policy_names() {
  std::string out;
  for (const PolicyEntry& e : policy_table()) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

// A fresh, empty folder under the system temp folder. Its name holds a hash of the current folder
// (ctest runs the tests in the build's tests folder), so that two builds tested at the same time
// do not write into each other's folders.
inline std::filesystem::path temp_dir(const std::string& name) {
  const std::size_t build = std::hash<std::string>{}(std::filesystem::current_path().string()) % 1000000;
  const auto p = std::filesystem::temp_directory_path() / ("acmesim-test-" + std::to_string(build) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

inline const Time kGoldenBase = *parse_timestamp("2023-03-01 00:00:00+00:00");
// Seconds from kGoldenBase to `t`. REQUIRES: t is set.
inline std::int64_t at(const std::optional<Time>& t) { return (*t - kGoldenBase).sec(); }

// Replays a golden trace (tests/golden/) and renders each job, in trace order, as
// "job_id,state,start,end,queue_s,gpu_seconds,preemptions,wasted_gpu_seconds" with times in seconds
// after kGoldenBase. `settings` are "policy.key=value" or "estimate.key=value" assignments.
inline std::vector<std::string> replay_golden(const std::string& trace, const ClusterSpec& cluster,
                                              const std::string& policy, ReplayMode mode,
                                              const std::vector<std::string>& settings = {},
                                              Sink* sink = nullptr) {
  const Workload w = read_acme_trace((source_dir() / "tests" / "golden" / trace).string(), {});
  std::vector<YamlValue> policy_values, estimate_values, launch_values;
  for (const std::string& s : settings)
    (s.rfind("policy.", 0) == 0 ? policy_values : s.rfind("launch.", 0) == 0 ? launch_values : estimate_values)
        .push_back(yaml_override(s));
  Params policy_params("policy", policy_values), estimate_params("estimate", estimate_values);
  Params launch_params("launch", launch_values);
  const LaunchModel launch = read_launch_model(launch_params);
  Simulation sim(w, cluster, make_policy(policy, policy_params), mode, make_estimates(w, estimate_params, 1));
  if (launch.enabled()) sim.add_feature(launch_feature(launch, false));
  if (sink) sim.add_sink(*sink);
  sim.run();
  const Conservation c = sim.check_conservation();
  auto rel = [](const std::optional<Time>& t) { return t ? std::to_string(at(t)) : ""; };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobOutcome& o = sim.outcomes()[i];
    const std::string queue = o.start ? std::to_string((*o.start - w.requests[i].submit).sec()) : "";
    out.push_back(std::string(w.names[static_cast<std::uint32_t>(i)]) + "," + std::string(name(o.state)) + "," +
                  rel(o.start) + "," + rel(o.end) + "," + queue + "," + std::to_string(o.gpu_seconds) + "," +
                  std::to_string(o.preemptions) + "," + std::to_string(o.wasted_gpu_seconds));
  }
  if (sink) sink->finish(RunRecord{w, cluster, mode, sim.outcomes(), {}, c, sim.window_gpu_seconds()});
  return out;
}

// Every field of every job, in order (users by name), and each job's key that of its name.
inline void check_same_jobs(const Workload& a, const Workload& b) {
  REQUIRE(a.size() == b.size());
  REQUIRE(a.names.size() == b.names.size());
  REQUIRE(a.keys.size() == a.size());
  REQUIRE(b.keys.size() == b.size());
  for (JobId j = 0; j < a.size(); ++j) {
    INFO("job " << j);
    const JobRequest &x = a.requests[j], &y = b.requests[j];
    const JobProfile &p = a.profiles[j], &q = b.profiles[j];
    CHECK(a.names[j] == b.names[j]);
    CHECK(a.keys[j] == job_key(a.names[j]));
    CHECK(b.keys[j] == job_key(b.names[j]));
    CHECK(a.users[x.user] == b.users[y.user]);
    CHECK(x.submit == y.submit);
    CHECK(x.gpu_num == y.gpu_num);
    CHECK(x.node_num == y.node_num);
    CHECK(x.cpu_num == y.cpu_num);
    CHECK(x.type == y.type);
    CHECK(p.run == q.run);
    CHECK(p.final_state == q.final_state);
    CHECK(p.idle_share == q.idle_share);
    CHECK(p.recorded_start() == q.recorded_start());
    CHECK(p.cancel_pending_at() == q.cancel_pending_at());
    CHECK(a.time_limit(j) == b.time_limit(j));
    CHECK(a.waits(j) == b.waits(j));
    if (a.waits(j) && b.waits(j)) CHECK(a.after[j] == b.after[j]);
    CHECK(a.think_time(j) == b.think_time(j));
  }
}

// The shipped workload model of `cluster` (configs/workloads/CLUSTER.yaml).
inline SyntheticModel shipped_model(const std::string& cluster) {
  return load_synthetic_model((source_dir() / ("configs/workloads/" + cluster + ".yaml")).string());
}

// A job that runs `seconds` and completes.
inline JobProfile runs_for(std::int64_t seconds) {
  JobProfile p;
  p.run = Time::seconds(seconds);
  return p;
}

// The header of an AcmeTrace Seren file.
inline const std::string kHeader =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n";

// A trace of jobs (nodes, GPUs, submit and duration in seconds after kGoldenBase), all of `type`,
// COMPLETED, named j1, j2, ... and read as an AcmeTrace file.
inline Workload trace_of(const std::vector<std::tuple<int, int, int, int>>& jobs, std::string_view type) {
  std::string text = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto [nodes, gpus, submit, duration] = jobs[i];
    const Time from = kGoldenBase + Time::seconds(submit);
    text += "j" + std::to_string(i + 1) + ",u," + std::to_string(nodes) + "," + std::to_string(gpus) + ",0," +
            std::string(type) + ",COMPLETED," + format_timestamp(from) + "," + format_timestamp(from) + "," +
            format_timestamp(from + Time::seconds(duration)) + "," + std::to_string(duration) + ",0," +
            std::to_string(gpus * duration) + "\n";
  }
  return read_acme_trace_text(text, "t.csv", {});
}

inline std::vector<std::string> golden_expected(const std::string& file) {
  return lines_of(read_file(source_dir() / "tests" / "golden" / file));
}

// The example rows from the AcmeTrace README, exactly as published.
inline const std::string kPublishedSerenRows =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
    "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 "
    "00:20:51+08:00,117,32,936.0\n"
    "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 "
    "01:09:04+08:00,2693,13,21544.0\n";

inline const std::string kPublishedKalosRows =
    "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,"
    "end_time,fail_time,stop_time,duration,queue,gpu_time\n"
    "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 "
    "11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0\n"
    "dlc1t2ypl09b8qtp,uf794,8,64,960,1000,100.0,Other,CANCELLED,2023-05-17 11:28:42+00:00,2023-05-17 "
    "11:28:54+00:00,2023-05-17 11:30:04+00:00,,2023-05-17 11:30:04+00:00,82,12.0,5248.0\n";

// Everything acmesim logs at `level` and above while it lives, as "level: message" lines.
class LogCapture {
 public:
  explicit LogCapture(spdlog::level::level_enum level = spdlog::level::info) : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_));
    logger->set_pattern("%l: %v");
    logger->set_level(level);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const { return text_.str(); }
  // The warning lines, in order.
  std::string warnings() const {
    std::string out;
    for (const std::string& line : lines_of(text()))
      if (line.rfind("warning: ", 0) == 0) out += line + "\n";
    return out;
  }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace acme::test
