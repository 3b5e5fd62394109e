// The one table of scheduling policies. To add one: write policies/<name>.cpp with a factory,
// declare it below, and add one line to the table in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "sim/policy.h"

namespace acme {

struct PolicyEntry {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<Policy> (*make)();
};

std::span<const PolicyEntry> policy_table();

// Throws InputError "unknown policy 'x' (valid: ...)" for a name not in the table.
std::unique_ptr<Policy> make_policy(std::string_view name);

// Factories, one per policy file.
std::unique_ptr<Policy> make_fifo_policy();
std::unique_ptr<Policy> make_greedy_policy();

}  // namespace acme
