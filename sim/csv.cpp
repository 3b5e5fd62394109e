#include "sim/csv.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include "sim/error.h"

namespace acme {

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)) {
  tmp_ = path_;
  tmp_ += ".tmp";
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw_input_error(path_.string(), 0, "", "cannot write this file");
  buffer_.reserve(1 << 20);
}

OutputFile::~OutputFile() {
  if (file_) {
    std::fclose(file_);
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
  }
}

void OutputFile::flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    throw_input_error(tmp_.string(), 0, "", "write failed (disk full?)");
  buffer_.clear();
}

void OutputFile::write(std::string_view text) {
  buffer_.append(text);
  if (buffer_.size() >= (1 << 20)) flush();
}

void OutputFile::commit() {
  flush();
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!closed) throw_input_error(tmp_.string(), 0, "", "write failed on close (disk full?)");
  std::filesystem::rename(tmp_, path_);
}

std::string format_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  const bool negative_zero = buf[0] == '-' && std::string_view(buf + 1, end).find_first_not_of("0.") == std::string_view::npos;
  return std::string(buf + negative_zero, end);
}

void CsvWriter::separate() {
  if (!first_) row_.push_back(',');
  first_ = false;
}

CsvWriter& CsvWriter::text(std::string_view s) {
  separate();
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    row_.append(s);
    return *this;
  }
  row_.push_back('"');
  for (char c : s) {
    if (c == '"') row_.push_back('"');
    row_.push_back(c);
  }
  row_.push_back('"');
  return *this;
}

CsvWriter& CsvWriter::integer(std::int64_t v) {
  separate();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  row_.append(buf, end);
  return *this;
}

CsvWriter& CsvWriter::real(double v, int decimals) {
  separate();
  if (!std::isfinite(v)) return *this;
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  // "-0.000" prints as "0.000".
  const bool negative_zero = buf[0] == '-' && std::string_view(buf + 1, end).find_first_not_of("0.") == std::string_view::npos;
  row_.append(buf + negative_zero, end);
  return *this;
}

CsvWriter& CsvWriter::blank() {
  separate();
  return *this;
}

CsvWriter& CsvWriter::end_row() {
  row_.push_back('\n');
  file_.write(row_);
  row_.clear();
  first_ = true;
  return *this;
}

}  // namespace acme
