// The policy contract: policies decide, the core acts.
//
// The core tells a policy what happened (a job joined the queue, a pending job left it) and,
// once per distinct timestamp at which something happened, after all events of that instant,
// asks it to schedule. The policy
// sees requests only (never run times or fates) and answers by asking the core to start jobs.
// The core checks each decision: starting a job that is not pending is a policy bug and throws
// std::logic_error with a message that says so; a job that does not fit simply does not start.
//
// A new policy is one file in policies/ that registers itself (policies/registry.h), plus its
// line in CMakeLists.txt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/time.h"

namespace acme {

// What a policy may see and do during one scheduling pass.
class SchedulingPass {
 public:
  virtual ~SchedulingPass() = default;
  virtual Time now() const = 0;
  virtual const JobRequest& request(JobId job) const = 0;
  virtual std::string_view user_name(JobId job) const = 0;
  virtual bool is_pending(JobId job) const = 0;
  virtual const Cluster& cluster() const = 0;
  // The user's run-time estimate (see workloads/estimates.h); 0: none given. REQUIRES: the
  // policy's reads_estimates() is true (else std::logic_error: the run made no estimates).
  virtual Time estimate(JobId job) const = 0;
  virtual bool is_running(JobId job) const = 0;
  // Where the running job holds its resources. REQUIRES: is_running(job).
  virtual const Placement& placement_of(JobId job) const = 0;
  // When the running job should end by its estimate: its current run's start + estimate -
  // progress kept from earlier runs (at least now + 1 s); now + 1 s when it has no estimate or
  // overran it. REQUIRES: reads_estimates(), as estimate().
  virtual Time expected_end(JobId job) const = 0;

  // Starts the job now if it fits, placed by the run's placement strategy; returns whether it
  // started. With a launch latency (features/launch.h) it holds its resources from now but starts
  // later. REQUIRES: is_pending(job).
  virtual bool try_start(JobId job) = 0;
  // Asks for a scheduling pass at `t` even if nothing happens then (a backfill cycle). A policy
  // should ask only while it has pending jobs to look at, or the run never ends. REQUIRES: t > now().
  virtual void wake_at(Time t) = 0;
  // Stops a running job and puts it back in the queue (the policy hears on_stopped, then
  // on_queued). Kill loses the work of the current run (wasted, cause preemption); Suspend keeps
  // it, as an ideal checkpoint-free suspension would. REQUIRES: is_running(job).
  enum class Preempt : std::uint8_t { Kill, Suspend };
  virtual void preempt(JobId job, Preempt how) = 0;

  // ORACLE ONLY: the true run time the job still needs. A policy that calls this is an oracle
  // and must say so in its name and description.
  virtual Time oracle_remaining(JobId job) const = 0;
};

class Policy {
 public:
  virtual ~Policy() = default;
  // A job joined the queue. Jobs join in release order (time, then JobId).
  virtual void on_queued(JobId job, const JobRequest& request) = 0;
  // A pending job left the queue without starting (it was withdrawn). Default: nothing; a policy
  // that keeps its own queue may also skip jobs for which pass.is_pending() is false.
  virtual void on_withdrawn(JobId) {}
  // A running job stopped (it ended, or was preempted: then on_queued follows).
  virtual void on_stopped(JobId) {}
  // One pass: start what should start now. None at an instant of stale events only (the end
  // a preempted run would have had): a policy that needs a pass then asks with wake_at.
  virtual void schedule(SchedulingPass& pass) = 0;
  // Whether this policy can never start the job on this cluster, whatever else runs or ends (the
  // quota policy: more GPUs than the job's group may ever hold). Such a job is rejected when it
  // arrives (RejectReason::PolicyLimit) rather than left waiting forever. Default: never.
  virtual bool refuses(const JobRequest&, std::string_view /*user*/, const Cluster&) { return false; }
  // Whether the policy reads run-time estimates (SchedulingPass::estimate, expected_end); when
  // not, the run does not make them, and asking for one throws std::logic_error.
  virtual bool reads_estimates() const { return false; }
  // Once, before the run's first event: each job's name (the trace's job_id, a synthetic job's
  // generated id) by JobId, and the users' names by JobRequest::user; both valid until the run
  // ends. For messages and for the Python module's requests (job_id, user by name); none of the
  // C++ policies needs it. Default: nothing.
  virtual void on_run_start(const StringTable& /*job_names*/, const UserTable& /*users*/) {}
};

}  // namespace acme
