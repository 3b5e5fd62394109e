// Reading CSV text line by line, for the trace reader (workloads/acme_trace_reader.cpp): two
// bounded line readers (a FILE* through a buffer, or text in memory) that split alike, a field
// splitter and a short printable form of a field for messages. Inline: the reader's inner loop.
#pragma once

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/error.h"

namespace acme::csv_lines {

// The longest line, in bytes without its '\n' (a '\r' before it counts): no AcmeTrace row is near
// that long, and memory stays bounded on any input, a binary file without line breaks included.
constexpr std::size_t kMaxLine = (std::size_t{1} << 20) - 1;

// Reading leniently (workload.lenient), the rows skipped for an error named one by one; the rest
// are counted.
inline constexpr std::uint64_t kShownSkipped = 5;

// Thrown by next() of either reader at a line longer than kMaxLine: its number (1 for the first
// line the reader yields, as number() counts).
struct LongLine {
  std::size_t line;
};

// Yields the lines of a FILE* one at a time through a fixed buffer of 1 MiB; '\r' before '\n' is
// dropped. A line longer than kMaxLine throws LongLine; a read error, InputError.
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
  static constexpr std::size_t kChunk = kMaxLine + 1;
  void refill() {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    if (end_ == buf_.size()) throw LongLine{number_ + 1};
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

// Yields the lines of text in memory as LineReader yields those of a file holding it: the same
// lines, numbers and LongLine. The text must outlive the lines. With `drop_read_pages`, the text
// is a private read-only file mapping (MappedFile) whose pages, once read, are given back every
// MiB (only pages wholly inside the text), so that reading a large file holds little of it.
// Its lines are numbered from `lines_before` + 1.
class TextLines {
 public:
  explicit TextLines(std::string_view text, bool drop_read_pages = false, std::size_t lines_before = 0)
      : text_(text), number_(lines_before), dropped_(drop_read_pages ? page_up(0) : SIZE_MAX) {}

  // Invalidates the line yielded before.
  bool next(std::string_view& line) {
    if (pos_ > dropped_ && (pos_ - dropped_ >= kDropEvery || pos_ == text_.size())) drop_read_pages();
    if (pos_ == text_.size()) return false;
    const std::size_t rest = text_.size() - pos_;
    const void* nl = std::memchr(text_.data() + pos_, '\n', std::min(rest, kMaxLine + 1));
    if (!nl && rest > kMaxLine) throw LongLine{number_ + 1};
    const std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text_.data()) : text_.size();
    line = text_.substr(pos_, end - pos_);
    pos_ = nl ? end + 1 : end;
    ++number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }
  std::size_t number() const { return number_; }
  // Bytes yielded so far, line breaks included.
  std::size_t position() const { return pos_; }

 private:
  static constexpr std::size_t kDropEvery = std::size_t{1} << 20;
  static std::size_t page() {
    static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return size;
  }
  // The offset of the first page boundary at or after offset `i`.
  std::size_t page_up(std::size_t i) const {
    const auto addr = reinterpret_cast<std::uintptr_t>(text_.data()) + i;
    return i + (page() - addr % page()) % page();
  }
  void drop_read_pages() {
    const std::size_t to = page_up(pos_) - (page_up(pos_) == pos_ ? 0 : page());  // whole pages read
    if (to > dropped_)
      ::madvise(const_cast<char*>(text_.data()) + dropped_, to - dropped_, MADV_DONTNEED);
    dropped_ = std::max(dropped_, to);
  }
  std::string_view text_;
  std::size_t pos_ = 0, number_;
  std::size_t dropped_;  // pages below this offset are given back; SIZE_MAX: never
};

// A regular file mapped whole, read-only and private, for TextLines; not mapped (mapped() false)
// when it is empty, not a regular file or cannot be mapped: the caller then streams it.
class MappedFile {
 public:
  explicit MappedFile(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const char*>(p);
        size_ = static_cast<std::size_t>(st.st_size);
        ::madvise(p, size_, MADV_SEQUENTIAL);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool mapped() const { return data_ != nullptr; }
  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
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

// Splits a line without quotes at its delimiters, 16 bytes at a time where SSE2 is there.
inline void split_plain(std::string_view line, std::vector<std::string_view>& out, char delimiter = ',') {
  const char* p = line.data();
  std::size_t start = 0, i = 0;
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(delimiter);
  for (; i + 16 <= line.size(); i += 16) {
    auto mask = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), comma)));
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t c = i + static_cast<std::size_t>(std::countr_zero(mask));
      out.emplace_back(p + start, c - start);
      start = c + 1;
    }
  }
#endif
  for (; i < line.size(); ++i)
    if (p[i] == delimiter) {
      out.emplace_back(p + start, i - start);
      start = i + 1;
    }
  out.emplace_back(p + start, line.size() - start);
}

// Splits a CSV line into fields. Quoted fields may hold commas and doubled quotes; those are
// unescaped into `scratch`, which must outlive the fields. Another delimiter than the comma (the
// '|' of sacct --parsable2) splits at each of them, quotes and all, as sacct writes no quotes.
inline void split(std::string_view line, std::vector<std::string_view>& out, std::string& scratch,
                  char delimiter = ',') {
  out.clear();
  if (delimiter != ',' || line.find('"') == std::string_view::npos) return split_plain(line, out, delimiter);
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
