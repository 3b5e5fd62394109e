#include "io/capacity_keys.h"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "io/config.h"
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

}  // namespace

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
