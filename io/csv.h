// Output files written whole or not at all, and a fast CSV writer on top.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>
#include <string>
#include <string_view>

#include "io/digits.h"

namespace acme {

struct CapturedTable;
struct TableCapture;

// Whether `dir` can be the output folder, without creating it: InputError naming `option` (--out)
// and the path if it, or a folder above it, is a file. Commands call it before their long work.
void check_output_folder(const std::filesystem::path& dir, std::string_view option = "--out");
// check_output_folder, then creates the folder and its parents if needed (InputError with the
// system's reason if that fails).
void create_output_folder(const std::filesystem::path& dir, std::string_view option = "--out");

// Renames of finished files, held until rename_all(): outputs finished on several threads at once
// then all appear at the end, in one order, and a run killed before leaves only temporary files.
// add() may be called from several threads at once. Destroyed before rename_all() (say, by an
// exception), it removes the temporary files it holds.
class DeferredRenames {
 public:
  DeferredRenames() = default;
  ~DeferredRenames();
  DeferredRenames(const DeferredRenames&) = delete;
  DeferredRenames& operator=(const DeferredRenames&) = delete;

  void add(std::filesystem::path tmp, std::filesystem::path path);
  // Renames every file held: those whose file names `order` lists first, in its order, then the
  // others in the order they were added.
  void rename_all(std::span<const std::string_view> order);

 private:
  std::mutex mu_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files_;  // (tmp, final)
};

// Writes to "<path>.tmp" and renames it to `path` on commit() (given `renames`, hands it the
// rename instead); destroyed without commit() (say, by an exception), it removes the temporary
// file, so no half-written output looks finished. Writes go through stdio's buffer: callers with
// many small writes buffer them (CsvWriter).
class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path, DeferredRenames* renames = nullptr);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  void commit();

 private:
  std::filesystem::path path_, tmp_;
  std::FILE* file_ = nullptr;
  DeferredRenames* renames_;
};

// RFC 4180 CSV, one row at a time: cells are separated by commas, rows end with '\n', and a text
// cell is quoted only when it holds a comma, a quote or a line break. Numbers are printed as
// std::to_chars prints them, so output does not depend on the locale. Cells are formatted straight
// into a buffer that goes to the file every 256 KiB: a cell costs a few nanoseconds.
// Given a TableCapture, it writes no file: its cells go, typed, to the capture's table of the
// path's file name (io/captured_table.h). `renames`: as OutputFile's.
class CsvWriter {
 public:
  explicit CsvWriter(std::filesystem::path path, TableCapture* capture = nullptr, DeferredRenames* renames = nullptr);

  CsvWriter& text(std::string_view s);
  // text() of what needs no quotes, unlooked at: the program's own names (a job type or state).
  CsvWriter& plain_text(std::string_view s) {
    if (table_) return captured_text(s);
    char* out = room(s.size());
    if (!s.empty()) std::memcpy(out, s.data(), s.size());  // an empty view's data() may be null
    return end_cell(out + s.size());
  }
  CsvWriter& integer(std::int64_t v) {
    if (table_) return captured_integer(v);
    return end_cell(digits::write_integer(room(24), v));
  }
  CsvWriter& real(double v, int decimals = 3);
  CsvWriter& blank() {
    if (table_) return captured_blank();
    return end_cell(room(0));
  }
  CsvWriter& end_row();
  // How many rows will follow, when known: a captured table makes room for them at once.
  void expect_rows(std::size_t rows);
  void commit();

 private:
  static constexpr std::size_t kFlushAt = 1 << 18;  // 256 KiB: a bigger buffer only costs memory
  // Where a cell of at most `n` bytes goes (its comma after it). Each cell ends with a comma; the
  // row's last one becomes its line break.
  char* room(std::size_t n) {
    if (n + 1 > static_cast<std::size_t>(end_ - pos_)) grow(n);
    return pos_;
  }
  CsvWriter& end_cell(char* end) {
    *end = ',';
    pos_ = end + 1;
    return *this;
  }
  void grow(std::size_t n);
  CsvWriter& captured_text(std::string_view s);
  CsvWriter& captured_integer(std::int64_t v);
  CsvWriter& captured_blank();
  std::optional<OutputFile> file_;  // none when captured
  CapturedTable* table_ = nullptr;  // when captured
  std::size_t column_ = 0;          // the next cell's column, when captured
  std::unique_ptr<char[]> buf_;     // [buf_, pos_) is written; the current row from row_
  char *pos_ = nullptr, *row_ = nullptr, *end_ = nullptr;
};

// `v` with a fixed number of decimals (0 to 16), trailing zeros kept; "-0.000" prints as "0.000".
std::string format_fixed(double v, int decimals);

}  // namespace acme
