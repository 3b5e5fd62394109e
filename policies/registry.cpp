#include "policies/registry.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/error.h"

namespace acme {
namespace {
std::vector<std::pair<std::string, PolicyResolver>>& resolvers() {
  static std::vector<std::pair<std::string, PolicyResolver>> table;
  return table;
}
}  // namespace

void set_policy_resolver(std::string_view prefix, PolicyResolver resolver) {
  for (auto& [p, r] : resolvers())
    if (p == prefix) {
      r = resolver;
      return;
    }
  resolvers().emplace_back(prefix, resolver);
}

std::unique_ptr<Policy> make_policy(std::string_view name, Params& params) {
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    for (const auto& [prefix, resolver] : resolvers())
      if (name.substr(0, colon) == prefix) {
        auto policy = resolver(name, params);
        params.check_all_used();
        return policy;
      }
  }
  std::string valid;
  for (const PolicyEntry& e : policy_table()) {
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
