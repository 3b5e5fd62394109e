// Reading capacity.* (capacity changes over time, sim/capacity.h).
#pragma once

#include "sim/capacity.h"
#include "sim/cluster_spec.h"
#include "io/params.h"

namespace acme {

// Reads capacity.events ("drain 0-31 from 10d for 6h; add 32 from 20d; leaf 3 down from 5d for
// 2d") and capacity.drained_jobs (finish or kill). Throws InputError naming where the key was set
// for a malformed item, a node past the cluster's (with the added ones) or a leaf it lacks.
CapacitySettings read_capacity(Params& params, const ClusterSpec& cluster);

}  // namespace acme
