#include "io/csv.h"

#include "io/captured_table.h"

#include <cerrno>

#include <charconv>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <system_error>

#include "sim/error.h"

namespace acme {

void check_output_folder(const std::filesystem::path& dir, std::string_view option) {
  std::error_code ec;
  for (auto p = dir; !p.empty(); p = p.parent_path()) {  // the nearest part of the path that exists
    if (!std::filesystem::exists(p, ec)) {
      if (p == p.parent_path()) break;
      continue;
    }
    if (!std::filesystem::is_directory(p, ec))
      throw InputError(std::string(option) + ": " + dir.string() + ": " + p.string() +
                       " is a file; name a folder for the outputs");
    break;
  }
}

void create_output_folder(const std::filesystem::path& dir, std::string_view option) {
  check_output_folder(dir, option);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(std::string(option) + ": " + dir.string() + ": cannot create this folder (" + ec.message() + ")");
}

DeferredRenames::~DeferredRenames() {
  std::error_code ignored;
  for (const auto& f : files_) std::filesystem::remove(f.first, ignored);
}

void DeferredRenames::add(std::filesystem::path tmp, std::filesystem::path path) {
  std::lock_guard lock(mu_);
  files_.emplace_back(std::move(tmp), std::move(path));
}

void DeferredRenames::rename_all(std::span<const std::string_view> order) {
  std::lock_guard lock(mu_);
  auto rank = [&](const std::filesystem::path& p) {
    const std::string name = p.filename().string();
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), name) - order.begin());
  };
  std::stable_sort(files_.begin(), files_.end(),
                   [&](const auto& a, const auto& b) { return rank(a.second) < rank(b.second); });
  while (!files_.empty()) {
    std::filesystem::rename(files_.front().first, files_.front().second);
    files_.erase(files_.begin());
  }
}

OutputFile::OutputFile(std::filesystem::path path, DeferredRenames* renames)
    : path_(std::move(path)), renames_(renames) {
  tmp_ = path_;
  tmp_ += ".tmp";
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (file_) return;
  const std::string reason = std::strerror(errno);
  const auto folder = path_.parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw_input_error(path_.string(), 0, "", "cannot write this file: its folder " + folder.string() + " does not exist");
  throw_input_error(path_.string(), 0, "", "cannot write this file (" + reason + ")");
}

OutputFile::~OutputFile() {
  if (file_) {
    std::fclose(file_);
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
  }
}

void OutputFile::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw_input_error(tmp_.string(), 0, "", "write failed (disk full?)");
}

void OutputFile::commit() {
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!closed) throw_input_error(tmp_.string(), 0, "", "write failed on close (disk full?)");
  if (renames_) renames_->add(tmp_, path_);
  else std::filesystem::rename(tmp_, path_);
}

namespace {

// `v` rounded to `decimals` places, as std::to_chars(fixed) prints it but "-0.000" as "0.000".
// Fast path: when v x 10^decimals is below 2^43, its floating-point error is under 0.001, so if
// it is not within 0.49 of a tie, rounding it to the nearest integer gives the same digits as
// rounding the exact value. Needs kFixedBytes at `out`; decimals past 16 are taken as 16.
// REQUIRES: v finite.
constexpr std::size_t kFixedBytes = 330;  // a sign, 309 digits (DBL_MAX), a point and 16 decimals
char* write_fixed(char* out, double v, int decimals) {
  static constexpr double kPow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  decimals = std::clamp(decimals, 0, 16);
  if (v >= 0 && v < 0x1p52) {  // a whole number (a slowdown of 1): its digits, then zeros
    if (const auto whole = static_cast<std::uint64_t>(v); static_cast<double>(whole) == v) {
      out = digits::write(out, whole);
      if (decimals > 0) {
        *out = '.';
        std::memset(out + 1, '0', static_cast<std::size_t>(decimals));
        out += decimals + 1;
      }
      return out;
    }
  }
  if (decimals >= 0 && decimals <= 9) {
    const double scaled = v * kPow10[decimals];
    const double rounded = std::nearbyint(scaled);
    if (std::abs(scaled) < 0x1p43 && std::abs(scaled - rounded) < 0.49) {
      const auto n = static_cast<std::int64_t>(rounded);
      if (n < 0) *out++ = '-';
      const std::uint64_t u = n < 0 ? ~static_cast<std::uint64_t>(n) + 1 : static_cast<std::uint64_t>(n);
      char whole[24];  // the integer rounded to, a digit before the point at least
      const int len = static_cast<int>(digits::write(whole, u, decimals + 1) - whole);
      std::memcpy(out, whole, static_cast<std::size_t>(len - decimals));
      out += len - decimals;
      if (decimals > 0) {
        *out++ = '.';
        std::memcpy(out, whole + len - decimals, static_cast<std::size_t>(decimals));
        out += decimals;
      }
      return out;
    }
  }
  char* end = std::to_chars(out, out + kFixedBytes, v, std::chars_format::fixed, decimals).ptr;
  if (out[0] == '-' && std::string_view(out + 1, end).find_first_not_of("0.") == std::string_view::npos) {
    std::memmove(out, out + 1, static_cast<std::size_t>(end - out - 1));
    --end;
  }
  return end;
}

// Bytes that make a CSV text cell need quotes.
constexpr std::array<bool, 256> kNeedsQuotes = [] {
  std::array<bool, 256> t{};
  for (const unsigned char c : {',', '"', '\n', '\r'}) t[c] = true;
  return t;
}();

}  // namespace

