#include "sim/time.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace acme {
namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// Two digits at `pos`, which the caller has checked are inside `s`.
bool two_digits(std::string_view s, std::size_t pos, int& out) {
  const unsigned hi = static_cast<unsigned char>(s[pos]) - '0';
  const unsigned lo = static_cast<unsigned char>(s[pos + 1]) - '0';
  out = static_cast<int>(hi * 10 + lo);
  return hi <= 9 && lo <= 9;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days since the epoch of "YYYY-MM-DD" at the start of `s`, or nullopt if it is not a real date.
std::optional<std::int64_t> parse_date(std::string_view s) {
  int y, mo, d;
  if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo)) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
}

// parse_timestamp's; with kNaive, a timestamp without an offset is read at `naive_offset_s` (and
// `naive` set), else refused. Two copies: the reader of offsets alone pays for no other.
template <bool kNaive>
std::optional<Time> parse_timestamp_at(std::string_view s, int naive_offset_s, bool& naive) {
  // Traces hold runs of timestamps of the same day: the last date parsed is remembered.
  thread_local char last_date[10] = {};
  thread_local std::int64_t last_day = 0;
  thread_local bool remembered = false;
  std::int64_t day;
  if (remembered && s.size() >= 10 && std::memcmp(s.data(), last_date, 10) == 0) {
    day = last_day;
  } else {
    const std::optional<std::int64_t> parsed = parse_date(s);
    if (!parsed) return std::nullopt;
    day = last_day = *parsed;
    std::memcpy(last_date, s.data(), 10);
    remembered = true;
  }
  if (s.size() == 10) return Time::seconds(day * 86400);

  int h, mi, se;
  if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || !two_digits(s, 11, h) || s[13] != ':' ||
      !two_digits(s, 14, mi) || s[16] != ':' || !two_digits(s, 17, se))
    return std::nullopt;
  if (h > 23 || mi > 59 || se > 59) return std::nullopt;
  std::size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  }
  int offset = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (kNaive && pos == s.size()) {
    offset = naive_offset_s;
    naive = true;
  } else {  // ISO 8601's offsets: +HH:MM, +HHMM (strftime's %z) or +HH
    const std::size_t rest = s.size() - pos;
    int oh, om = 0;
    if (rest == 6) {
      if (s[pos + 3] != ':' || !two_digits(s, pos + 4, om)) return std::nullopt;
    } else if (rest == 5) {
      if (!two_digits(s, pos + 3, om)) return std::nullopt;
    } else if (rest != 3) {
      return std::nullopt;
    }
    if ((s[pos] != '+' && s[pos] != '-') || !two_digits(s, pos + 1, oh) || oh > 14 || om > 59) return std::nullopt;
    offset = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos = s.size();
  }
  if (pos != s.size()) return std::nullopt;
  return Time::seconds(day * 86400 + h * 3600 + mi * 60 + se - offset);
}

}  // namespace

std::optional<Time> parse_timestamp(std::string_view s) {
  bool naive;
  return parse_timestamp_at<false>(s, 0, naive);
}

std::optional<Time> parse_timestamp(std::string_view s, int naive_offset_s, bool& naive) {
  naive = false;
  return parse_timestamp_at<true>(s, naive_offset_s, naive);
}

std::string_view format_timestamp(Time t, int utc_offset_seconds, char (&buf)[48]) {
  const std::int64_t local = t.sec() + utc_offset_seconds;
  std::int64_t z = (local >= 0 ? local : local - 86399) / 86400;
  const auto secs = static_cast<unsigned>(local - z * 86400);
  // civil_from_days (Howard Hinnant)
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
  const unsigned off = static_cast<unsigned>(utc_offset_seconds < 0 ? -utc_offset_seconds : utc_offset_seconds);
  const char sign = utc_offset_seconds < 0 ? '-' : '+';
  if (y < 0 || y > 9999 || off >= 100 * 3600) {  // rare: let snprintf widen the fields
    const int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02u:%02u:%02u%c%02u:%02u", static_cast<long long>(y),
                                m, d, secs / 3600, secs / 60 % 60, secs % 60, sign, off / 3600, off / 60 % 60);
    return {buf, static_cast<std::size_t>(std::min(n, static_cast<int>(sizeof buf) - 1))};
  }
  auto two = [](char* p, unsigned v) {
    p[0] = static_cast<char>('0' + v / 10);
    p[1] = static_cast<char>('0' + v % 10);
  };
  const auto year = static_cast<unsigned>(y);
  two(buf, year / 100);
  two(buf + 2, year % 100);
  buf[4] = '-';
  two(buf + 5, m);
  buf[7] = '-';
  two(buf + 8, d);
  buf[10] = ' ';
  two(buf + 11, secs / 3600);
  buf[13] = ':';
  two(buf + 14, secs / 60 % 60);
  buf[16] = ':';
  two(buf + 17, secs % 60);
  buf[19] = sign;
  two(buf + 20, off / 3600);
  buf[22] = ':';
  two(buf + 23, off / 60 % 60);
  return {buf, 25};
}

std::string format_timestamp(Time t, int utc_offset_seconds) {
  char buf[48];
  return std::string(format_timestamp(t, utc_offset_seconds, buf));
}

}  // namespace acme
