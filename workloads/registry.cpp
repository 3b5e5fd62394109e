#include "workloads/registry.h"

#include <algorithm>
#include <optional>
#include <string>

#include "sim/error.h"
#include "workloads/acme_trace_reader.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"
#include "workloads/trace_cache.h"

namespace acme {
namespace {

Workload load_trace(const RunConfig& c, const ClusterSpec&) {
  return read_acme_trace_cached(c.workload_trace,
                                TraceOptions{c.workload_from, c.workload_to, c.workload_lenient, c.threads},
                                trace_cache_settings(c))
      .workload;
}

// The whole workload in one hand-out: a trace from the cache.
class WholeFeed : public JobFeed {
 public:
  explicit WholeFeed(Workload w) : w_(std::move(w)) {}
  bool append_next(Workload& w) override {
    if (given_) return false;
    given_ = true;
    w = std::move(w_);
    return true;
  }
  std::size_t expected_jobs() const override { return given_ ? 0 : w_.size(); }

 private:
  Workload w_;
  bool given_ = false;
};

// A trace replayed as it is read (AcmeTraceFeed), or from the cache, in
// submit order: null for a recorded replay (released at recorded starts), a cached trace out of
// submit order, or a trace the feed cannot read (load_trace reads them). On a cache miss, the
// entry is written once the whole trace is in, on the feed's thread that checks its ids.
class StreamedTrace : public JobFeed {
 public:
  static std::unique_ptr<JobFeed> open(const RunConfig& c, const ClusterSpec&, Workload& w) {
    const TraceOptions options{c.workload_from, c.workload_to, c.workload_lenient, c.threads};
    if (c.replay != ReplayMode::Policy) return nullptr;
    auto cache = std::make_unique<TraceCacheEntry>(c.workload_trace, options, trace_cache_settings(c));
    std::vector<std::string> warnings;
    if (std::optional<Workload> hit = cache->load(&warnings)) {
      const auto by_submit = [](const JobRequest& a, const JobRequest& b) { return a.submit < b.submit; };
      if (!std::is_sorted(hit->requests.begin(), hit->requests.end(), by_submit)) return nullptr;  // loaded whole
      cache->log_warnings(warnings);
      w = Workload{};
      w.source = hit->source;
      w.window_from = hit->window_from;
      w.window_to = hit->window_to;
      return std::make_unique<WholeFeed>(std::move(*hit));
    }
    std::unique_ptr<AcmeTraceFeed> feed = AcmeTraceFeed::open(c.workload_trace, options, w);
    if (!feed) return nullptr;
    auto streamed = std::unique_ptr<StreamedTrace>(new StreamedTrace(std::move(feed), std::move(cache)));
    streamed->feed_->on_whole = [c = streamed->cache_.get()](const Workload& whole, const std::vector<std::string>& warnings) {
      c->store(whole, warnings);
    };
    return streamed;
  }
  bool append_next(Workload& w) override { return feed_->append_next(w); }
  void finish() override { feed_->finish(); }
  std::size_t expected_jobs() const override { return feed_->expected_jobs(); }

 private:
  StreamedTrace(std::unique_ptr<AcmeTraceFeed> feed, std::unique_ptr<TraceCacheEntry> cache)
      : cache_(std::move(cache)), feed_(std::move(feed)) {}
  std::unique_ptr<TraceCacheEntry> cache_;  // before the feed: its thread stores the entry
  std::unique_ptr<AcmeTraceFeed> feed_;
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

constexpr WorkloadSourceEntry kSources[] = {
    {"acmetrace", "an AcmeTrace CSV (workload.trace), trace_seren.csv or trace_kalos.csv schema, "
                  "rows selected by submit time in [workload.from, workload.to)",
     load_trace, StreamedTrace::open},
    {"synthetic", "jobs drawn in-process from a model of the published statistics (workload.model), "
                  "arrival rate x workload.load, seeded by seed; drawn on a second thread as the replay goes "
                  "(first, in full, for eval: decoupled or a policy that reads estimates)",
     load_synthetic, open_synthetic},
};

}  // namespace

std::span<const WorkloadSourceEntry> workload_source_table() { return kSources; }

namespace {

const WorkloadSourceEntry& source_of(const RunConfig& config) {
  std::string valid;
  for (const WorkloadSourceEntry& e : kSources) {
    if (e.name == config.workload_source) return e;
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError(config.where("workload.source") + ": workload.source: unknown source '" +
                   config.workload_source + "' (valid: auto, " + valid + ")");
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
  return source_of(config).load(config, cluster);
}

std::unique_ptr<JobFeed> open_workload(const RunConfig& config, const ClusterSpec& cluster, Workload& w) {
  trace_cache_settings(config);
  const WorkloadSourceEntry& e = source_of(config);
  return e.open ? e.open(config, cluster, w) : nullptr;
}

bool is_trace(const Workload& w) { return w.source.rfind("AcmeTrace", 0) == 0; }

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
