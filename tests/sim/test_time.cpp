#include <catch2/catch.hpp>

#include "sim/time.h"

namespace acme {

TEST_CASE("Timestamps with offsets convert to the same UTC instant", "[time]") {
  CHECK(parse_timestamp("2023-03-01 00:18:22+08:00") == parse_timestamp("2023-02-28 16:18:22+00:00"));
  CHECK(parse_timestamp("2023-02-28T16:18:22Z") == parse_timestamp("2023-02-28 16:18:22+00:00"));
  CHECK(parse_timestamp("1970-01-01 00:00:00+00:00")->sec() == 0);
  CHECK(parse_timestamp("2023-03-01")->sec() == 1677628800);
  CHECK(parse_timestamp("2023-03-01 00:00:00.75-01:30")->sec() == 1677628800 + 5400);
  CHECK(parse_timestamp("2024-02-29")->sec() == 1709164800);
  // ISO 8601's other offsets: strftime's %z, and PostgreSQL's timestamptz (hours alone).
  CHECK(parse_timestamp("2023-03-01 00:18:22+0800") == parse_timestamp("2023-03-01 00:18:22+08:00"));
  CHECK(parse_timestamp("2023-03-01 00:18:22-0530") == parse_timestamp("2023-03-01 00:18:22-05:30"));
  CHECK(parse_timestamp("2023-03-01 00:18:22+08") == parse_timestamp("2023-03-01 00:18:22+08:00"));
  CHECK(parse_timestamp("2023-03-01T00:18:22.5-03") == parse_timestamp("2023-03-01 03:18:22+00:00"));
}

TEST_CASE("Impossible dates, missing offsets and stray text are refused", "[time]") {
  for (const char* bad : {"2023-02-29", "2023-13-01", "2023-03-01 24:00:00+00:00", "2023-03-01 00:00:00",
                          "2023-03-01 00:00:00+8", "2023-03-01 00:00:00+080",
                          "2023-03-01 00:00:00+08:0", "2023-03-01 00:00:00+08:00x", "2023-03-01 00:00:00+0860",
                          "2023-03-01 00:00:00+1500", "2023-03-01 00:00:00 +08:00", "", "yesterday", "2023/03/01"})
    CHECK_FALSE(parse_timestamp(bad).has_value());
}

TEST_CASE("Formatting inverts parsing in any offset", "[time]") {
  const Time t = *parse_timestamp("2023-08-31 23:59:59+08:00");
  CHECK(format_timestamp(t, 8 * 3600) == "2023-08-31 23:59:59+08:00");
  CHECK(format_timestamp(t) == "2023-08-31 15:59:59+00:00");
  CHECK(parse_timestamp(format_timestamp(t, -5 * 3600)) == t);
  CHECK(format_timestamp(t, -(5 * 3600 + 30 * 60)) == "2023-08-31 10:29:59-05:30");
  CHECK(format_timestamp(Time::seconds(0)) == "1970-01-01 00:00:00+00:00");
  CHECK(format_timestamp(Time::seconds(-1)) == "1969-12-31 23:59:59+00:00");
  // Past the four-digit years, the slow path widens the field.
  CHECK(format_timestamp(Time::seconds(days_from_civil(10000, 1, 1) * 86400)) == "10000-01-01 00:00:00+00:00");
  char buf[48];
  CHECK(format_timestamp(t, 0, buf) == "2023-08-31 15:59:59+00:00");
}

}  // namespace acme
