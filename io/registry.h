// The one way a plugin registers itself: a namespace-scope Registrar in the plugin's own file.
//
//   const PolicyRegistrar kRegistered({"fifo", "one-line description", make_fifo, 10});
//   const FeatureRegistrar kRegistered({"launch", "Launch latency (launch.*): ...", make_launch, 10});
//
// plus its line in its library's source list of CMakeLists.txt (each plugin library is linked
// whole, so that no registrar is dropped by the linker). An Entry has a unique `name`, an `order`
// (where it is listed: by order, then by name) and a static `kKind` naming the plugin kind in
// errors. Nothing else names a plugin: the commands, the validator and the tests go through
// Registry<Entry>::table().
//
// The kinds: policies (policies/registry.h) and model features (io/feature_registry.h) register
// from their own files; outputs (SinkEntry, io/sinks.h) in io/sink_registry.cpp and workload
// sources (workloads/registry.h) in workloads/registry.cpp, whose libraries are not linked whole.
#pragma once

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace acme {

template <class Entry>
class Registry {
 public:
  // Every registered entry, by order then name; the same whatever order the files were linked.
  // Complete once main() runs (registration happens during static initialization).
  static std::span<const Entry> table() { return entries(); }

  // Throws std::logic_error (so the program stops before main) on a name registered twice.
  static void add(const Entry& entry) {
    std::vector<Entry>& table = entries();
    for (const Entry& e : table)
      if (e.name == entry.name)
        throw std::logic_error(std::string(Entry::kKind) + " '" + std::string(entry.name) + "' registered twice");
    const auto at = std::find_if(table.begin(), table.end(), [&](const Entry& e) {
      return e.order != entry.order ? entry.order < e.order : entry.name < e.name;
    });
    table.insert(at, entry);
  }

 private:
  // Built on first use, so that registrars in any file may run first.
  static std::vector<Entry>& entries() {
    static std::vector<Entry> table;
    return table;
  }
};

// Adds `entry` to its kind's table; meant for a namespace-scope object in the plugin's own file.
template <class Entry>
class Registrar {
 public:
  explicit Registrar(const Entry& entry) { Registry<Entry>::add(entry); }
};

}  // namespace acme
