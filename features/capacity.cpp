#include "features/capacity.h"

#include <charconv>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "io/config.h"
#include "io/feature_registry.h"
#include "io/timed_list.h"
#include "sim/job.h"

namespace acme {
namespace {

std::optional<int> whole(std::string_view s) {
  int v = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// One item into an event; what is wrong with it otherwise.
std::optional<std::string> parse_event(const TimedItem& item, const ClusterSpec& cluster, int nodes, CapacityEvent& e) {
  const std::string& w = item.what;
  const std::string quoted = "'" + w + "'";
  e.at = item.from;
  e.duration = item.duration.value_or(Time{});
  if (w.rfind("drain ", 0) == 0) {
    const std::string range = w.substr(6);
    const std::size_t dash = range.find('-');
    const auto first = whole(range.substr(0, dash));
    const auto last = dash == std::string::npos ? first : whole(range.substr(dash + 1));
    if (!first || !last || *last < *first) return quoted + ": expected 'drain FIRST-LAST' (node numbers, as in 'drain 0-31')";
    if (*last >= nodes)
      return quoted + ": nodes " + std::to_string(*first) + "-" + std::to_string(*last) + " are past the cluster's " +
             std::to_string(nodes) + " nodes (0-" + std::to_string(nodes - 1) + ", added ones included)";
    if (!item.duration) return quoted + ": a drain needs 'for TIME'";
    e.kind = CapacityEvent::Kind::Drain;
    e.first = *first;
    e.last = *last;
    return std::nullopt;
  }
  if (w.rfind("add ", 0) == 0) {
    const auto count = whole(w.substr(4));
    if (!count || *count == 0) return quoted + ": expected 'add COUNT' (a number of nodes above 0)";
    if (item.duration) return quoted + ": added nodes stay; drop 'for TIME'";
    e.kind = CapacityEvent::Kind::Add;
    e.first = *count;
    return std::nullopt;
  }
  if (w.rfind("leaf ", 0) == 0) {
    std::string number = w.substr(5);
    const bool down = number.size() > 5 && number.substr(number.size() - 5) == " down";
    if (down) number.resize(number.size() - 5);
    const auto leaf = whole(number);
    if (!down) return quoted + ": expected 'leaf NUMBER down'";
    const int rails = cluster.fabric == Fabric::RailOptimized ? cluster.nics_per_node : 1;
    const int leaves = (nodes + cluster.nodes_per_leaf - 1) / cluster.nodes_per_leaf * rails;
    if (!leaf) return quoted + ": expected 'leaf NUMBER down'";
    if (*leaf >= leaves) return quoted + ": the cluster has leaf switches 0-" + std::to_string(leaves - 1);
    if (!item.duration) return quoted + ": a leaf down needs 'for TIME'";
    e.kind = CapacityEvent::Kind::LeafDown;
    e.first = *leaf;
    return std::nullopt;
  }
  return quoted + ": expected 'drain FIRST-LAST', 'add COUNT' or 'leaf NUMBER down'";
}

// The nodes event `e` holds: a drain's, an added count from `next` on (advanced past them), the
// nodes under a leaf switch.
std::vector<int> nodes_of(const CapacityEvent& e, int& next, const Topology& topology) {
  std::vector<int> nodes;
  switch (e.kind) {
    case CapacityEvent::Kind::Drain:
      nodes.resize(static_cast<std::size_t>(e.last - e.first + 1));
      std::iota(nodes.begin(), nodes.end(), e.first);
      break;
    case CapacityEvent::Kind::Add:
      nodes.resize(static_cast<std::size_t>(e.first));
      std::iota(nodes.begin(), nodes.end(), next);
      next += e.first;
      break;
    case CapacityEvent::Kind::LeafDown: nodes = topology.nodes_in_domain(Topology::Domain::Leaf, e.first); break;
  }
  return nodes;
}

// Event i starts at its instant 2i + 1 and ends at 2i (FeatureControl::at's ids).
class CapacityFeature final : public Feature {
 public:
  explicit CapacityFeature(CapacitySettings settings) : s_(std::move(settings)), fault_(s_.events.size()) {}
  unsigned hooks() const override { return s_.events.empty() ? 0u : kTimed | kStepped; }

  void shape(ClusterSpec& cluster) const override {
    cluster.nodes += s_.added_nodes();
    cluster.reserved_nodes = s_.reserved_nodes;
    cluster.reserved_types = s_.reserved_types;
    cluster.reserved_spill = s_.reserved_spill;
  }

  void begin(const FeatureRun& run) override {
    if (s_.events.empty()) return;
    control_ = &run.control;
    const Time now = control_->now();
    // Added nodes are the last ones, down until they arrive.
    int next = control_->cluster().node_count() - s_.added_nodes();
    for (const CapacityEvent& e : s_.events) {
      nodes_.push_back(nodes_of(e, next, control_->topology()));
      if (e.kind == CapacityEvent::Kind::Add) control_->hold(nodes_.back(), FeatureControl::Vacate::Finish);
    }
    log_.initial = control_->cluster().gpus_in_service();
    // From the start of the workload's window, or else of the run's first event (a fed
    // workload's first release is not known before the run); an event over by then never happens.
    const Time origin = run.workload.window_from.value_or(now);
    for (std::size_t i = 0; i < s_.events.size(); ++i) {
      const CapacityEvent& e = s_.events[i];
      const Time from = origin + e.at;
      const bool ends = e.kind != CapacityEvent::Kind::Add;
      if (ends && from + e.duration <= now) continue;
      control_->at(std::max(now, from), static_cast<std::uint32_t>(2 * i + 1));
      if (ends) control_->at(from + e.duration, static_cast<std::uint32_t>(2 * i));
    }
  }

  void timed(std::uint32_t id) override {
    const std::size_t i = id / 2;
    const bool start = id % 2 == 1;
    const CapacityEvent& e = s_.events[i];
    if (e.kind == CapacityEvent::Kind::LeafDown) {  // with contention a network fault, else its nodes fail
      if (start) fault_[i] = control_->take_switch_down(e.first);
      if (fault_[i]) {
        if (!start) control_->bring_switch_up(*fault_[i]);
        return;
      }
    }
    if (e.kind == CapacityEvent::Kind::Add || !start) return control_->release(nodes_[i]);  // they arrive, or are back
    using Vacate = FeatureControl::Vacate;
    if (e.kind == CapacityEvent::Kind::LeafDown) return control_->hold(nodes_[i], Vacate::Fail);  // its nodes fail
    control_->hold(nodes_[i], s_.kill_drained ? Vacate::Kill : Vacate::Finish);
  }

  void stepped(Time now) override { log_.note(now, control_->cluster().gpus_in_service()); }

  std::span<const FeatureColumn> columns(FeatureOutput output) const override;
  const CapacityLog& log() const { return log_; }

 private:
  const CapacitySettings s_;
  FeatureControl* control_ = nullptr;
  std::vector<std::vector<int>> nodes_;              // [event]: the nodes it holds
  std::vector<std::optional<std::size_t>> fault_;    // [event]: the network fault a leaf down started
  CapacityLog log_;
};

constexpr FeatureColumn kColumns[] = {
    {"gpus_in_service", "GPUs on nodes that are up and not being drained, at the instant `time_s`",
     "with `capacity.events` only", [](const Feature& f, std::int64_t time_s) {
       return FeatureCell{static_cast<double>(static_cast<const CapacityFeature&>(f).log().at(time_s))};
     }},
};

std::span<const FeatureColumn> CapacityFeature::columns(FeatureOutput output) const {
  if (output != FeatureOutput::Interval || s_.events.empty()) return {};
  return kColumns;
}

std::unique_ptr<Feature> make_capacity(Params& params, const FeatureSetup& setup) {
  return capacity_feature(read_capacity(params, setup.cluster ? *setup.cluster : ClusterSpec{}));
}

const FeatureRegistrar kCapacity({"capacity",
                                  "Capacity over time (capacity.*): drains, added nodes, leaf switches down",
                                  make_capacity, 30, {kColumns}});

}  // namespace

std::unique_ptr<Feature> capacity_feature(const CapacitySettings& settings) {
  if (settings.events.empty() && settings.reserved_nodes == 0) return nullptr;
  return std::make_unique<CapacityFeature>(settings);
}

CapacitySettings read_capacity(Params& params, const ClusterSpec& cluster) {
  CapacitySettings s;
  params.text("events", "",
              "capacity over time: 'drain 0-31 from 10d for 6h; add 32 from 20d; leaf 3 down from 5d for 2d' "
              "(times after workload.from, or the first release)",
              [&](const std::string& text) -> std::optional<std::string> {
                std::vector<TimedItem> items;
                if (auto wrong = parse_timed_list(text, items)) return wrong;
                s.events.assign(items.size(), {});
                int added = 0;
                for (const TimedItem& item : items)
                  if (item.what.rfind("add ", 0) == 0) added += whole(item.what.substr(4)).value_or(0);
                for (std::size_t i = 0; i < items.size(); ++i)
                  if (auto wrong = parse_event(items[i], cluster, cluster.nodes + added, s.events[i])) return wrong;
                return std::nullopt;
              });
  s.kill_drained = params.choice("drained_jobs", "finish", {"finish", "kill"},
                                 "what a drain does to the jobs running on its nodes: finish (they run to their "
                                 "end, the node goes down once empty) or kill (preempted at once)") == "kill";
  s.reserved_nodes = static_cast<int>(params.number(
      "reserved_nodes", 0, 0, cluster.nodes,
      "nodes (the last ones) reserved for the job types of capacity.reserved_types: others are placed on the rest "
      "unless they need more nodes than that; 0: none"));
  s.reserved_types = 0;
  params.text("reserved_types", "Pretrain", "job types that may use the reserved nodes (comma-separated)",
              [&](const std::string& text) -> std::optional<std::string> {
                for (const std::string& name : split_commas(text)) {
                  const auto t = parse_job_type(name);
                  if (!t) return "unknown job type '" + name + "'";
                  s.reserved_types |= 1u << static_cast<unsigned>(*t);
                }
                return std::nullopt;
              });
  s.reserved_spill = params.flag("reserved_spill", false,
                                 "whether the reserved types may also use the other nodes when theirs are full");
  return s;
}

}  // namespace acme
