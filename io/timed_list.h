// Lists of timed items, as network.faults and capacity.events write them:
//   "spine 2 from 10d for 6h; add 32 from 20d"
// Items are separated by ';'; each is WHAT, " from " a time, and optionally " for " a time; a
// time is a number and its unit: s, m, h or d.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace acme {

struct TimedItem {
  std::string what;
  Time from;
  std::optional<Time> duration;
};

// "10d", "6h", "30m", "45s"; nothing if it is not that (or negative).
std::optional<Time> parse_span(std::string_view text);

// Parses `text` into `out`; returns what is wrong with it, or nothing. An empty text is no items.
std::optional<std::string> parse_timed_list(const std::string& text, std::vector<TimedItem>& out);

}  // namespace acme
