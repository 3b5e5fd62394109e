// Reading the network model's keys (network.*) into NetworkSettings (sim/network.h).
#pragma once

#include "io/params.h"
#include "sim/network.h"

namespace acme {

// Reads network.slowdown (default `slowdown`), network.comm_share.<Type>, network.need_gbps.<Type>,
// network.leaf_penalty, network.contention and network.faults, in that order. Throws InputError on an unknown job type or a value out
// of range.
NetworkSettings read_network_settings(Params& params, bool slowdown);

}  // namespace acme
