// The timeseries sink: timeseries.csv, one row per interval of the cluster's state (its columns
// in configs/README.md, "Outputs"), and with network contention links.csv, each link tier's load
// per interval. Registered in io/sinks.cpp's table as "timeseries".
#pragma once

#include <memory>

#include "sim/sink.h"

namespace acme {

std::unique_ptr<Sink> make_timeseries_sink(const SinkSettings& settings);

}  // namespace acme
