#include "io/columns.h"

#include <algorithm>

namespace acme {
namespace {

// Built by appends: GCC 12 warns falsely (-Wstringop-overflow, its bug 105329's family) on
// "`" + std::string(name) + "`" once inlined into a unity batch.
std::string quoted(std::string_view name) {
  std::string out(1, '`');
  out.append(name).push_back('`');
  return out;
}

// "with `power.enabled` only: " before a meaning, or nothing.
std::string condition(const ColumnGroupDoc& g) { return g.when.empty() ? "" : std::string(g.when) + ": "; }

// A row per run of columns with the same meaning.
void group_rows(std::string& out, const ColumnGroupDoc& g) {
  for (std::size_t i = 0; i < g.columns.size();) {
    std::size_t j = i + 1;
    while (j < g.columns.size() && g.columns[j].doc == g.columns[i].doc) ++j;
    out += "| ";
    for (std::size_t k = i; k < j; ++k) out += (k > i ? ", " : "") + quoted(g.columns[k].name);
    out += " | " + condition(g) + std::string(g.columns[i].doc) + " |\n";
    i = j;
  }
}

}  // namespace

std::vector<std::string> column_names(const FileColumns& file, std::span<const std::string_view> on) {
  std::vector<std::string> names;
  for (const ColumnGroupDoc& g : file.groups)
    if (g.when.empty() || std::find(on.begin(), on.end(), g.when) != on.end())
      for (const ColumnDoc& c : g.columns) names.emplace_back(c.name);
  return names;
}

std::string columns_markdown(std::span<const FileColumns> files) {
  std::string out;
  std::vector<std::pair<const void*, std::string_view>> listed;  // group tables, and the file listing them
  for (const FileColumns& f : files) {
    if (!out.empty()) out += "\n";
    out += "<!-- columns of " + std::string(f.file) + ": acmesim list columns -->\n| column | meaning |\n|---|---|\n";
    for (const ColumnGroupDoc& g : f.groups) {
      const auto earlier =
          std::find_if(listed.begin(), listed.end(), [&](const auto& l) { return l.first == g.table; });
      if (earlier == listed.end()) {
        listed.emplace_back(g.table, f.file);
        group_rows(out, g);
        continue;
      }
      out += "| " + quoted(g.columns.front().name);
      if (g.columns.size() > 1) out += (g.columns.size() > 2 ? " ... " : ", ") + quoted(g.columns.back().name);
      out += " | " + condition(g) + "as in " + quoted(earlier->second) + " |\n";
    }
    out += "<!-- end of columns of " + std::string(f.file) + " -->\n";
  }
  return out;
}

}  // namespace acme
