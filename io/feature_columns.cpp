#include "io/feature_columns.h"

namespace acme {

std::vector<ColumnGroupDoc> with_feature_columns(std::vector<ColumnGroupDoc> groups, FeatureOutput output) {
  for (const FeatureEntry& e : feature_table()) {
    const std::span<const FeatureColumn> columns = e.columns[static_cast<std::size_t>(output)];
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i == 0 || columns[i].when != columns[i - 1].when) groups.push_back({columns[i].when, {}, &columns[i]});
      groups.back().columns.push_back({columns[i].name, columns[i].doc});
    }
  }
  return groups;
}

}  // namespace acme
