#include "policies/registry.h"

#include <string>

#include "sim/error.h"

namespace acme {
namespace {

constexpr PolicyEntry kPolicies[] = {
    {"acme", "how Acme scheduled (the baseline): type priority, capacity reserved for pretraining, per-user "
             "limits, backfill every interval, launch latency; defaults fitted to Acme's queueing",
     make_acme_policy},
    {"fifo", "strict first-in first-out: the oldest pending job starts first; nothing overtakes it",
     make_fifo_policy},
    {"greedy", "start every pending job that fits, oldest first; later jobs may overtake a blocked one "
               "(the scheduler of replay: recorded)",
     make_greedy_policy},
    {"priority", "highest priority first (per job type and user, with optional aging), strict order; "
                 "optionally preempts lower-priority jobs",
     make_priority_policy},
    {"quota", "guaranteed GPU quotas per group (job type or user map); idle quota is lent and reclaimed by "
              "preempting the borrowers that started last",
     make_quota_policy},
    {"backfill", "EASY backfill over FIFO or priority order, using run-time estimates (estimate.*), never "
                 "true run times",
     make_backfill_policy},
    {"sjf", "ORACLE: shortest job first by true run time, non-preemptive; a lower bound, not a real scheduler",
     make_sjf_policy},
    {"srtf", "ORACLE: shortest remaining time first by true run time, suspending longer jobs at no cost; a "
             "lower bound, not a real scheduler",
     make_srtf_policy},
};

}  // namespace

std::span<const PolicyEntry> policy_table() { return kPolicies; }

std::unique_ptr<Policy> make_policy(std::string_view name, Params& params) {
  std::string valid;
  for (const PolicyEntry& e : kPolicies) {
    if (e.name == name) {
      auto policy = e.make(params);
      params.check_all_used();
      return policy;
    }
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError("unknown policy '" + std::string(name) + "' (valid: " + valid + ")");
}

std::unique_ptr<Policy> make_policy(std::string_view name) {
  Params defaults("policy", {});
  return make_policy(name, defaults);
}

}  // namespace acme
