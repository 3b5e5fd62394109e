#include "workloads/registry.h"

#include <algorithm>
#include <optional>
#include <string>

#include "io/registry.h"
#include "sim/error.h"
#include "sim/log.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"
#include "workloads/trace_cache.h"
#include "workloads/trace_schema.h"

namespace acme {
namespace {

// The schema of the trace file `path` into `w` (none if the file cannot be read: its reader says so).
void note_schema(const std::string& path, Workload& w) {
  if (const std::optional<TraceSchema> s = read_trace_schema(path)) w.schema = name(*s);
}

TraceOptions trace_options(const RunConfig& c) {
  return {.from = c.workload_from, .to = c.workload_to, .lenient = c.workload_lenient, .feedback = c.workload_feedback,
          .utc_offset_s = c.workload_utc_offset_s, .threads = c.threads};
}

Workload load_trace(const RunConfig& c, const ClusterSpec&) {
  Workload w = read_acme_trace_cached(c.workload_trace,
                                      trace_options(c),
                                      trace_cache_settings(c))
                   .workload;
  note_schema(c.workload_trace, w);
  return w;
}

// A trace replayed as it is copied out of the cache (TraceCacheFeed) or read (AcmeTraceFeed), in
// submit order: null for a recorded replay (released at recorded starts), or a trace the feed
// cannot read (load_trace reads them). On a cache miss, the entry is written once the whole trace
// is in, on the feed's thread that checks its ids. Rows out of submit order, or a damaged chunk of
// the entry: WholeWorkloadNeeded.
class StreamedTrace : public JobFeed {
 public:
  static std::unique_ptr<JobFeed> open(const RunConfig& c, const ClusterSpec&, Workload& w) {
    if (c.replay != ReplayMode::Policy) return nullptr;
    auto s = std::unique_ptr<StreamedTrace>(new StreamedTrace(c));
    s->cached_ = s->cache_->feed(w);
    if (!s->cached_ && !s->parse(w)) return nullptr;
    note_schema(c.workload_trace, w);
    return s;
  }
  bool map_ahead(const std::vector<PerJobArray>& arrays) override {
    return cached_ ? cached_->map_ahead(arrays) : parsed_->map_ahead(arrays);
  }
  bool append_next(Workload& w) override { return cached_ ? cached_->append_next(w) : parsed_->append_next(w); }
  void finish() override {
    if (parsed_) parsed_->finish();
  }
  std::size_t expected_jobs() const override { return cached_ ? cached_->expected_jobs() : parsed_->expected_jobs(); }

 private:
  explicit StreamedTrace(const RunConfig& c)
      : path_(c.workload_trace),
        options_(trace_options(c)),
        cache_(std::make_unique<TraceCacheEntry>(path_, options_, trace_cache_settings(c))) {}
  // The trace parsed as it is read, the cache entry written once it is whole.
  bool parse(Workload& w) {
    parsed_ = AcmeTraceFeed::open(path_, options_, w);
    if (parsed_)
      parsed_->on_whole = [c = cache_.get()](const Workload& whole, const std::vector<std::string>& warnings) {
        c->store(whole, warnings);
      };
    return parsed_ != nullptr;
  }
  std::string path_;
  TraceOptions options_;
  std::unique_ptr<TraceCacheEntry> cache_;  // before the feeds: they use it
  std::unique_ptr<TraceCacheFeed> cached_;
  std::unique_ptr<AcmeTraceFeed> parsed_;
};

Workload load_synthetic(const RunConfig& c, const ClusterSpec& cluster) {
  return generate_workload(on_cluster(load_synthetic_model(c.workload_model), cluster.total_gpus()), *c.workload_from, *c.workload_to,
                           c.workload_load, c.seed, cluster.gpus_per_node);
}

// A stream that owns its model.
class SyntheticFeed : public JobFeed {
 public:
  SyntheticFeed(const RunConfig& c, const ClusterSpec& cluster)
      : model_(on_cluster(load_synthetic_model(c.workload_model), cluster.total_gpus())),
        stream_(model_, *c.workload_from, *c.workload_to, c.workload_load, c.seed, cluster.gpus_per_node) {}
  Workload start() { return stream_.start(); }
  bool append_next(Workload& w) override { return stream_.append_next(w); }
  std::size_t expected_jobs() const override { return stream_.expected_jobs(); }

