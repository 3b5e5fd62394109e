// Run-time estimates: what users tell the scheduler (SchedulingPass::estimate). AcmeTrace records
// none, so they are modeled; an SWF log and a sacct export record each job's time limit
// (recorded). Policies that plan ahead (backfill) see only these, never true run times.
//
// estimate.model (default noisy):
//   noisy       true run time x estimate.factor x exp(estimate.sigma x N(0, 1)): users
//               overestimate, with scatter; each job's drawn from a generator of its own keyed
//               by (the run's seed, the job's identity: Workload::keys), not its row.
//   limit       a fixed limit per job type, estimate.limit_h.<Type> hours.
//   recorded    the time limit the trace records for the job (Workload::time_limits: SWF's
//               requested time, sacct's Timelimit), what the users asked for and real EASY
//               backfill planned with;
//               a job that records none takes its type's limit, as a site's default time limit.
//               (time_limits.enforced kills a run that outlives its recorded limit, as Slurm
//               does: features/time_limits.cpp.)
//   percentile  the estimate.percentile-th percentile of the run times of the job's type over
//               the workload: the history a site would have.
//   none        no estimate (0).
// Estimates are at least 1 s. Every model but percentile gives a job its estimate from the job
// alone, so a run may take its jobs as they come (Simulation::set_feed); percentile needs every
// job first. Cost: O(1) a job; O(n log n) for percentile's fit.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/params.h"
#include "sim/job.h"
#include "sim/simulation.h"

namespace acme {

class Estimator final : public EstimateSource {
 public:
  // Reads and checks estimate.* from `params` (InputError for a bad value).
  Estimator(Params& params, std::uint64_t seed);
  // Whether each job's estimate comes from the job alone (every model but percentile).
  bool per_job() const { return model_ != Model::Percentile; }
  bool reads_time_limits() const { return model_ == Model::Recorded; }
  // The estimate of every job of `w` (percentile: fitted on `w`'s run times first).
  std::vector<Time> all(const Workload& w);
  // The estimate of job `job` of `w`. REQUIRES: per_job(), or all() fitted it.
  Time estimate(const Workload& w, JobId job) const override;

 private:
  enum class Model : std::uint8_t { Noisy, Limit, Recorded, Percentile, None };
  static Model model_of(const std::string& name);
  Model model_;
  double factor_, sigma_, percentile_;
  std::array<Time, kJobTypeCount> per_type_{};
  std::uint64_t stream_;
};

// The jobs of `w` that record a time limit (Workload::time_limits). O(n).
std::size_t jobs_with_time_limits(const Workload& w);

// The estimate of every job of `w`, by JobId: Estimator(params, seed).all(w).
std::vector<Time> make_estimates(const Workload& w, Params& params, std::uint64_t seed);

}  // namespace acme
