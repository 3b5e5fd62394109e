#include "app/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "sim/error.h"

namespace acme {
namespace {

std::size_t require_column(const CsvTable& t, const std::string& name, const char* what) {
  if (auto c = t.column(name)) return *c;
  std::string valid;
  for (const std::string& h : t.header) valid += (valid.empty() ? "" : ", ") + h;
  throw InputError(std::string(what) + ": no column '" + name + "' in summary.csv (columns: " + valid + ")");
}

std::optional<double> number(const std::string& cell) {
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string format_number(double v) {
  char buf[48];
  if (std::fabs(v) >= 10000) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The mean of a group's values of a metric and its 95% confidence half-width (Student's t).
MetricStats stats_of(const std::vector<double>& v) {
  MetricStats s;
  s.n = v.size();
  if (s.n > 0) {
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / static_cast<double>(s.n);
  }
  if (s.n >= 2) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    const double sd = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.ci95 = t_quantile_975(s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
  }
  return s;
}

// The warning for a swept column `key` whose values vary inside groups (`pooled`: group -> its
// values; `first_seen`: the values in row order), if any.
std::optional<std::string> pooling_warning(const std::string& key, const std::map<std::string, std::set<std::string>>& pooled,
                                           const std::vector<std::string>& first_seen) {
  std::set<std::string> mixed;  // the values of the column in the groups where it varies
  for (const auto& [group, seen] : pooled)
    if (seen.size() > 1) mixed.insert(seen.begin(), seen.end());
  if (mixed.empty()) return std::nullopt;
  std::string list;
  for (const std::string& v : first_seen)
    if (mixed.count(v)) list += (list.empty() ? "" : ", ") + (v.empty() ? std::string("not set") : v);
  return key + " varies inside groups (" + list + "), whose means pool its values; add --by " + key +
         " to keep them apart";
}

}  // namespace

double t_quantile_975(std::size_t df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? kTable[df - 1] : 1.960;
}

Comparison compare_runs(const CsvTable& t, const CompareOptions& options) {
  if (options.by.empty()) throw InputError("--by: name at least one column, e.g. --by policy.name");
  Comparison out;
  out.metrics = options.metrics.empty()
                    ? std::vector<std::string>{"queue_mean_s", "queue_p90_s", "gpu_util_pct", "wasted_gpu_hours"}
                    : options.metrics;
  std::vector<std::size_t> by, metric;
  for (const std::string& b : options.by) by.push_back(require_column(t, b, "--by"));
  for (const std::string& m : out.metrics) metric.push_back(require_column(t, m, "--metric"));
  const auto status = t.column("status");
  // The sweep's axes are the columns before run_id.
  std::vector<std::size_t> swept;
  if (const auto id = t.column("run_id"))
    for (std::size_t c = 0; c < *id; ++c)
      if (t.header[c] != "seed" && std::find(by.begin(), by.end(), c) == by.end()) swept.push_back(c);

  std::map<std::string, std::size_t> index;
  std::vector<std::vector<std::vector<double>>> values;  // group, metric, run
  std::vector<std::map<std::string, std::set<std::string>>> pooled(swept.size());  // column, group: values
  std::vector<std::vector<std::string>> first_seen(swept.size());                  // column: values in row order
  std::size_t left_out = 0;
  for (const auto& row : t.rows) {
    if (status && row[*status] != "ok") {
      ++left_out;
      continue;
    }
    std::string name;
    for (std::size_t b : by) name += (name.empty() ? "" : "/") + row[b];
    auto [it, fresh] = index.emplace(name, out.groups.size());
    if (fresh) {
      out.groups.push_back({name, 0, {}});
      values.emplace_back(metric.size());
    }
    ++out.groups[it->second].runs;
    for (std::size_t m = 0; m < metric.size(); ++m)
      if (auto v = number(row[metric[m]])) values[it->second][m].push_back(*v);
    for (std::size_t s = 0; s < swept.size(); ++s) {
      pooled[s][name].insert(row[swept[s]]);
      auto& seen = first_seen[s];
      if (std::find(seen.begin(), seen.end(), row[swept[s]]) == seen.end()) seen.push_back(row[swept[s]]);
    }
  }
  if (out.groups.empty()) throw InputError("summary.csv has no finished runs to compare");

  out.baseline = options.baseline.empty() ? out.groups.front().name : options.baseline;
  if (!index.count(out.baseline)) {
    std::string valid;
    for (const CompareGroup& g : out.groups) valid += (valid.empty() ? "" : ", ") + g.name;
    throw InputError("--baseline: no group '" + out.baseline + "' (groups: " + valid + ")");
  }
  for (std::size_t g = 0; g < out.groups.size(); ++g)
    for (const std::vector<double>& v : values[g]) out.groups[g].metrics.push_back(stats_of(v));
  const CompareGroup& base = out.groups[index.at(out.baseline)];
  for (CompareGroup& g : out.groups)
    for (std::size_t m = 0; m < metric.size(); ++m)
      if (g.metrics[m].n > 0 && base.metrics[m].n > 0 && base.metrics[m].mean != 0)
        g.metrics[m].ratio = g.metrics[m].mean / base.metrics[m].mean;

  if (left_out > 0) out.notes.push_back(std::to_string(left_out) + " runs that did not finish are left out");
  for (std::size_t s = 0; s < swept.size(); ++s)
    if (auto warning = pooling_warning(t.header[swept[s]], pooled[s], first_seen[s])) out.warnings.push_back(*warning);
  return out;
}

std::string format_comparison(const Comparison& c, const CompareOptions& options) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head;
  std::string by;
  for (const std::string& b : options.by) by += (by.empty() ? "" : "/") + b;
  head.push_back(by);
  head.push_back("runs");
  for (const std::string& m : c.metrics) {
    head.push_back(m);
    head.push_back("ratio");
  }
  cells.push_back(head);
  for (const CompareGroup& g : c.groups) {
    std::vector<std::string> row{g.name, std::to_string(g.runs)};
    for (const MetricStats& s : g.metrics) {
      std::string v = s.n == 0 ? "-" : format_number(s.mean);
      if (s.ci95) v += " ± " + format_number(*s.ci95);
      row.push_back(v);
      char ratio[32] = "-";
      if (s.ratio) std::snprintf(ratio, sizeof ratio, "%.3f", *s.ratio);
      row.push_back(ratio);
    }
    cells.push_back(row);
  }
  // Widths in characters, not bytes: "±" is two bytes of UTF-8.
  auto width = [](const std::string& s) {
    std::size_t w = 0;
    for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
    return w;
  };
  std::vector<std::size_t> widths(head.size(), 0);
  for (const auto& row : cells)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], width(row[i]));
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(widths[i] - width(row[i]), ' ');
      line += i == 0 ? row[i] + pad : "  " + pad + row[i];  // first column left, numbers right
    }
    out += line + "\n";
  }
  out += "mean ± half-width of its 95% confidence interval over the group's runs; ratio: mean over the mean of " +
         c.baseline + "\n";
  for (const std::string& n : c.notes) out += "note: " + n + "\n";
  for (const std::string& w : c.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace acme
