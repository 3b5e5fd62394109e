// Reading the plain CSV tables of traces from elsewhere that the AcmeTrace reader hands on whole
// (PAI's two tables: pai_trace.h; Alibaba's 2023 pod list: openb_trace.h): their first line, their
// lines (also an SWF log's: swf_trace.h), where their columns are, each data line's cells by
// column, numbers and times, and text kept for string_views. Internal to workloads/; no quotes
// (those tables have none).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/gzip_text.h"
#include "sim/error.h"
#include "sim/time.h"
#include "workloads/csv_lines.h"

namespace acme::table_cells {

// The first line of a file's `text` (or of its first bytes), without a byte-order mark or a '\r'.
inline std::string_view first_line_of(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  text = text.substr(0, text.find('\n'));
  if (text.ends_with('\r')) text.remove_suffix(1);
  return text;
}

// The file's first line (of its text, if it is compressed: io/gzip_text.h), as first_line_of says;
// empty if it cannot be read.
inline std::string first_line(const std::string& path) {
  return std::string(first_line_of(gzip_text::head_through_line(path, 0, csv_lines::kMaxLine)));
}

inline std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  csv_lines::split_plain(line, out);
  return out;
}

// Where a table's columns are in its lines: `columns` (the names read), each at its field.
struct Layout {
  std::span<const std::string_view> columns;
  bool header_line = false;    // the first line names them (and is no row)
  std::size_t fields = 0;      // in every line
  std::array<std::size_t, 12> at{};  // [column]: its field
};

// The layout of a header line that names every one of `columns` (in any order, among others);
// none if one is missing.
inline std::optional<Layout> layout_of_header(std::string_view line, std::span<const std::string_view> columns) {
  const std::vector<std::string_view> names = fields_of(line);
  Layout l{columns, true, names.size(), {}};
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto it = std::find(names.begin(), names.end(), columns[c]);
    if (it == names.end()) return std::nullopt;
    l.at[c] = static_cast<std::size_t>(it - names.begin());
  }
  return l;
}

// Digits with at most 9 after a point ("4550879.0", "29.296875"), fast; none for any other form
// (std::from_chars reads those).
inline std::optional<double> decimal(std::string_view s) {
  std::uint64_t whole = 0, part = 0, scale = 1;
  std::size_t i = 0;
  for (; i < s.size() && i < 15 && s[i] >= '0' && s[i] <= '9'; ++i) whole = whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
  if (i == 0) return std::nullopt;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && scale < 1'000'000'000 && s[i] >= '0' && s[i] <= '9'; ++i, scale *= 10)
      part = part * 10 + static_cast<std::uint64_t>(s[i] - '0');
  if (i != s.size()) return std::nullopt;
  return static_cast<double>(whole) + static_cast<double>(part) / static_cast<double>(scale);
}

// A cell of a table's line, for its value and its errors ("file:line: column: message").
struct Cell {
  const std::string& path;
  std::size_t line;
  std::string_view column, text;

  [[noreturn]] void fail(const std::string& what) const { throw_input_error(path, line, column, what); }
  // A number >= 0, or none when empty or NaN (pandas writes NaN so).
  std::optional<double> number() const {
    if (text.empty() || text == "NaN" || text == "nan") return std::nullopt;
    if (const std::optional<double> v = decimal(text)) return v;
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v) || v < 0 || v > 1e15)
      fail("expected a number of 0 or more, got " + csv_lines::shown(text));
    return v;
  }
  // A time in seconds; none when empty or NaN, and when 0 if `zero_is_none` (PAI's "never").
  std::optional<Time> time(bool zero_is_none = true) const {
    const std::optional<double> v = number();
    if (!v || (zero_is_none && *v == 0)) return std::nullopt;
    return Time::seconds(static_cast<std::int64_t>(std::floor(*v)));
  }
};

// Calls line(text, number) for each line of the file (of its text, if compressed), a byte-order
// mark dropped; a line too long or a file that cannot be opened stops with the file named
// (InputError).
template <class Line>
void for_each_line(const std::string& path, Line&& line) {
  const auto each = [&](auto& lines) {
    std::string_view text;
    try {
      while (lines.next(text)) {
        if (lines.number() == 1 && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
        line(text, lines.number());
      }
    } catch (const csv_lines::LongLine& e) {
      throw_input_error(path, e.line, "", "line longer than " + std::to_string(csv_lines::kMaxLine) + " bytes");
    }
  };
  if (gzip_text::is_gzip(path)) {
    const std::string text = gzip_text::read_all(path);
    csv_lines::TextLines lines(text);
    return each(lines);
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw_input_error(path, 0, "", "cannot open the trace file");
  csv_lines::LineReader lines(f.get(), path);
  each(lines);
}

// Calls row(cell) for each data line of the table, `cell(c)` giving the Cell of column c.
template <class Row>
void read_rows(const std::string& path, const Layout& l, Row&& row) {
  std::vector<std::string_view> fields;
  for_each_line(path, [&](std::string_view line, std::size_t number) {
    if ((number == 1 && l.header_line) || line.empty()) return;
    fields.clear();
    csv_lines::split_plain(line, fields);
    if (fields.size() != l.fields)
      throw_input_error(path, number, "",
                        "expected " + std::to_string(l.fields) + " fields, the line has " + std::to_string(fields.size()));
    row([&](std::size_t c) { return Cell{path, number, l.columns[c], fields[l.at[c]]}; });
  });
}

// Text kept for the views into it: blocks that never move.
class TextArena {
 public:
  std::string_view keep(std::string_view s) {
    if (s.size() > left_) {
      const std::size_t size = std::max(kBlock, s.size());
      blocks_.push_back(std::make_unique<char[]>(size));
      next_ = blocks_.back().get();
      left_ = size;
    }
    char* at = next_;
    std::copy(s.begin(), s.end(), at);
    next_ += s.size();
    left_ -= s.size();
    return {at, s.size()};
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

}  // namespace acme::table_cells
