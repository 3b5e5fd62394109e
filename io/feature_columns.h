// The columns model features add to the outputs (FeatureColumn, sim/feature.h): written by the
// sinks after their own (timeseries.csv, jobs.csv, wasted_by_cause.csv, the summaries), in the
// order the run's features were added, and documented from the registered features' tables
// (io/feature_registry.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "io/columns.h"
#include "io/feature_registry.h"
#include "sim/feature.h"

namespace acme {

inline Cell cell_of(const FeatureCell& v) {
  if (v.blank) return Cell::blank();
  return v.decimals < 0 ? Cell::integer(static_cast<std::int64_t>(v.value)) : Cell::real(v.value, v.decimals);
}

// The run's features' columns of one output, in order, gathered once (a feature's columns are the
// same all run): the header names, and each row's cells.
class FeatureColumnsOf {
 public:
  FeatureColumnsOf(const std::vector<const Feature*>& features, FeatureOutput output) {
    for (const Feature* f : features)
      for (const FeatureColumn& c : f->columns(output)) columns_.emplace_back(f, &c);
  }
  void write_names(CsvWriter& csv) const {
    for (const auto& [f, c] : columns_) csv.text(c->name);
  }
  // The cells of `row` (what a row of the output is: FeatureOutput).
  void write_cells(CsvWriter& csv, std::int64_t row) const {
    for (const auto& [f, c] : columns_) cell_of(c->cell(*f, row)).write(csv);
  }

 private:
  std::vector<std::pair<const Feature*, const FeatureColumn*>> columns_;
};

// A file's own column groups `groups`, then the docs of every registered feature's columns of
// `output`: a group per run of a feature's columns written under the same condition.
std::vector<ColumnGroupDoc> with_feature_columns(std::vector<ColumnGroupDoc> groups, FeatureOutput output);

}  // namespace acme
