// The sinks the registry (io/sink_registry.cpp, sink_table() of sim/sink.h) names, one file each:
//   jobs.csv             io/jobs_sink.cpp
//   timeseries.csv       io/timeseries_sink.cpp (links.csv too; fragmentation in io/fragmentation.h)
//   summary.csv          io/summary_sink.cpp (and summary_by_type.csv)
//   wasted_by_cause.csv  io/waste_sink.cpp
//   run.json             io/run_json_sink.cpp
//   evaluations.csv      io/evaluations_sink.cpp
//   users.csv            io/users_sink.cpp
//   standard output      io/console_sink.cpp
// The jobs.csv and summary sinks handle ended jobs on a thread of their own (io/ended_jobs_thread.h).
#pragma once

#include <memory>

#include "sim/sink.h"

namespace acme {

std::unique_ptr<Sink> make_jobs_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_timeseries_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_summary_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_waste_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_run_json_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_evaluations_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_users_sink(const SinkSettings& settings);
std::unique_ptr<Sink> make_console_sink(const SinkSettings& settings);

}  // namespace acme