std::string format_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "";
  char buf[kFixedBytes];
  return std::string(buf, write_fixed(buf, v, decimals));
}

CsvWriter::CsvWriter(std::filesystem::path path, TableCapture* capture, DeferredRenames* renames) {
  if (capture) {
    // A table made beforehand is only looked up (find is safe beside another thread's finds).
    const std::string name = path.filename().string();
    const auto made = capture->tables.find(name);
    table_ = made != capture->tables.end() ? &made->second : &capture->tables[name];
    *table_ = CapturedTable{};
    return;
  }
  file_.emplace(std::move(path), renames);
  buf_ = std::make_unique_for_overwrite<char[]>(2 * kFlushAt);
  pos_ = row_ = buf_.get();
  end_ = pos_ + 2 * kFlushAt;
}

void CsvWriter::grow(std::size_t n) {
  const auto used = static_cast<std::size_t>(pos_ - buf_.get()), row = static_cast<std::size_t>(row_ - buf_.get());
  const std::size_t size = std::max(2 * static_cast<std::size_t>(end_ - buf_.get()), used + n + 1);
  auto bigger = std::make_unique_for_overwrite<char[]>(size);
  std::memcpy(bigger.get(), buf_.get(), used);
  buf_ = std::move(bigger);
  pos_ = buf_.get() + used;
  row_ = buf_.get() + row;
  end_ = buf_.get() + size;
}

CsvWriter& CsvWriter::text(std::string_view s) {
  if (table_) return captured_text(s);
  bool plain = true;
  for (const char c : s) plain &= !kNeedsQuotes[static_cast<unsigned char>(c)];
  if (plain) return plain_text(s);
  char* out = room(2 * s.size() + 2);
  *out++ = '"';
  for (const char c : s) {
    if (c == '"') *out++ = '"';
    *out++ = c;
  }
  *out++ = '"';
  return end_cell(out);
}

CsvWriter& CsvWriter::captured_text(std::string_view s) {
  table_->text(column_++, s);
  return *this;
}

CsvWriter& CsvWriter::captured_integer(std::int64_t v) {
  table_->integer(column_++, v);
  return *this;
}

CsvWriter& CsvWriter::captured_blank() {
  table_->blank(column_++);
  return *this;
}

CsvWriter& CsvWriter::real(double v, int decimals) {
  if (table_) {
    table_->real(column_++, v, decimals);
    return *this;
  }
  char* out = room(kFixedBytes);
  return end_cell(std::isfinite(v) ? write_fixed(out, v, decimals) : out);
}

CsvWriter& CsvWriter::end_row() {
  if (table_) {
    table_->end_row();
    column_ = 0;
    return *this;
  }
  if (pos_ != row_) {
    pos_[-1] = '\n';  // the last cell's comma
  } else {  // a row of no cells: an empty line
    *room(0) = '\n';
    ++pos_;
  }
  row_ = pos_;
  if (static_cast<std::size_t>(pos_ - buf_.get()) >= kFlushAt) {
    file_->write(std::string_view(buf_.get(), static_cast<std::size_t>(pos_ - buf_.get())));
    pos_ = row_ = buf_.get();
  }
  return *this;
}

void CsvWriter::expect_rows(std::size_t rows) {
  if (table_) table_->reserve(rows);
}

void CsvWriter::commit() {
  if (table_) return;
  file_->write(std::string_view(buf_.get(), static_cast<std::size_t>(pos_ - buf_.get())));
  pos_ = row_ = buf_.get();
  file_->commit();
}

}  // namespace acme
