// Tables kept in memory instead of written: how the Python module gets a run's outputs as
// DataFrames without writing CSV and reading it back. A CsvWriter given a TableCapture fills the
// table of its file's name cell by cell, typed as the writer was called: the first row is the
// header, then a column is integer, real or text as its cells are (an integer column that meets
// a real becomes real, any column that meets a text becomes text), and blank cells are marked.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace acme {

struct CapturedColumn {
  enum class Kind : std::uint8_t { Blank, Integer, Real, Text };  // Blank: every cell so far
  Kind kind = Kind::Blank;
  std::vector<std::int64_t> integers;  // kind Integer: one a row (0 where blank)
  std::vector<double> reals;           // kind Real: one a row (NaN where blank)
  std::vector<std::string> texts;      // kind Text: one a row ("" where blank)
  std::vector<std::uint8_t> blank;     // one a row: 1 where the cell was blank
};

struct CapturedTable {
  std::vector<std::string> header;
  std::vector<CapturedColumn> columns;  // as many as the header
  std::size_t rows = 0;

  // The writer's calls, for cell `column` of the current row (the header row first).
  void text(std::size_t column, std::string_view s);
  void integer(std::size_t column, std::int64_t v);
  void real(std::size_t column, double v);
  void blank(std::size_t column);
  void end_row();

 private:
  CapturedColumn& at(std::size_t column);
  bool in_header_ = true;
};

struct TableCapture {
  std::map<std::string, CapturedTable> tables;  // by file name: "jobs.csv", ...
  std::map<std::string, std::string> texts;     // other files whole: "run.json"
};

}  // namespace acme
