#include "policies/registry.h"

#include <string>

#include "sim/error.h"

namespace acme {
namespace {

constexpr PolicyEntry kPolicies[] = {
    {"fifo", "strict first-in first-out: the oldest pending job starts first; nothing overtakes it",
     make_fifo_policy},
    {"greedy", "start every pending job that fits, oldest first; later jobs may overtake a blocked one "
               "(the scheduler of replay: recorded)",
     make_greedy_policy},
};

}  // namespace

std::span<const PolicyEntry> policy_table() { return kPolicies; }

std::unique_ptr<Policy> make_policy(std::string_view name) {
  std::string valid;
  for (const PolicyEntry& e : kPolicies) {
    if (e.name == name) return e.make();
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError("unknown policy '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace acme
