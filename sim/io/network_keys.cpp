#include "sim/io/network_keys.h"

#include <string>
#include <utility>
#include <vector>

#include "sim/error.h"

namespace acme {
namespace {

void fill(std::array<double, kJobTypeCount>& out, const std::vector<std::pair<std::string, double>>& table,
          const char* key) {
  for (const auto& [name, value] : table) {
    const auto t = parse_job_type(name);
    if (!t) throw InputError(std::string("network.") + key + "." + name + ": unknown job type");
    out[static_cast<std::size_t>(*t)] = value;
  }
}

}  // namespace

NetworkSettings read_network_settings(Params& params, bool slowdown) {
  NetworkSettings s;
  s.slowdown = params.flag("slowdown", slowdown,
                           "multi-node jobs slow down by placement (default: on, off in replay: recorded, whose run "
                           "times include the network)");
  fill(s.comm_share,
       params.table("comm_share",
                    {{"Pretrain", 0.4}, {"MLLM", 0.3}, {"SFT", 0.2}, {"Debug", 0.2}, {"Other", 0.2}, {"Eval", 0}, {"CPU", 0}},
                    0, 1, "share of a multi-node job's time spent communicating, by job type"),
       "comm_share");
  fill(s.need_gbps,
       params.table("need_gbps",
                    {{"Pretrain", 200}, {"MLLM", 200}, {"SFT", 200}, {"Debug", 200}, {"Other", 200}, {"Eval", 200},
                     {"CPU", 200}},
                    0, 1e6, "per-node bandwidth at which the recorded run time holds, Gb/s"),
       "need_gbps");
  s.leaf_penalty = params.number("leaf_penalty", 0.05, 0, 100,
                                 "extra communication time per additional leaf switch spanned (0.05: 5%)");
  return s;
}

}  // namespace acme
