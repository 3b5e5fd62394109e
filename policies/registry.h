// The one registry of scheduling policies.
//
// A policy is one file, policies/<name>.cpp, that registers itself at namespace scope, the way
// every plugin does (io/registry.h):
//
//   const PolicyRegistrar kRegistered({"fifo", "one-line description", make_fifo, 10});
//
// plus its line in the acmesim_policies source list of CMakeLists.txt. Nothing else names it:
// `acmesim list`, make_policy and every test over every policy (tests/policies/) go through
// policy_table().
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "io/params.h"
#include "io/registry.h"
#include "sim/policy.h"

namespace acme {

struct PolicyEntry {
  std::string_view name;         // the value of policy.name; unique
  std::string_view description;  // one line, for `acmesim list`
  // Reads the policy's keys (policy.<key>) from `params`, with their defaults.
  std::unique_ptr<Policy> (*make)(Params& params);
  int order = 1000;  // where the policy is listed: by order, then by name
  static constexpr std::string_view kKind = "policy";
};

using PolicyRegistrar = Registrar<PolicyEntry>;

// Every registered policy, by order then name.
inline std::span<const PolicyEntry> policy_table() { return Registry<PolicyEntry>::table(); }

// Policies named "<prefix>:<rest>" are made by a resolver instead of the table: the Python module
// registers "python" (policy.name: python:module.Class) when it is imported. The resolver takes
// the whole name and the policy's keys; a prefix set twice keeps the later resolver.
using PolicyResolver = std::unique_ptr<Policy> (*)(std::string_view name, Params& params);
void set_policy_resolver(std::string_view prefix, PolicyResolver resolver);

// Throws InputError "unknown policy 'x' (valid: ...)" for a name not in the table, and for a
// policy.<key> the policy does not have.
std::unique_ptr<Policy> make_policy(std::string_view name, Params& params);
// The policy with every parameter at its default.
std::unique_ptr<Policy> make_policy(std::string_view name);

}  // namespace acme
