// Metrics sinks: observers fed by the core. Model code never writes files; sinks do.
//
// A sink gets each Fact as it happens, the jobs whose outcomes are final as their prefix grows
// (EndedJobs), and the whole RunRecord at the end. The sinks that write files, what they are made
// from (SinkSettings) and their registry are the I/O layer's (io/sinks.h); `outputs` in the run
// configuration picks which ones run.
#pragma once

#include <cstddef>
#include <shared_mutex>
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

}  // namespace acme
