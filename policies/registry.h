// The one table of scheduling policies. To add one: write policies/<name>.cpp with a factory,
// declare it below, and add one line to the table in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "sim/io/params.h"
#include "sim/policy.h"

namespace acme {

struct PolicyEntry {
  std::string_view name;
  std::string_view description;
  // Reads the policy's keys (policy.<key>) from `params`, with their defaults.
  std::unique_ptr<Policy> (*make)(Params& params);
};

std::span<const PolicyEntry> policy_table();

// Throws InputError "unknown policy 'x' (valid: ...)" for a name not in the table, and for a
// policy.<key> the policy does not have.
std::unique_ptr<Policy> make_policy(std::string_view name, Params& params);
// The policy with every parameter at its default.
std::unique_ptr<Policy> make_policy(std::string_view name);

// Factories, one per policy file.
std::unique_ptr<Policy> make_fifo_policy(Params&);
std::unique_ptr<Policy> make_greedy_policy(Params&);
std::unique_ptr<Policy> make_priority_policy(Params&);
std::unique_ptr<Policy> make_quota_policy(Params&);
std::unique_ptr<Policy> make_backfill_policy(Params&);
std::unique_ptr<Policy> make_sjf_policy(Params&);
std::unique_ptr<Policy> make_srtf_policy(Params&);

}  // namespace acme
