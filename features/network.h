// The network, a model feature (sim/feature.h) in one module: how placement slows multi-node jobs
// (the model: sim/network.h) and, with contention, their routes over the topology graph sharing
// links (sim/link_sharing.h), with switches and links down for a while (network.faults) and leaf
// switches struck by failures. Always made, so its keys are listed in every run; with
// network.slowdown off (the default of a recorded replay) it has no hook.
//
// Hooks: routed (run_joined: a run's factor when placed, and with contention the factors of the
// runs it slows, FeatureControl::set_network_factor; run_left; switch_down and switch_up for a
// failure's switch), and with contention timed (its faults, asked of FeatureControl::at at its
// begin, each start before its end), stepping (the link loads' intervals), ended. Nodes a fault
// cuts off from the network are held down (FeatureControl::hold, Vacate::Fail) until a path is
// back. It gives the outputs the link loads (links.csv, timeseries.csv's peak_uplink_load) and
// checks that no link carries a job's traffic at the end.
#pragma once

#include <memory>

#include "io/params.h"
#include "sim/cluster_spec.h"
#include "sim/feature.h"
#include "sim/network.h"

namespace acme {

// Reads network.slowdown (default `slowdown`), network.comm_share.<Type>, network.need_gbps.<Type>,
// network.leaf_penalty, network.contention and network.faults, in that order. Throws InputError
// on an unknown job type or a value out of range. Contention's two keys are recorded only when it
// is on, so a run without it lists what it listed before it existed.
NetworkSettings read_network_settings(Params& params, bool slowdown);

// The feature of `settings` on `cluster`, its link loads kept per `link_interval`.
std::unique_ptr<Feature> network_feature(const NetworkSettings& settings, const ClusterSpec& cluster,
                                         Time link_interval);

}  // namespace acme
