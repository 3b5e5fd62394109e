// Run-time estimates: what users tell the scheduler (SchedulingPass::estimate), since the
// traces record none. Policies that plan ahead (backfill) see only these, never true run times.
//
// estimate.model (default noisy):
//   noisy       true run time x estimate.factor x exp(estimate.sigma x N(0, 1)): users
//               overestimate, with scatter; each job's drawn from a generator of its own keyed
//               by (the run's seed, the job's identity: Workload::keys), not its row.
//   limit       a fixed limit per job type, estimate.limit_h.<Type> hours.
//   percentile  the estimate.percentile-th percentile of the run times of the job's type over
//               the workload: the history a site would have.
//   none        no estimate (0).
// Estimates are at least 1 s. Cost: O(n), O(n log n) for percentile.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/job.h"
#include "io/params.h"

namespace acme {

// The estimate of every job, by JobId.
std::vector<Time> make_estimates(const Workload& workload, Params& params, std::uint64_t seed);

}  // namespace acme
