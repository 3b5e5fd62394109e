// The columns model features add to the outputs (FeatureColumn, sim/feature.h), written by the
// sinks after their own (timeseries.csv, jobs.csv) in the order the run's features were added, and
// documented from the registered features' tables (io/feature_registry.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "io/columns.h"
#include "io/feature_registry.h"
#include "sim/feature.h"

namespace acme {

// Which of a feature's column lists: Feature::interval_columns or Feature::job_columns.
using FeatureColumns = std::span<const FeatureColumn> (Feature::*)() const;

inline Cell cell_of(const FeatureCell& v) {
  return v.decimals < 0 ? Cell::integer(static_cast<std::int64_t>(v.value)) : Cell::real(v.value, v.decimals);
}

// The header names of the features' columns `of`, in order.
inline void write_feature_names(CsvWriter& csv, const std::vector<const Feature*>& features, FeatureColumns of) {
  for (const Feature* f : features)
    for (const FeatureColumn& c : (f->*of)()) csv.text(c.name);
}

// Their cells in `row` (an interval's start time_s, or a JobId).
inline void write_feature_cells(CsvWriter& csv, const std::vector<const Feature*>& features, FeatureColumns of,
                                std::int64_t row) {
  for (const Feature* f : features)
    for (const FeatureColumn& c : (f->*of)()) cell_of(c.cell(*f, row)).write(csv);
}

// The docs of every registered feature's columns `of` (FeatureEntry::interval_columns or
// job_columns): a group per run of a feature's columns written under the same condition.
std::vector<ColumnGroupDoc> feature_column_docs(std::span<const FeatureColumn> FeatureEntry::*of);

}  // namespace acme