 private:
  SyntheticModel model_;
  SyntheticStream stream_;
};

std::unique_ptr<JobFeed> open_synthetic(const RunConfig& c, const ClusterSpec& cluster, Workload& w) {
  auto feed = std::make_unique<SyntheticFeed>(c, cluster);
  w = feed->start();
  return feed;
}

// Each source registers as every plugin does (io/registry.h).
const Registrar<WorkloadSourceEntry> kAcmeTrace(
    {"acmetrace", "an AcmeTrace CSV (workload.trace), trace_seren.csv or trace_kalos.csv schema (or a trace "
                  "from elsewhere: Helios's, sacct's export, Philly's JSON, PAI's job and task tables, Alibaba's "
                  "2023 pod list, an SWF log), rows selected by submit time in [workload.from, workload.to)",
     load_trace, StreamedTrace::open, 10});
const Registrar<WorkloadSourceEntry> kSynthetic(
    {"synthetic", "jobs drawn in-process from a model of the published statistics (workload.model), "
                  "arrival rate x workload.load, seeded by seed; drawn on a second thread as the replay goes "
                  "(first, in full, for eval: decoupled or a policy that reads estimates)",
     load_synthetic, open_synthetic, 20});

}  // namespace

std::span<const WorkloadSourceEntry> workload_source_table() { return Registry<WorkloadSourceEntry>::table(); }

namespace {

const WorkloadSourceEntry& source_of(const RunConfig& config) {
  std::string valid;
  for (const WorkloadSourceEntry& e : workload_source_table()) {
    if (e.name == config.workload_source) return e;
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError(config.where("workload.source") + ": workload.source: unknown source '" +
                   config.workload_source + "' (valid: auto, " + valid + ")");
}

// workload.feedback is read from an SWF log only (SwfOptions::feedback): said for any other source.
void warn_unless_feedback_read(const RunConfig& config) {
  if (!config.workload_feedback) return;
  if (!config.workload_trace.empty() && trace_format(config.workload_trace) == TraceFormat::Swf) return;
  log::warn("workload.feedback: only an SWF log records each job's preceding job and think time; {}'s jobs are "
            "submitted when it says",
            config.workload_trace.empty() ? std::string("a synthetic workload") : config.workload_trace);
}

}  // namespace

TraceCacheSettings trace_cache_settings(const RunConfig& config) {
  Params p("cache", config.cache_params);
  const TraceCacheSettings s = read_trace_cache_settings(p);
  p.check_all_used();
  return s;
}

Workload load_workload(const RunConfig& config, const ClusterSpec& cluster) {
  trace_cache_settings(config);  // a wrong cache.* key is an error whatever the source
  warn_unless_feedback_read(config);
  return source_of(config).load(config, cluster);
}

std::unique_ptr<JobFeed> open_workload(const RunConfig& config, const ClusterSpec& cluster, Workload& w) {
  trace_cache_settings(config);
  const WorkloadSourceEntry& e = source_of(config);
  std::unique_ptr<JobFeed> feed = e.open ? e.open(config, cluster, w) : nullptr;
  if (feed) warn_unless_feedback_read(config);  // else load_workload says it
  return feed;
}

bool is_trace(const Workload& w) { return is_trace_source(w.source); }

std::string describe_loaded(const Workload& w) {
  std::string text = std::to_string(w.size()) + " jobs (" + std::to_string(w.rows_skipped) + " rows skipped";
  if (!is_trace(w)) return text + ")";
  if (!w.window_from && !w.window_to) return text + "; no window: every row of the file)";
  const std::uint64_t rows = w.size() + w.rows_skipped + w.rows_outside_window;
  return text + "; the window " + (w.window_from ? format_timestamp(*w.window_from) : std::string("..")) + " to " +
         (w.window_to ? format_timestamp(*w.window_to) : std::string("..")) + " kept " +
         std::to_string(rows - w.rows_outside_window) + " of the file's " + std::to_string(rows) + " rows)";
}

}  // namespace acme
