#include "io/network_keys.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/error.h"
#include "io/timed_list.h"

namespace acme {
namespace {

void fill(std::array<double, kJobTypeCount>& out, const std::array<std::optional<double>, kJobTypeCount>& table) {
  for (std::size_t t = 0; t < kJobTypeCount; ++t) out[t] = table[t].value_or(0.0);
}

// "NAME from SPAN for SPAN; ..." into faults; an error message if it is not that.
std::optional<std::string> parse_faults(const std::string& text, std::vector<NetworkSettings::Fault>& out) {
  std::vector<TimedItem> items;
  if (auto wrong = parse_timed_list(text, items)) return wrong;
  out.clear();
  for (const TimedItem& item : items) {
    if (!item.duration)
      return "'" + item.what + "' has no duration (as in 'spine 2 from 10d for 6h'; units s, m, h, d)";
    out.push_back({item.what, item.from, *item.duration});
  }
  return std::nullopt;
}

}  // namespace

NetworkSettings read_network_settings(Params& params, bool slowdown) {
  NetworkSettings s;
  s.slowdown = params.flag("slowdown", slowdown,
                           "multi-node jobs slow down by placement (default: on, off in replay: recorded, whose run "
                           "times include the network)");
  fill(s.comm_share,
       params.type_table("comm_share",
                         {{"Pretrain", 0.4}, {"MLLM", 0.3}, {"SFT", 0.2}, {"Debug", 0.2}, {"Other", 0.2}, {"Eval", 0}, {"CPU", 0}},
                         0, 1, "share of a multi-node job's time spent communicating, by job type"));
  fill(s.need_gbps,
       params.type_table("need_gbps",
                         {{"Pretrain", 200}, {"MLLM", 200}, {"SFT", 200}, {"Debug", 200}, {"Other", 200}, {"Eval", 200},
                          {"CPU", 200}},
                         0, 1e6, "per-node bandwidth at which the recorded run time holds, Gb/s"));
  s.leaf_penalty = params.number("leaf_penalty", 0.05, 0, 100,
                                 "extra communication time per additional leaf switch spanned (0.05: 5%)");
  s.contention = params.flag("contention", false,
                             "bandwidth from each job's route over the topology graph, links shared by the jobs "
                             "crossing them (off: the per-node arithmetic)");
  params.text("faults", "",
              "switches or links down for a while, with contention: 'spine 2 from 10d for 6h; leaf 0-spine 1 from "
              "2h for 30m' (times after workload.from, or the first release)",
              [&](const std::string& text) { return parse_faults(text, s.faults); });
  if (s.contention && !s.slowdown)
    throw InputError("network.contention: needs network.slowdown: true (contention changes how much jobs slow down)");
  if (!s.faults.empty() && !s.contention)
    throw InputError("network.faults: needs network.contention: true (the routes that move around a fault)");
  return s;
}

}  // namespace acme
