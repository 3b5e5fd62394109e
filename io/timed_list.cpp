#include "io/timed_list.h"

#include <cmath>
#include <exception>

namespace acme {
namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return "";
  return std::string(s.substr(first, s.find_last_not_of(' ') - first + 1));
}

}  // namespace

std::optional<Time> parse_span(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const std::int64_t scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;
  if (scale == 0) return std::nullopt;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(std::string(text.substr(0, text.size() - 1)), &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() - 1 || !(value >= 0) || value > 1e9) return std::nullopt;
  return Time::seconds(std::llround(value * static_cast<double>(scale)));
}

std::optional<std::string> parse_timed_list(const std::string& text, std::vector<TimedItem>& out) {
  out.clear();
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find(';', begin), text.size());
    const std::string item = trim(std::string_view(text).substr(begin, end - begin));
    begin = end + 1;
    if (item.empty()) continue;
    const std::size_t from = item.find(" from "), dur = item.find(" for ");
    const std::string start_text = from == std::string::npos ? "" : trim(item.substr(from + 6, dur == std::string::npos ? std::string::npos : dur - from - 6));
    const auto start = parse_span(start_text);
    const auto length = dur == std::string::npos ? std::nullopt : parse_span(trim(item.substr(dur + 5)));
    if (from == std::string::npos || from == 0 || !start || (dur != std::string::npos && (dur < from || !length)))
      return "'" + item + "' is not 'WHAT from TIME [for TIME]' (times as 10d, 6h, 30m, 45s)";
    out.push_back({trim(item.substr(0, from)), *start, length});
  }
  return std::nullopt;
}

}  // namespace acme
