// The audit of a run shared by the randomized tests (tests/policies/test_invariants.cpp,
// tests/app/test_random_traces.cpp): an Auditor sink checks every fact against the rules of the
// core as it happens (no over-allocation per node against the cluster's own counters, nodes that
// are down left alone, one terminal fact per job, no start before submission, a job REJECTED only
// if it can never fit or a policy's limit refuses it), audit() runs a configuration with one and
// checks the outcomes against the facts; files_under() and first_difference() compare output
// folders byte for byte.
#pragma once

#include <algorithm>
#include <climits>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "app/make_simulation.h"
#include "io/config.h"
#include "sim/outcome.h"

namespace acme::test {

namespace fs = std::filesystem;

// Checks every fact against the rules of the core as it happens; `problems` says what broke.
class Auditor final : public Sink {
 public:
  Auditor(const Workload& w, const ClusterSpec& spec, const Simulation& sim, ReplayMode mode)
      : w_(w), spec_(spec), sim_(sim), mode_(mode), never_fits_(spec), jobs_(w.size()),
        gpus_(static_cast<std::size_t>(spec.nodes), 0), cpus_(static_cast<std::size_t>(spec.nodes), 0) {}

  enum class Phase { Unreleased, Waiting, Running, Recovering, Done };
  struct Job {
    Phase phase = Phase::Unreleased;
    std::optional<Time> first_start, run_start, end;
    std::int64_t gpu_seconds = 0;
    int stops = 0;       // Preempted and Failed facts: preemptions and failures
    std::int64_t held_gpus = 0;  // while recovering: the GPUs it kept
  };

  void on_fact(const Fact& f) override {
    const JobId j = f.job;
    Job& job = jobs_.at(j);
    const JobRequest& r = w_.requests[j];
    const JobProfile& p = w_.profiles[j];
    expect(f.time >= last_, j, "time went backwards");
    last_ = f.time;
    switch (f.kind) {
      case FactKind::Queued:
        expect(job.phase == Phase::Unreleased, j, "queued twice");
        expect(f.time == (mode_ == ReplayMode::Recorded && p.recorded_start() ? *p.recorded_start() : r.submit), j,
               "released at the wrong time");
        job.phase = Phase::Waiting;
        break;
      case FactKind::Rejected:
        expect(job.phase == Phase::Unreleased, j, "rejected after release");
        expect(never_fits_.never_fits(r) != RejectReason::None ||
                   sim_.outcomes()[j].reject == RejectReason::PolicyLimit,
               j, "rejected but fits");
        done(job, f.time);
        break;
      case FactKind::Started:
        expect(job.phase == Phase::Waiting, j, "started while not waiting");
        expect(f.time >= r.submit, j, "started before its submission");
        check_placement(j, *f.placement);
        hold(*f.placement, +1);
        job.phase = Phase::Running;
        job.run_start = f.time;
        if (!job.first_start) job.first_start = f.time;
        break;
      case FactKind::Preempted:
      case FactKind::Ended:
        expect(job.phase == Phase::Running, j, "stopped while not running");
        hold(*f.placement, -1);
        job.gpu_seconds += std::int64_t{r.gpu_num} * (f.time - *job.run_start).sec();
        job.stops += f.kind == FactKind::Preempted;
        job.phase = Phase::Waiting;
        if (f.kind == FactKind::Ended) done(job, f.time);
        break;
      case FactKind::Failed:  // gives back part or all of what it held; the rest until Requeued
        expect(job.phase == Phase::Running, j, "failed while not running");
        hold(*f.placement, -1);
        job.gpu_seconds += std::int64_t{r.gpu_num} * (f.time - *job.run_start).sec();
        job.held_gpus = r.gpu_num - gpus_of(*f.placement);
        job.run_start = f.time;
        ++job.stops;
        job.phase = Phase::Recovering;
        break;
      case FactKind::Requeued:
        expect(job.phase == Phase::Recovering, j, "requeued while not recovering");
        expect(gpus_of(*f.placement) == job.held_gpus, j, "gave back other than it kept");
        hold(*f.placement, -1);
        job.gpu_seconds += job.held_gpus * (f.time - *job.run_start).sec();
        job.phase = Phase::Waiting;
        break;
      case FactKind::Withdrawn:
        expect(job.phase == Phase::Waiting, j, "withdrawn while not waiting");
        expect(p.cancel_pending_at() && f.time == std::max(*p.cancel_pending_at(), *released(w_, mode_, sim_.outcomes(), j)), j,
               "left the queue at a time the trace does not say");
        done(job, f.time);
        break;
    }
    check_against_cluster(j);
  }
  void finish(const RunRecord&) override {}

  const std::vector<Job>& jobs() const { return jobs_; }
  std::vector<std::string> problems;

