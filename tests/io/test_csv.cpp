// The CSV writer: quoting, and numbers printed exactly as std::to_chars prints them (its fast
// paths for integers and fixed-point reals must never change a digit).
#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "sim/io/csv.h"

namespace {

std::string reference_fixed(double v, int decimals) {
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  std::string s(buf, end);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("Fixed-point reals print the digits std::to_chars prints, without a negative zero", "[csv]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> exponent(-8, 16);
  for (int i = 0; i < 200000; ++i) {
    const double v = unit(rng) * std::pow(10.0, exponent(rng));
    const int decimals = i % 7;
    REQUIRE(acme::format_fixed(v, decimals) == reference_fixed(v, decimals));
  }
  // Ties and near-ties in binary, and the sign of zero.
  for (double v : {0.0005, 0.0015, 1.0005, 2.5, -2.5, 0.125, -0.0004, -0.0, 1e15 + 0.5, 123456789.0125,
                   0.1 + 0.2, 1.0, 1.05, 9.9995, -9.9995})
    for (int decimals : {0, 1, 2, 3})
      CHECK(acme::format_fixed(v, decimals) == reference_fixed(v, decimals));
  CHECK(acme::format_fixed(-0.0001, 3) == "0.000");
  CHECK(acme::format_fixed(std::nan(""), 3).empty());
}

TEST_CASE("CSV cells: integers at the extremes, quoting only where needed, blank cells", "[csv]") {
  const auto path = std::filesystem::temp_directory_path() / "acmesim_test_csv.csv";
  {
    acme::CsvWriter csv(path);
    csv.integer(0).integer(-1).integer(INT64_MAX).integer(INT64_MIN).integer(1677628893).end_row();
    csv.text("plain").text("a,b").text("say \"hi\"").text("two\nlines").blank().real(1.0).real(-0.0).end_row();
    csv.commit();
  }
  CHECK(slurp(path) ==
        "0,-1,9223372036854775807,-9223372036854775808,1677628893\n"
        "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,1.000,0.000\n");
  std::filesystem::remove(path);
}
