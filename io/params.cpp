#include "io/params.h"

#include "io/csv.h"

namespace acme {
namespace {

std::string print_number(double v) {
  std::string s = format_fixed(v, 6);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

const YamlValue* Params::find(std::string_view key) {
  const std::string full = prefix_ + "." + std::string(key);
  const YamlValue* found = nullptr;
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (values_[i].key() == full) {
      found = &values_[i];  // the last one wins: --set comes after the file
      used_[i] = true;
    }
  return found;
}

void Params::unrecord(std::string_view key) {
  const std::string full = prefix_ + "." + std::string(key);
  std::erase_if(resolved_, [&](const auto& kv) { return kv.first == full; });
}

void Params::record(std::string_view key, std::string fallback, std::string_view doc, std::string value) {
  const std::string full = prefix_ + "." + std::string(key);
  docs_.push_back({full, std::move(fallback), std::string(doc)});
  resolved_.emplace_back(full, std::move(value));
}

double Params::number(std::string_view key, double fallback, double min, double max, std::string_view doc) {
  const YamlValue* v = find(key);
  const double value = v ? v->as_double(min, max) : fallback;
  record(key, print_number(fallback), doc, print_number(value));
  return value;
}

bool Params::flag(std::string_view key, bool fallback, std::string_view doc) {
  const YamlValue* v = find(key);
  const bool value = v ? v->as_bool() : fallback;
  record(key, fallback ? "true" : "false", doc, value ? "true" : "false");
  return value;
}

std::string Params::path(std::string_view key, std::string_view doc, std::string_view shown_default) {
  const YamlValue* v = find(key);
  std::string value = v ? v->as_path() : std::string();
  record(key, std::string(shown_default), doc, value.empty() ? std::string(shown_default) : value);
  return value;
}

std::string Params::choice(std::string_view key, std::string_view fallback, std::vector<std::string_view> choices,
                           std::string_view doc) {
  const YamlValue* v = find(key);
  std::string value(fallback);
  if (v) {
    value = v->as_string();
    bool ok = false;
    std::string valid;
    for (std::string_view c : choices) {
      ok |= c == value;
      valid += (valid.empty() ? "" : ", ") + std::string(c);
    }
    if (!ok) v->fail("expected one of " + valid + ", got '" + value + "'");
  }
  record(key, std::string(fallback), doc, value);
  return value;
}

std::string Params::text(std::string_view key, std::string_view fallback, std::string_view doc,
                         const std::function<std::optional<std::string>(const std::string&)>& check) {
  const YamlValue* v = find(key);
  std::string value(fallback);
  if (v) {
    value = v->as_string();
    if (const auto wrong = check(value)) v->fail(*wrong);
  }
  record(key, std::string(fallback), doc, value);
  return value;
}

std::vector<std::pair<std::string, double>> Params::table(std::string_view key,
                                                          std::vector<std::pair<std::string, double>> defaults,
                                                          double min, double max, std::string_view doc,
                                                          std::optional<double> others) {
  return checked_table(key, std::move(defaults), min, max, doc, others, {});
}

std::array<std::optional<double>, kJobTypeCount> Params::type_table(
    std::string_view key, std::vector<std::pair<std::string, double>> defaults, double min, double max,
    std::string_view doc, bool gpu_types_only) {
  const auto name_error = [&](const std::string& name) -> std::optional<std::string> {
    const auto t = parse_job_type(name);
    if (t && !(gpu_types_only && *t == JobType::CPU)) return std::nullopt;
    std::string valid;
    for (const std::string_view n : kJobTypeNames)
      if (!(gpu_types_only && n == "CPU")) valid += (valid.empty() ? "" : ", ") + std::string(n);
    return std::string(gpu_types_only ? "not a GPU job type (" : "not a job type (") + valid + ")";
  };
  std::array<std::optional<double>, kJobTypeCount> out;
  for (const auto& [name, value] : checked_table(key, std::move(defaults), min, max, doc, std::nullopt, name_error))
    out[static_cast<std::size_t>(*parse_job_type(name))] = value;
  return out;
}

std::vector<std::pair<std::string, double>> Params::checked_table(
    std::string_view key, std::vector<std::pair<std::string, double>> defaults, double min, double max,
    std::string_view doc, std::optional<double> others,
    const std::function<std::optional<std::string>(const std::string&)>& name_error) {
  const std::string head = prefix_ + "." + std::string(key) + ".";
  std::vector<std::pair<std::string, double>> out = defaults;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].key().rfind(head, 0) != 0) continue;
    used_[i] = true;
    const std::string name = values_[i].key().substr(head.size());
    if (name_error)
      if (const auto wrong = name_error(name)) values_[i].fail(*wrong);
    const double v = values_[i].as_double(min, max);
    bool replaced = false;
    for (auto& [n, x] : out)
      if (n == name) x = v, replaced = true;
    if (!replaced) out.emplace_back(name, v);
  }
  std::string fallback, value;
  for (const auto& [n, x] : defaults) fallback += (fallback.empty() ? "" : " ") + n + ":" + print_number(x);
  for (const auto& [n, x] : out) value += (value.empty() ? "" : " ") + n + ":" + print_number(x);
  if (others) {
    fallback += (fallback.empty() ? "*:" : " *:") + print_number(*others);
    value += (value.empty() ? "*:" : " *:") + print_number(*others);
  }
  record(std::string(key) + ".<name>", fallback, doc, value);
  return out;
}

std::vector<std::pair<std::string, std::string>> Params::take_rest(std::string_view doc) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (used_[i]) continue;
    used_[i] = true;
    const std::string key = values_[i].key().substr(prefix_.size() + 1);
    const std::string value = values_[i].as_string();
    record(key, "", doc, value);
    out.emplace_back(key, value);
  }
  return out;
}

void Params::check_all_used() const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (used_[i]) continue;
    std::string valid;
    for (const Doc& d : docs_) valid += (valid.empty() ? "" : ", ") + d.key;
    values_[i].fail((owner_.empty() ? std::string("not a key here") : "not a key of " + owner_) + " (valid: " +
                    (valid.empty() ? std::string("none") : valid) + ")");
  }
}

}  // namespace acme
