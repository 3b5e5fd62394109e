// Reading CSV text line by line, for the trace reader (workloads/acme_trace_reader.cpp): a
// bounded line reader, a field splitter and a short printable form of a field for messages.
// Inline: the reader's inner loop.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sim/error.h"

namespace acme::csv_lines {

// Yields the lines of a FILE* one at a time through a fixed buffer of 1 MiB; '\r' before '\n' is
// dropped. A line that does not fit the buffer is an error (no AcmeTrace row is near that long):
// memory stays bounded on any input, a binary file without line breaks included.
class LineReader {
 public:
  LineReader(std::FILE* f, std::string_view name) : file_(f), name_(name), buf_(kChunk) {}

  bool next(std::string_view& line) {
    for (;;) {
      if (const void* nl = std::memchr(buf_.data() + begin_, '\n', end_ - begin_)) {
        const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data());
        line = std::string_view(buf_.data() + begin_, pos - begin_);
        begin_ = pos + 1;
        ++number_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      if (eof_) {
        if (begin_ == end_) return false;
        line = std::string_view(buf_.data() + begin_, end_ - begin_);  // no final newline
        begin_ = end_;
        ++number_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      refill();
    }
  }
  std::size_t number() const { return number_; }

 private:
  static constexpr std::size_t kChunk = 1 << 20;
  void refill() {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    if (end_ == buf_.size())
      throw_input_error(name_, number_ + 1, number_ == 0 ? "header" : "",
                        "line longer than 1 MiB (is this an AcmeTrace CSV file?)");
    const std::size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_);
    end_ += got;
    // A read error must not pass for the end of the file: the rows after it would be lost.
    if (got == 0 && std::ferror(file_))
      throw_input_error(name_, 0, "", std::string("cannot read the file: ") + std::strerror(errno));
    if (got == 0) eof_ = true;
  }
  std::FILE* file_;
  std::string_view name_;
  std::vector<char> buf_;
  std::size_t begin_ = 0, end_ = 0, number_ = 0;
  bool eof_ = false;
};

// A field that cannot be split off its line: the field's position and the message.
struct SplitError {
  std::size_t field;
  std::string message;
};

// `s` quoted for a message: control bytes shown as \xNN and anything past 40 bytes cut, so that a
// binary or runaway field still makes a short one-line message.
inline std::string shown(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (const char c : s.substr(0, kMax)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out.push_back(c);
      continue;
    }
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02x", u);
    out += hex;
  }
  out += s.size() > kMax ? "'..." : "'";
  return out;
}

// Splits a CSV line into fields. Quoted fields may hold commas and doubled quotes; those are
// unescaped into `scratch`, which must outlive the fields.
inline void split(std::string_view line, std::vector<std::string_view>& out, std::string& scratch) {
  out.clear();
  scratch.clear();
  scratch.reserve(line.size());
  std::size_t i = 0;
  for (;;) {
    if (i < line.size() && line[i] == '"') {
      const std::size_t begin = scratch.size();
      ++i;
      for (;;) {
        if (i >= line.size()) throw SplitError{out.size(), "a quoted field is not closed on its line"};
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            scratch.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        scratch.push_back(line[i++]);
      }
      out.emplace_back(scratch.data() + begin, scratch.size() - begin);
      if (i < line.size() && line[i] != ',') throw SplitError{out.size() - 1, "text after a closing quote"};
    } else {
      const std::size_t comma = line.find(',', i);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      out.push_back(line.substr(i, end - i));
      i = end;
    }
    if (i >= line.size()) return;
    ++i;  // the comma
  }
}

}  // namespace acme::csv_lines
