// An output's columns, each declared once: its name in the header, its meaning, and the cell it
// writes from a row, side by side in one table per output (the sinks, io/sinks.h). The header is
// written from the names and each row from the cells, and a column gives exactly one Cell a row,
// so a header and its rows cannot drift apart. The tables of `configs/README.md`, "Outputs", are
// printed from the meanings (`acmesim list columns`; a test compares them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/csv.h"

namespace acme {

// One cell of a row, as a column gives it; written by CsvWriter's call of its kind.
class Cell {
 public:
  static constexpr Cell blank() { return Cell(Kind::Blank); }
  static constexpr Cell integer(std::int64_t v) {
    Cell c(Kind::Integer);
    c.integer_ = v;
    return c;
  }
  static constexpr Cell real(double v, int decimals = 3) {
    Cell c(Kind::Real);
    c.real_ = v;
    c.decimals_ = decimals;
    return c;
  }
  // Quoted when it holds a comma, a quote or a line break. `s` must outlive the write.
  static constexpr Cell text(std::string_view s) {
    Cell c(Kind::Text);
    c.text_ = s;
    return c;
  }
  // The program's own names (a job type, a state): never quoted, written unlooked at.
  static constexpr Cell name(std::string_view s) {
    Cell c(Kind::Name);
    c.text_ = s;
    return c;
  }
  // real(v, decimals), but captured (io/captured_table.h) as the text the file holds, as the
  // summaries' statistics are: the same bytes in a file.
  static constexpr Cell real_as_text(double v, int decimals = 3) {
    Cell c = real(v, decimals);
    c.kind_ = Kind::RealAsText;
    return c;
  }

  // Inlined where it is called: a column's kind is then known, and the switch goes.
  [[gnu::always_inline]] void write(CsvWriter& csv) const {
    switch (kind_) {
      case Kind::Blank: csv.blank(); break;
      case Kind::Integer: csv.integer(integer_); break;
      case Kind::Real: csv.real(real_, decimals_); break;
      case Kind::Text: csv.text(text_); break;
      case Kind::Name: csv.plain_text(text_); break;
      case Kind::RealAsText: csv.text(format_fixed(real_, decimals_)); break;
    }
  }

 private:
  enum class Kind : std::uint8_t { Blank, Integer, Real, Text, Name, RealAsText };
  explicit constexpr Cell(Kind kind) : kind_(kind) {}
  Kind kind_;
  int decimals_ = 3;
  std::int64_t integer_ = 0;
  double real_ = 0;
  std::string_view text_;
};

// One column of rows of type Row.
template <class Row>
struct Column {
  std::string_view name;
  // What it holds, in Markdown: the meaning column of its table in configs/README.md. Columns
  // next to each other with the same meaning share a line there.
  std::string_view doc;
  Cell (*cell)(const Row&);
};

template <class Row>
void write_names(CsvWriter& csv, std::span<const Column<Row>> columns) {
  for (const Column<Row>& c : columns) csv.text(c.name);
}

template <class Row>
void write_cells(CsvWriter& csv, std::span<const Column<Row>> columns, const Row& row) {
  for (const Column<Row>& c : columns) c.cell(row).write(csv);
}

// A whole file of one table: its header, then a row per element of `rows`; the caller commits.
template <class Row>
void write_table(CsvWriter& csv, std::span<const Column<Row>> columns, std::span<const Row> rows) {
  write_names<Row>(csv, columns);
  csv.end_row();
  csv.expect_rows(rows.size());
  for (const Row& row : rows) {
    write_cells<Row>(csv, columns, row);
    csv.end_row();
  }
}

// write_cells of a constexpr table, each column's call made where it is known, and inlined: for
// the rows of a million jobs.
template <const auto& Columns, class Row>
inline void write_cells(CsvWriter& csv, const Row& row) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (Columns[I].cell(row).write(csv), ...);
  }(std::make_index_sequence<std::size(Columns)>{});
}

// The documentation of one output file's columns (`acmesim list columns`, configs/README.md).
struct ColumnDoc {
  std::string_view name, doc;
};
// Columns written together: always (`when` empty) or under a condition, in Markdown ("with
// `power.enabled` only"). `table` tells a group shared by two files (summary.csv and
// summary_by_type.csv): documented with the first only.
struct ColumnGroupDoc {
  std::string_view when;
  std::vector<ColumnDoc> columns;
  const void* table = nullptr;
};
struct FileColumns {
  std::string_view file;
  std::vector<ColumnGroupDoc> groups;
};

template <class Row>
ColumnGroupDoc group_doc(std::span<const Column<Row>> columns, std::string_view when = {}) {
  ColumnGroupDoc g{when, {}, columns.data()};
  for (const Column<Row>& c : columns) g.columns.push_back({c.name, c.doc});
  return g;
}

// The names a file's header holds when the groups whose `when` is in `on` are written (those
// with an empty `when` always are), in order.
std::vector<std::string> column_names(const FileColumns& file, std::span<const std::string_view> on);

// The Markdown table of each file's columns, between the lines "<!-- columns of FILE: acmesim
// list columns -->" and "<!-- end of columns of FILE -->", as configs/README.md holds them: a row
// per run of columns with the same meaning; a group already in an earlier file's table is one row
// that names its first and last columns and that file.
std::string columns_markdown(std::span<const FileColumns> files);

}  // namespace acme
