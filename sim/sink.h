// Metrics sinks: observers fed by the core. Model code never writes files; sinks do.
//
// A sink gets each Fact as it happens, the jobs whose outcomes are final as their prefix grows
// (EndedJobs), and the whole RunRecord at the end. The registry table in io/sink_registry.cpp
// names every sink with a one-line description; `outputs` in the run configuration picks which
// ones run. Every file a sink writes appears whole or not at all (written to a temporary name,
// then renamed, at once or, with SinkSettings::renames, when the run is done).
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string_view>
#include <vector>

#include "sim/outcome.h"

namespace acme {

// Jobs [0, count) have ended, and their outcomes (and energy) will not change again. The
// references stay valid until the run is done. With a JobFeed the workload, the outcomes and the
// energy grow (and move) as jobs come: a reader on another thread holds `growth` shared while it
// reads them; the simulation holds it exclusively while they grow.
struct EndedJobs {
  const Workload& workload;
  const std::vector<JobOutcome>& outcomes;
  ReplayMode replay;
  std::size_t count;
  std::shared_mutex& growth;
  std::size_t expected_jobs;  // about how many jobs the run will have in all (to size buffers)
  FirstLaunches launches;     // each job's first launch latency
};

class Sink {
 public:
  virtual ~Sink() = default;
  // Each fact as it happens; only for a sink that wants_facts() when it is added (a sink that
  // needs none says so: the simulation then skips the call at each fact).
  virtual bool wants_facts() const { return true; }
  virtual void on_fact(const Fact&) {}
  // Between steps, on the simulation's thread, each time the prefix of ended jobs grows; only
  // for a sink that wants_ended() when it is added.
  virtual bool wants_ended() const { return false; }
  virtual void on_ended(const EndedJobs&) {}
  virtual void finish(const RunRecord& run) = 0;
};

struct TableCapture;
class DeferredRenames;
class LinkSharing;
class Topology;
class Feature;

struct SinkSettings {
  std::filesystem::path out_dir;
  Time interval = Time::hours(1);  // time-series interval
  int total_gpus = 0;
  int nodes = 0;
  int gpus_per_node = 8;
  TableCapture* capture = nullptr;  // set: the outputs go there (io/captured_table.h), no file
  // Set: files are finished under their temporary names and renamed by its owner (io/csv.h).
  DeferredRenames* renames = nullptr;
  // With network contention: the link loads (complete when the run is done) and the topology
  // that names the links. Not owned.
  const LinkSharing* links = nullptr;
  const Topology* topology = nullptr;
  // The run's model features, in their order: the sinks add their columns (Feature::columns).
  // Not owned.
  std::vector<const Feature*> features = {};
  // Threads the outputs may use: above 1, jobs.csv's rows are written while the run goes.
  unsigned threads = 1;
};

struct SinkEntry {
  std::string_view name;
  std::string_view description;
  std::array<std::string_view, 2> files;  // the files it writes (empty entries: none)
  std::unique_ptr<Sink> (*make)(const SinkSettings&);
  int order = 1000;  // output order: by order, then by name
  static constexpr std::string_view kKind = "output";
};

// The registry table (Registry<SinkEntry> of io/registry.h, filled in io/sink_registry.cpp), in
// output order.
std::span<const SinkEntry> sink_table();

// REQUIRES: `name` is in sink_table(); otherwise InputError listing the valid names.
std::unique_ptr<Sink> make_sink(std::string_view name, const SinkSettings& settings);

}  // namespace acme
