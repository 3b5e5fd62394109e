// Parameters of a plugin (a policy, the estimate model) under one configuration prefix.
//
// The plugin asks for each of its keys with a default, a range and a one-line doc; what it asks
// for is what exists. Values come from the run configuration ("policy.aging_per_hour: 0.5") or
// --set. Anything under the prefix that the plugin never asked for is an error naming file, line
// and key (check_all_used). resolved() lists every key with the value in force, defaults
// included, for run.json and summary.csv; docs() lists them for `acmesim list`.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/yaml_util.h"
#include "sim/job.h"

namespace acme {

class Params {
 public:
  // `owner` names the plugin in errors ("policy fifo"); empty: the prefix says enough.
  Params(std::string prefix, std::vector<YamlValue> values, std::string owner = "")
      : prefix_(std::move(prefix)), owner_(std::move(owner)), values_(std::move(values)) {}

  double number(std::string_view key, double fallback, double min, double max, std::string_view doc);
  bool flag(std::string_view key, bool fallback, std::string_view doc);
  // A file path (see YamlValue::as_path); empty when not given, when the plugin uses the file
  // named by `shown_default` (listed and recorded as the value in force).
  std::string path(std::string_view key, std::string_view doc, std::string_view shown_default = "");
  std::string choice(std::string_view key, std::string_view fallback, std::vector<std::string_view> choices,
                     std::string_view doc);
  // Free text, checked by `check`, which returns what is wrong with it, or nothing.
  std::string text(std::string_view key, std::string_view fallback, std::string_view doc,
                   const std::function<std::optional<std::string>(const std::string&)>& check);
  // Keys "<prefix>.<key>.<name>" as a name -> number table: the defaults, overridden and
  // extended by the configuration, in default order then configuration order. `others`: the value
  // the plugin takes for a name not in the table, listed and recorded as "*:value".
  std::vector<std::pair<std::string, double>> table(std::string_view key,
                                                    std::vector<std::pair<std::string, double>> defaults,
                                                    double min, double max, std::string_view doc,
                                                    std::optional<double> others = std::nullopt);
  // A table() whose names are job types ("policy.type_priority.Eval"), by type: a name that is not
  // one (nor, with `gpu_types_only`, CPU) is an error naming where it was set.
  std::array<std::optional<double>, kJobTypeCount> type_table(std::string_view key,
                                                              std::vector<std::pair<std::string, double>> defaults,
                                                              double min, double max, std::string_view doc,
                                                              bool gpu_types_only = false);

  // Every value under the prefix no one asked for yet, as (key after the prefix, value as
  // written), marked used and recorded: how a policy written in Python takes its keys.
  std::vector<std::pair<std::string, std::string>> take_rest(std::string_view doc);

  // InputError for the first value under the prefix that no one asked for.
  void check_all_used() const;

  struct Doc {
    std::string key, fallback, doc;
  };
  const std::vector<Doc>& docs() const { return docs_; }
  const std::vector<std::pair<std::string, std::string>>& resolved() const { return resolved_; }
  // Leaves `key` out of resolved() (still read and documented): a key that changes nothing while
  // another is off, left out of the outputs so that they stay as they were before it existed.
  void unrecord(std::string_view key);

 private:
  const YamlValue* find(std::string_view key);
  // table(), with `name_error` saying what is wrong with a configured name, if anything.
  std::vector<std::pair<std::string, double>> checked_table(
      std::string_view key, std::vector<std::pair<std::string, double>> defaults, double min, double max,
      std::string_view doc, std::optional<double> others,
      const std::function<std::optional<std::string>(const std::string&)>& name_error);
  void record(std::string_view key, std::string fallback, std::string_view doc, std::string value);

  std::string prefix_;
  std::string owner_;
  std::vector<YamlValue> values_;
  std::vector<bool> used_ = std::vector<bool>(values_.size(), false);
  std::vector<Doc> docs_;
  std::vector<std::pair<std::string, std::string>> resolved_;
};

}  // namespace acme
