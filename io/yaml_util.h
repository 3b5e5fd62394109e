// Typed, strict reading of YAML files through a table of fields. The one home of yaml-cpp.
//
// A YAML document is flattened to dotted keys ("workload.from") with the line each came from.
// A table of Field<T> says which keys exist, what they mean, their defaults (the values in a
// default-constructed T) and how to set and print each. Reading checks every key against the
// table: an unknown key, a wrong type or a bad value is an InputError naming file, line and key.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/error.h"
#include "sim/time.h"

namespace YAML { class Node; }

namespace acme {

// One scalar (or sequence) value of a YAML file, with where it came from.
class YamlValue {
 public:
  YamlValue(std::string file, std::size_t line, std::string key, std::shared_ptr<const YAML::Node> node);

  const std::string& key() const { return key_; }
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }

  // Whether the value is YAML's null (null, ~ or nothing): a sweep axis's "key not set".
  bool is_null() const;
  std::string as_string() const;
  std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  double as_double(double min, double max) const;
  bool as_bool() const;
  Time as_time() const;  // see parse_timestamp
  // The UTC offset a timestamp is written with, in seconds ("...+08:00": 28800); 0 for a date,
  // "Z", or anything else.
  int utc_offset_s() const;
  // A path: relative to the file's folder when read from a file; as given from --set.
  std::string as_path() const;
  // A sequence of numbers, or of [number, number] pairs.
  std::vector<double> as_numbers() const;
  std::vector<std::pair<double, double>> as_pairs() const;
  // A mapping from names to numbers, in file order.
  std::vector<std::pair<std::string, double>> as_named_numbers() const;
  // A sequence's items, each a value with this value's file, line and key.
  std::vector<YamlValue> items() const;
  // A value from the same place (file and line) under another key, holding `text` if given:
  // how a sweep turns its axis "grid.seed: [1, 2]" into the run keys "seed: 1" and "seed: 2".
  YamlValue derive(std::string key, std::optional<std::string> text = std::nullopt) const;

  [[noreturn]] void fail(std::string_view message) const;

 private:
  std::string file_;
  std::size_t line_;
  std::string key_;
  std::shared_ptr<const YAML::Node> node_;
};

// Reads a YAML file and flattens it. Keys listed in `leaf_maps` are kept whole (their value is a
// mapping, read with as_named_numbers) rather than flattened further.
std::vector<YamlValue> read_yaml_file(const std::string& path,
                                      std::span<const std::string_view> leaf_maps = {});

// Makes a value from a `--set key=value` argument; the value text is parsed as YAML.
YamlValue yaml_override(std::string_view assignment);

template <class T>
struct Field {
  std::string_view key;
  std::string_view doc;  // one line: meaning, unit and accepted values
  std::function<void(T&, const YamlValue&)> set;
  std::function<std::string(const T&)> get;
};

// Applies values to `target`; an unknown key is an InputError listing the valid keys.
template <class T>
void apply_fields(std::span<const Field<T>> fields, const std::vector<YamlValue>& values, T& target) {
  for (const YamlValue& v : values) {
    const Field<T>* match = nullptr;
    for (const Field<T>& f : fields)
      if (f.key == v.key()) match = &f;
    if (!match) {
      std::string valid;
      for (const Field<T>& f : fields) valid += (valid.empty() ? "" : ", ") + std::string(f.key);
      v.fail("unknown key (valid keys: " + valid + ")");
    }
    match->set(target, v);
  }
}

// Every field as (key, printed value), in table order.
template <class T>
std::vector<std::pair<std::string, std::string>> describe_fields(std::span<const Field<T>> fields,
                                                                 const T& source) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Field<T>& f : fields) out.emplace_back(std::string(f.key), f.get(source));
  return out;
}

}  // namespace acme
