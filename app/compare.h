// Comparing the runs of a sweep: `acmesim compare DIR --by policy.name`.
//
// Groups the ok rows of a merged summary.csv by the values of some columns and gives, for each
// group and metric, the mean over the group's runs (usually its seeds), the half-width of the 95%
// confidence interval of that mean (Student's t with n - 1 degrees of freedom; none for n = 1),
// and the ratio of the mean to the baseline group's mean. A swept column (one before run_id)
// other than seed that varies inside a group is pooled into the group's mean, and the comparison
// warns, one line a column naming it and its values ("not set" for an empty cell).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/csv_table.h"

namespace acme {

struct CompareOptions {
  std::vector<std::string> by;       // columns to group by; required
  std::string baseline;              // the baseline group, its values joined by '/'; default: the first group
  std::vector<std::string> metrics;  // default: queue_mean_s, queue_p90_s, gpu_util_pct, wasted_gpu_hours
};

struct MetricStats {
  std::size_t n = 0;             // runs with a value
  double mean = 0;
  std::optional<double> ci95;    // half-width; none for n < 2
  std::optional<double> ratio;   // mean / the baseline's mean; none when that is 0 or missing
};

struct CompareGroup {
  std::string name;  // the --by values joined by '/'
  std::size_t runs = 0;
  std::vector<MetricStats> metrics;  // in the order of Comparison::metrics
};

struct Comparison {
  std::vector<std::string> metrics;
  std::vector<CompareGroup> groups;  // in order of first appearance
  std::string baseline;
  std::vector<std::string> notes;     // failed runs left out
  std::vector<std::string> warnings;  // swept columns that vary inside a group
};

// Throws InputError for a --by column or metric the table does not have, or an unknown baseline.
Comparison compare_runs(const CsvTable& summary, const CompareOptions& options);

// An aligned table for people, then the notes.
std::string format_comparison(const Comparison& c, const CompareOptions& options);

// The 0.975 quantile of Student's t distribution with `df` degrees of freedom (a table for 1..30,
// the normal 1.960 beyond). REQUIRES: df >= 1.
double t_quantile_975(std::size_t df);

}  // namespace acme