 private:
  void expect(bool ok, JobId j, const std::string& what) {
    if (!ok && problems.size() < 10) problems.push_back("job " + std::to_string(j) + ": " + what);
  }
  void done(Job& job, Time t) {
    job.phase = Phase::Done;
    job.end = t;
  }
  void check_placement(JobId j, const Placement& p) {
    const JobRequest& r = w_.requests[j];
    expect(p.size() == static_cast<std::size_t>(r.node_num), j, "placed on the wrong number of nodes");
    std::set<int> nodes;
    int gpus = 0, cpus = 0, gpu_lo = INT32_MAX, gpu_hi = 0, cpu_lo = INT32_MAX, cpu_hi = 0;
    for (const NodeShare& s : p) {
      expect(s.node >= 0 && s.node < spec_.nodes && nodes.insert(s.node).second, j, "bad or repeated node");
      expect(!sim_.cluster().is_down(s.node), j, "placed on a node that is down");
      gpus += s.gpus, cpus += s.cpus;
      gpu_lo = std::min(gpu_lo, s.gpus), gpu_hi = std::max(gpu_hi, s.gpus);
      cpu_lo = std::min(cpu_lo, s.cpus), cpu_hi = std::max(cpu_hi, s.cpus);
    }
    expect(gpus == r.gpu_num && cpus == r.cpu_num, j, "placement does not add up to the request");
    expect(gpu_hi - gpu_lo <= 1 && cpu_hi - cpu_lo <= 1, j, "placement is not spread evenly");
  }
  void hold(const Placement& p, int sign) {
    for (const NodeShare& s : p) {
      gpus_[static_cast<std::size_t>(s.node)] += sign * s.gpus;
      cpus_[static_cast<std::size_t>(s.node)] += sign * s.cpus;
    }
  }
  // What the facts say is held, against capacity and against the cluster's own counters.
  void check_against_cluster(JobId j) {
    const Cluster& c = sim_.cluster();
    int total = 0;
    for (int n = 0; n < spec_.nodes; ++n) {
      const int g = gpus_[static_cast<std::size_t>(n)], k = cpus_[static_cast<std::size_t>(n)];
      total += g;
      expect(g >= 0 && g <= spec_.gpus_per_node && k >= 0 && k <= spec_.cpus_per_node, j,
             "node " + std::to_string(n) + " over-allocated");
      if (c.is_down(n)) expect(g == 0 && k == 0, j, "node " + std::to_string(n) + " is down with jobs on it");
      else
        expect(g == spec_.gpus_per_node - c.free_gpus_on(n) && k == spec_.cpus_per_node - c.free_cpus_on(n), j,
               "node " + std::to_string(n) + ": the facts and the cluster disagree");
    }
    expect(total == c.allocated_gpus(), j, "allocated GPUs disagree with the cluster");
  }

  const Workload& w_;
  const ClusterSpec& spec_;
  const Simulation& sim_;
  ReplayMode mode_;
  Cluster never_fits_;
  std::vector<Job> jobs_;
  std::vector<int> gpus_, cpus_;
  Time last_ = Time::seconds(INT64_MIN);
};

// Simulates the run make_simulation builds (app/make_simulation.h), as execute_run does, with an Auditor on the facts; returns its problems
// and those of the outcomes. A run that has not ended after `steps_per_job` steps per job is stuck:
// each job makes a few events, a few hundred with failures (at most kMaxFailures of its own).
// With `rows`, also gives each job's outcome by its job_id: "state,reject,start,end,gpu_seconds,
// wasted,preemptions,failures" (times in seconds since the epoch).
inline std::vector<std::string> audit(const RunConfig& config, const ClusterSpec& cluster, const Workload& w,
                                      std::size_t steps_per_job = 2000,
                                      std::map<std::string, std::string>* rows = nullptr) {
  const std::unique_ptr<PreparedRun> run = make_simulation(config, cluster, w);
  Simulation& sim = *run->sim;
  Auditor auditor(w, cluster, sim, config.replay);
  sim.add_sink(auditor);
  for (std::size_t steps = 0; sim.step();)
    if (++steps > steps_per_job * (w.size() + 1)) return {"stuck: " + std::to_string(steps) + " steps, " +
                                                 std::to_string(sim.jobs_ended()) + " jobs ended"};
  sim.check_conservation();
  std::vector<std::string> problems = auditor.problems;
  for (JobId j = 0; j < w.size() && problems.size() < 10; ++j) {
    const Auditor::Job& a = auditor.jobs()[j];
    const JobOutcome& o = sim.outcomes()[j];
    auto expect = [&](bool ok, const std::string& what) {
      if (!ok) problems.push_back("job " + std::to_string(j) + ": " + what);
    };
    expect(a.phase == Auditor::Phase::Done, "no terminal fact");
    expect(o.end.has_value() && a.end && *o.end == *a.end, "outcome end differs from its terminal fact");
    // The outcome's start is after the first launch: the Started fact's time plus its latency.
    expect(o.start.has_value() == a.first_start.has_value() &&
               (!a.first_start || *o.start == *a.first_start || (sim.job_reports().launches.source && *o.start > *a.first_start)),
           "outcome start differs from its first Started fact");
    expect(o.gpu_seconds == a.gpu_seconds, "outcome GPU-seconds differ from its runs");
    expect(o.preemptions + o.failures == a.stops, "stops differ from Preempted facts");
    expect(o.state == (o.reject != RejectReason::None ? JobState::Rejected : w.profiles[j].final_state),
           "ended in a state the trace does not say");
  }
  auto sec = [](const OptionalTime& t) { return t ? std::to_string(t->sec()) : std::string(); };
  for (JobId j = 0; rows && j < w.size(); ++j) {
    const JobOutcome& o = sim.outcomes()[j];
    (*rows)[std::string(w.names[j])] = std::string(name(o.state)) + "," + std::to_string(static_cast<int>(o.reject)) +
                                       "," + sec(o.start) + "," + sec(o.end) + "," + std::to_string(o.gpu_seconds) +
                                       "," + std::to_string(o.wasted_gpu_seconds) + "," +
                                       std::to_string(o.preemptions) + "," + std::to_string(o.failures);
  }
  return problems;
}

// Every file under `dir`, by relative path, with its bytes.
inline std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read_file(e.path());
  return out;
}

// The first file that is not in both folders with the same bytes; empty if none.
inline std::string first_difference(const fs::path& a, const fs::path& b) {
  const auto x = files_under(a), y = files_under(b);
  for (const auto& [name, bytes] : x)
    if (!y.count(name) || y.at(name) != bytes) return name;
  for (const auto& [name, bytes] : y)
    if (!x.count(name)) return name;
  return "";
}

}  // namespace acme::test
