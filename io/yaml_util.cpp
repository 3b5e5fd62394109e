#include "io/yaml_util.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

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

}  // namespace

std::string YamlValue::as_string() const {
  if (!node_->IsScalar()) fail("expected a single value");
  return node_->Scalar();
}

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
    fail("must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
         node_->Scalar());
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

void flatten(const std::string& file, const YAML::Node& node, const std::string& prefix,
             std::span<const std::string_view> leaf_maps, std::vector<YamlValue>& out, std::size_t& keys,
             int depth) {
  for (const auto& kv : node) {
    const std::string key = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    const YAML::Node& value = kv.second;
    const std::size_t line = static_cast<std::size_t>(kv.first.Mark().line + 1);
    if (++keys > kMaxKeys)
      throw_input_error(file, line, key, "more than " + std::to_string(kMaxKeys) + " keys (a mapping repeated through aliases?)");
    const bool keep_whole = std::find(leaf_maps.begin(), leaf_maps.end(), key) != leaf_maps.end();
    if (value.IsMap() && !keep_whole) {
      if (depth == kMaxDepth)
        throw_input_error(file, line, key, "mappings nested more than " + std::to_string(kMaxDepth) +
                                               " deep (a mapping inside itself through an alias?)");
      flatten(file, value, key, leaf_maps, out, keys, depth + 1);
    } else {
      out.emplace_back(file, line, key, std::make_shared<const YAML::Node>(value));
    }
  }
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
    throw_input_error(path, static_cast<std::size_t>(e.mark.line + 1), "", e.msg);
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) throw_input_error(path, 1, "", "expected a mapping of keys to values");
  std::vector<YamlValue> out;
  std::size_t keys = 0;
  flatten(path, root, "", leaf_maps, out, keys, 1);
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
