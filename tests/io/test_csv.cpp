// The CSV writer: quoting, and numbers printed exactly as std::to_chars prints them (its fast
// paths for integers, io/digits.h, and fixed-point reals must never change a digit).
#include <catch2/catch.hpp>

#include <charconv>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "io/captured_table.h"
#include "io/csv.h"
#include "io/digits.h"

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
  for (double v : {0.0, 1.0, 7.0, 10.0, 99.0, 100.0, 12345678.0, 4503599627370495.0, 4503599627370496.0, 1e300})
    for (int decimals : {0, 1, 3, 9})  // whole numbers, their own path up to 2^52
      CHECK(acme::format_fixed(v, decimals) == reference_fixed(v, decimals));
  CHECK(acme::format_fixed(-0.0001, 3) == "0.000");
  CHECK(acme::format_fixed(std::nan(""), 3).empty());
}

TEST_CASE("Eight digits at once come out right for every value below 10^8", "[csv]") {
  char expected[8] = {'0', '0', '0', '0', '0', '0', '0', '0'};  // an odometer, one step per value
  std::uint32_t wrong = 0, first_wrong = 0;
  for (std::uint32_t v = 0; v < 100000000; ++v) {
    const std::uint64_t word = acme::digits::eight(v);
    if (std::memcmp(&word, expected, 8) != 0 && wrong++ == 0) first_wrong = v;
    for (int k = 7; k >= 0 && ++expected[k] > '9'; --k) expected[k] = '0';
  }
  INFO("first wrong value: " << first_wrong);
  CHECK(wrong == 0);
}

TEST_CASE("Integers print the digits std::to_chars prints, zero-padded where asked", "[csv]") {
  std::mt19937_64 rng(11);
  auto check = [](std::uint64_t v, int min_digits) {
    char got[48], want[48];
    const std::string_view g(got, acme::digits::write(got, v, min_digits));
    std::string w(want, std::to_chars(want, want + sizeof want, v).ptr);
    if (static_cast<int>(w.size()) < min_digits) w.insert(0, static_cast<std::size_t>(min_digits) - w.size(), '0');
    REQUIRE(g == w);
  };
  for (int digits = 0; digits < 20; ++digits)  // each length, its ends and around them
    for (const std::uint64_t base : {acme::digits::kPow10[digits], acme::digits::kPow10[digits] * 5})
      for (std::uint64_t d = 0; d < 3; ++d)
        for (const int pad : {1, 4, 9, 10, 12}) {
          check(base + d, pad);
          check(base - 1 - d, pad);
        }
  check(UINT64_MAX, 1);
  for (std::uint64_t v = 0; v < 1000; ++v)  // the small counts' own path, and the values just past it
    for (const int pad : {1, 2, 3}) check(v, pad);
  for (int i = 0; i < 200000; ++i) check(rng() >> (rng() % 64), static_cast<int>(rng() % 12) + 1);
  char out[48];
  CHECK(std::string_view(out, acme::digits::write_integer(out, INT64_MIN)) == "-9223372036854775808");
  CHECK(std::string_view(out, acme::digits::write_integer(out, -7)) == "-7");
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

TEST_CASE("A cell longer than the writer's buffer is written whole, between rows written before and after", "[csv]") {
  const auto path = std::filesystem::temp_directory_path() / "acmesim_test_csv_long.csv";
  std::string huge(700000, 'x');  // past the 512 KiB buffer, quoted: it has a quote and a comma
  huge[1000] = '"';
  huge[2000] = ',';
  std::string quoted = huge;
  quoted.insert(1000, 1, '"');
  {
    acme::CsvWriter csv(path);
    for (int i = 0; i < 30000; ++i) csv.integer(i).text("row").end_row();  // most of a flush's worth
    csv.integer(-1).text(huge).blank().end_row();
    csv.end_row();  // a row of no cells: an empty line
    csv.integer(7).end_row();
    csv.commit();
  }
  std::string want;
  for (int i = 0; i < 30000; ++i) want += std::to_string(i) + ",row\n";
  want += "-1,\"" + quoted + "\",\n\n7\n";
  CHECK(slurp(path) == want);
  std::filesystem::remove(path);
}

namespace acme::test {

TEST_CASE("A captured CSV keeps each column typed as written, blanks marked, no file written", "[csv]") {
  // By hand: column a gets integers then a blank; b an integer then a real (becomes real); c a
  // plain-integer text then a word (becomes text, the integer printed back); d texts, one blank.
  TableCapture capture;
  const auto dir = std::filesystem::temp_directory_path();
  CsvWriter csv(dir / "acmesim_captured_never_written.csv", &capture);
  csv.text("a").text("b").text("c").text("d").end_row();
  csv.integer(1).integer(2).text("42").text("Eval").end_row();
  csv.integer(3).real(2.5).text("007").text("").end_row();
  csv.blank().integer(4).text("word").text("Eval").end_row();
  csv.commit();
  CHECK_FALSE(std::filesystem::exists(dir / "acmesim_captured_never_written.csv"));
  const CapturedTable& t = capture.tables.at("acmesim_captured_never_written.csv");
  REQUIRE(t.header == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(t.rows == 3);
  using Kind = CapturedColumn::Kind;
  CHECK(t.columns[0].kind == Kind::Integer);
  CHECK(t.columns[0].integers == std::vector<std::int64_t>{1, 3, 0});
  CHECK(t.columns[0].blank == std::vector<std::uint8_t>{0, 0, 1});
  CHECK(t.columns[1].kind == Kind::Real);
  CHECK(t.columns[1].reals == std::vector<double>{2.0, 2.5, 4.0});
  CHECK(t.columns[2].kind == Kind::Text);
  CHECK(t.columns[2].distinct == std::vector<std::string>{"42", "007", "word"});
  CHECK(t.columns[2].codes == std::vector<std::int32_t>{0, 1, 2});
  CHECK(t.columns[3].codes == std::vector<std::int32_t>{0, -1, 0});
  CHECK(t.columns[3].blank == std::vector<std::uint8_t>{0, 1, 0});
}

TEST_CASE("A captured table of many rows keeps every value, its rows expected or not", "[csv]") {
  // 300,000 rows: each column reserved at once (CsvWriter::expect_rows) or grown.
  for (const std::size_t expected : {std::size_t{0}, std::size_t{300000}}) {
    TableCapture capture;
    CsvWriter csv("big.csv", &capture);
    csv.text("n").text("half").text("word").end_row();
    csv.expect_rows(expected);
    for (std::int64_t i = 0; i < 300000; ++i)
      csv.integer(i * 3).real(0.5 * static_cast<double>(i)).text(i % 2 ? "odd" : "even").end_row();
    const CapturedTable& t = capture.tables.at("big.csv");
    REQUIRE(t.rows == 300000);
    bool all = true;
    for (std::size_t i = 0; i < t.rows; ++i)
      all &= t.columns[0].integers[i] == 3 * static_cast<std::int64_t>(i) &&
             t.columns[1].reals[i] == 0.5 * static_cast<double>(i) && t.columns[2].codes[i] == static_cast<std::int32_t>(i % 2);
    CHECK(all);
  }
}

}  // namespace acme::test
