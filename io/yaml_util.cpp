#include "io/yaml_util.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unordered_map>

namespace acme {

void throw_input_error(std::string_view file, std::size_t line, std::string_view field,
                       std::string_view message) {
  std::string s(file);
  if (line > 0) s += ":" + std::to_string(line);
  s += ": ";
  if (!field.empty()) s += std::string(field) + ": ";
  s += message;
  throw InputError(s);
}

YamlValue::YamlValue(std::string file, std::size_t line, std::string key,
                     std::shared_ptr<const YAML::Node> node)
    : file_(std::move(file)), line_(line), key_(std::move(key)), node_(std::move(node)) {}

void YamlValue::fail(std::string_view message) const {
  throw_input_error(file_, line_, key_, message);
}

namespace {

std::string scalar_text(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string(); }

double number_of(const YamlValue& v, const YAML::Node& n) {
  const std::string s = scalar_text(n);
  try {
    std::size_t used = 0;
    const double d = std::stod(s, &used);
    if (used == s.size() && std::isfinite(d)) return d;
  } catch (const std::exception&) {
  }
  v.fail("expected a number, got '" + s + "'");
}

// A bound of a range as a user would write it: 1 and 86400, not 1.000000 and 86400.000000; 0.5
// as 0.5. Past 1e15 (no key's bound), the shortest text that reads back the same.
std::string bound_text(double d) {
  char buf[64];
  const auto format = std::abs(d) < 1e15 ? std::chars_format::fixed : std::chars_format::general;
  const auto end = std::to_chars(buf, buf + sizeof buf, d, format).ptr;
  return std::string(buf, end);
}

}  // namespace

std::string YamlValue::as_string() const {
  if (!node_->IsScalar()) fail("expected a single value");
  return node_->Scalar();
}

bool YamlValue::is_null() const { return node_->IsNull(); }

std::int64_t YamlValue::as_int(std::int64_t min, std::int64_t max) const {
  const std::string s = as_string();
  std::int64_t v = 0;
  try {
    std::size_t used = 0;
    v = std::stoll(s, &used);
    if (used != s.size()) throw std::invalid_argument(s);
  } catch (const std::exception&) {
    fail("expected a whole number, got '" + s + "'");
  }
  if (v < min || v > max)
    fail("must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + s);
  return v;
}

double YamlValue::as_double(double min, double max) const {
  if (!node_->IsScalar()) fail("expected a number");
  const double d = number_of(*this, *node_);
  if (d < min || d > max)
    fail("must be between " + bound_text(min) + " and " + bound_text(max) + ", got " + node_->Scalar());
  return d;
}

bool YamlValue::as_bool() const {
  const std::string s = as_string();
  if (s == "true") return true;
  if (s == "false") return false;
  fail("expected true or false, got '" + s + "'");
}

Time YamlValue::as_time() const {
  const std::string s = as_string();
  if (auto t = parse_timestamp(s)) return *t;
  fail("expected a date (2023-03-01, midnight UTC) or a timestamp with offset "
       "(2023-03-01 00:00:00+08:00), got '" + s + "'");
}

int YamlValue::utc_offset_s() const {
  if (!node_->IsScalar()) return 0;
  const std::string& s = node_->Scalar();
  const std::optional<Time> at = parse_timestamp(s);
  if (s.size() < 19 || !at) return 0;  // a date alone is midnight UTC
  // Its wall-clock time read at UTC, less the instant it names: its offset, however written.
  const std::optional<Time> wall = parse_timestamp(s.substr(0, 19) + "Z");
  return wall ? static_cast<int>((*wall - *at).sec()) : 0;
}

std::string YamlValue::as_path() const {
  const std::string s = as_string();
  if (s.empty() || line_ == 0 || std::filesystem::path(s).is_absolute()) return s;
  return (std::filesystem::path(file_).parent_path() / s).lexically_normal().string();
}

std::vector<double> YamlValue::as_numbers() const {
  if (!node_->IsSequence()) fail("expected a list of numbers");
  std::vector<double> out;
  for (const auto& item : *node_) out.push_back(number_of(*this, item));
  return out;
}

std::vector<std::pair<double, double>> YamlValue::as_pairs() const {
  if (!node_->IsSequence()) fail("expected a list of [x, y] pairs");
  std::vector<std::pair<double, double>> out;
  for (const auto& item : *node_) {
    if (!item.IsSequence() || item.size() != 2) fail("expected a list of [x, y] pairs");
    out.emplace_back(number_of(*this, item[0]), number_of(*this, item[1]));
  }
  return out;
}

std::vector<std::pair<std::string, double>> YamlValue::as_named_numbers() const {
  if (!node_->IsMap()) fail("expected a mapping of names to numbers");
  std::vector<std::pair<std::string, double>> out;
  for (const auto& kv : *node_) out.emplace_back(kv.first.Scalar(), number_of(*this, kv.second));
  return out;
}

std::vector<YamlValue> YamlValue::items() const {
  if (!node_->IsSequence()) fail("expected a list");
  std::vector<YamlValue> out;
  for (const auto& item : *node_) out.emplace_back(file_, line_, key_, std::make_shared<const YAML::Node>(item));
  return out;
}

YamlValue YamlValue::derive(std::string key, std::optional<std::string> text) const {
  if (!text) return YamlValue(file_, line_, std::move(key), node_);
  return YamlValue(file_, line_, std::move(key), std::make_shared<const YAML::Node>(YAML::Node(*text)));
}

namespace {

// Aliases (&a, *a) let a file of a few lines name one mapping twice at each of 30 levels (a
// billion keys), or put a mapping inside itself (no end). Real files have about a hundred keys
// (configs/workloads/*.yaml), four levels deep at most.
constexpr std::size_t kMaxKeys = 10000;
constexpr int kMaxDepth = 32;

std::size_t line_of(const YAML::Node& key) { return static_cast<std::size_t>(key.Mark().line + 1); }

// yaml-cpp keeps every key of a mapping, the same one twice too, and a lookup finds the first
// while a reader of the flattened keys would take the last: a repeated key is an error instead.
void check_unique_keys(const std::string& file, const YAML::Node& map, const std::string& prefix) {
  std::unordered_map<std::string, std::size_t> seen;
  for (const auto& kv : map) {
    const auto [first, added] = seen.try_emplace(kv.first.Scalar(), line_of(kv.first));
    if (!added)
      throw_input_error(file, line_of(kv.first), prefix + first->first,
                        "given twice, at lines " + std::to_string(first->second) + " and " +
                            std::to_string(line_of(kv.first)));
  }
}

void flatten(const std::string& file, const YAML::Node& node, const std::string& prefix,
             std::span<const std::string_view> leaf_maps, std::vector<YamlValue>& out, std::size_t& keys,
             int depth) {
  check_unique_keys(file, node, prefix.empty() ? prefix : prefix + ".");
  for (const auto& kv : node) {
    const std::string key = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    const YAML::Node& value = kv.second;
    const std::size_t line = line_of(kv.first);
    if (++keys > kMaxKeys)
      throw_input_error(file, line, key, "more than " + std::to_string(kMaxKeys) + " keys (a mapping repeated through aliases?)");
    const bool keep_whole = std::find(leaf_maps.begin(), leaf_maps.end(), key) != leaf_maps.end();
    if (value.IsMap() && !keep_whole) {
      if (depth == kMaxDepth)
        throw_input_error(file, line, key, "mappings nested more than " + std::to_string(kMaxDepth) +
                                               " deep (a mapping inside itself through an alias?)");
      flatten(file, value, key, leaf_maps, out, keys, depth + 1);
    } else {
      if (value.IsMap()) check_unique_keys(file, value, key + ".");
      out.emplace_back(file, line, key, std::make_shared<const YAML::Node>(value));
    }
  }
}

// The same dotted key written twice in two ways ("policy.name: x" and "policy: {name: y}").
void check_unique_flattened(const std::string& file, const std::vector<YamlValue>& values) {
  std::unordered_map<std::string_view, std::size_t> seen;
  for (const YamlValue& v : values) {
    const auto [first, added] = seen.try_emplace(v.key(), v.line());
    if (!added)
      throw_input_error(file, v.line(), v.key(),
                        "given twice, at lines " + std::to_string(first->second) + " and " +
                            std::to_string(v.line()));
  }
}

// yaml-cpp's error for a tab in the indentation ("illegal map value", "illegal tab when looking
// for indentation") names neither the tab nor always its line: the first line up to the error's
// that indents with a tab, if any.
std::optional<std::size_t> tab_indented_line(const std::string& path, std::size_t up_to) {
  std::ifstream in(path);
  std::string text;
  for (std::size_t line = 1; line <= up_to && std::getline(in, text); ++line) {
    const std::size_t indent = text.find_first_not_of(" \t");
    if (text.substr(0, indent).find('\t') != std::string::npos) return line;
  }
  return std::nullopt;
}

}  // namespace

std::vector<YamlValue> read_yaml_file(const std::string& path,
                                      std::span<const std::string_view> leaf_maps) {
  std::error_code ec;  // a name too long for the file system is no such file, not a crash
  if (!std::filesystem::is_regular_file(path, ec)) throw_input_error(path, 0, "", "no such file");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    const auto line = static_cast<std::size_t>(e.mark.line + 1);
    if (const auto tab = tab_indented_line(path, line))
      throw_input_error(path, *tab, "", "a tab in the indentation (YAML indents with spaces only)");
    throw_input_error(path, line, "", e.msg);
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) throw_input_error(path, 1, "", "expected a mapping of keys to values");
  std::vector<YamlValue> out;
  std::size_t keys = 0;
  flatten(path, root, "", leaf_maps, out, keys, 1);
  check_unique_flattened(path, out);
  return out;
}

YamlValue yaml_override(std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw_input_error("--set", 0, "", "expected key=value, got '" + std::string(assignment) + "'");
  std::string key(assignment.substr(0, eq));
  YAML::Node node;
  try {
    node = YAML::Load(std::string(assignment.substr(eq + 1)));
  } catch (const YAML::Exception& e) {
    throw_input_error("--set", 0, key, e.msg);
  }
  if (node.IsNull()) node = YAML::Node(std::string());
  return YamlValue("--set", 0, std::move(key), std::make_shared<const YAML::Node>(node));
}

}  // namespace acme
