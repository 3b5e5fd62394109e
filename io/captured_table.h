// Tables kept in memory instead of written: how the Python module gets a run's outputs as
// DataFrames without writing CSV and reading it back. A CsvWriter given a TableCapture fills the
// table of its file's name cell by cell, typed as the writer was called: the first row is the
// header, then a column is integer, real or text as its cells are (an integer column that meets
// a real becomes real, any column that meets a text becomes text), and blank cells are marked. A
// text that is a plain integer ("12345", a job id) counts as an integer, as a CSV reader takes it.
// Texts are kept dictionary-encoded: a code a row into the column's distinct texts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace acme {

struct CapturedColumn {
  enum class Kind : std::uint8_t { Blank, Integer, Real, Text };  // Blank: every cell so far
  Kind kind = Kind::Blank;
  std::vector<std::int64_t> integers;  // kind Integer: one a row (0 where blank)
  std::vector<double> reals;           // kind Real: one a row (NaN where blank)
  int decimals = 3;                    // kind Real: the decimals the file prints them with
  std::vector<std::int32_t> codes;     // kind Text: one a row, into `distinct` (-1 where blank)
  std::vector<std::string> distinct;   // kind Text: each text once, in order of first use
  // One a row, 1 where the cell was blank; empty while no cell was (most columns never are).
  std::vector<std::uint8_t> blank;
  bool is_blank(std::size_t row) const { return !blank.empty() && blank[row]; }
  // Records the cell of `row` as blank or not.
  void mark(std::size_t row, bool is_blank) {
    if (is_blank && blank.empty()) blank.assign(row, 0);
    if (is_blank || !blank.empty()) blank.push_back(is_blank ? 1 : 0);
  }

  // The code of a text, added to `distinct` if new. O(1) expected; in a column of many rows, a text
  // passed again from the same memory (a workload's user name) is found by its address and one
  // compare.
  std::int32_t code_of(std::string_view text);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> index_;
  // By a slot of the text's address, the code last found there (-1: none); a guess, checked.
  std::vector<std::int32_t> by_address_;
};

struct CapturedTable {
  std::vector<std::string> header;
  std::vector<CapturedColumn> columns;  // as many as the header
  std::size_t rows = 0;

  // The writer's calls, for cell `column` of the current row (the header row first).
  void text(std::size_t column, std::string_view s);
  void integer(std::size_t column, std::int64_t v) {  // inline: a million rows of integers
    if (column < columns.size() && columns[column].kind == CapturedColumn::Kind::Integer) {
      columns[column].integers.push_back(v);
      columns[column].mark(rows, false);
      return;
    }
    first_integer(column, v);
  }
  void real(std::size_t column, double v, int decimals = 3);
  void blank(std::size_t column);
  void end_row();
  // Room for `rows` rows in every column, once the header is in: no growth on the way.
  void reserve(std::size_t rows);

 private:
  void first_integer(std::size_t column, std::int64_t v);  // integer() but on an integer column
  CapturedColumn& at(std::size_t column);
  bool in_header_ = true;
  std::size_t reserved_ = 0;  // rows the writer expects (reserve); 0: unknown
};

struct TableCapture {
  std::map<std::string, CapturedTable> tables;  // by file name: "jobs.csv", ...
  std::map<std::string, std::string> texts;     // other files whole: "run.json"
};

}  // namespace acme
