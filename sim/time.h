// Simulated time.
//
// acmesim has one clock and one unit: whole seconds, the resolution of the AcmeTrace timestamps.
// A `Time` is either an instant (seconds since the Unix epoch, UTC) or a span; both are the same
// type, as in ns-3, so that `end - start` needs no conversion. Doubles appear only at I/O.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace acme {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time seconds(std::int64_t s) { return Time(s); }
  static constexpr Time hours(std::int64_t h) { return Time(h * 3600); }
  static constexpr Time max() { return Time(INT64_MAX); }

  constexpr std::int64_t sec() const { return s_; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(s_ + o.s_); }
  constexpr Time operator-(Time o) const { return Time(s_ - o.s_); }
  constexpr Time& operator+=(Time o) { s_ += o.s_; return *this; }

 private:
  constexpr explicit Time(std::int64_t s) : s_(s) {}
  std::int64_t s_ = 0;
};

// An optional Time in the space of one: the smallest int64 stands for "none". Used like
// std::optional<Time> (which takes 16 bytes) where a million jobs each hold one or two.
class OptionalTime {
 public:
  constexpr OptionalTime() = default;
  constexpr OptionalTime(std::nullopt_t) {}
  constexpr OptionalTime(Time t) : t_(t) {}
  constexpr OptionalTime(const std::optional<Time>& t) : t_(t ? *t : kNone) {}

  constexpr bool has_value() const { return t_ != kNone; }
  constexpr explicit operator bool() const { return has_value(); }
  // REQUIRES: has_value()
  constexpr const Time& operator*() const { return t_; }
  constexpr const Time* operator->() const { return &t_; }
  constexpr Time value_or(Time fallback) const { return has_value() ? t_ : fallback; }
  constexpr void reset() { t_ = kNone; }
  constexpr operator std::optional<Time>() const {
    return has_value() ? std::optional<Time>(t_) : std::nullopt;
  }
  constexpr bool operator==(const OptionalTime&) const = default;

 private:
  static constexpr Time kNone = Time::seconds(INT64_MIN);
  Time t_ = kNone;
};

// Parses "YYYY-MM-DD HH:MM:SS+HH:MM" (also with 'T' for the space, an offset written +HHMM or +HH,
// 'Z' for +00:00, or fractional seconds, which are dropped) and "YYYY-MM-DD" (midnight UTC). Returns nullopt on any other text,
// on an impossible date or time, and on a timestamp without an offset: a time in an unknown zone
// would silently shift a replay by hours (the overload below reads one in a zone given). Does not
// allocate; no iostreams.
std::optional<Time> parse_timestamp(std::string_view text);
// The same, but a date and time without an offset ("2020-06-09 18:41:01", as Helios's traces
// write them) is read at `naive_offset_s` seconds east of UTC, and `naive` says whether it was.
std::optional<Time> parse_timestamp(std::string_view text, int naive_offset_s, bool& naive);

// Formats an instant as "YYYY-MM-DD HH:MM:SS+HH:MM" in the given UTC offset (seconds).
std::string format_timestamp(Time t, int utc_offset_seconds = 0);
// The same into `buf`, without allocating: the returned view points into it. About 60
// instructions (snprintf took 1,300), for writers of a million timestamps.
std::string_view format_timestamp(Time t, int utc_offset_seconds, char (&buf)[48]);

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace acme
