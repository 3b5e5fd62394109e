#include "io/captured_table.h"

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "io/csv.h"

namespace acme {
namespace {

using Kind = CapturedColumn::Kind;

// The column as text: every earlier cell printed as the CSV file would print it.
void to_text(CapturedColumn& c, std::size_t rows) {
  c.codes.assign(rows, -1);
  for (std::size_t r = 0; r < rows; ++r) {
    if (c.is_blank(r)) continue;
    c.codes[r] = c.code_of(c.kind == Kind::Integer ? std::to_string(c.integers[r]) : format_fixed(c.reals[r], c.decimals));
  }
  c.integers.clear();
  c.reals.clear();
  c.kind = Kind::Text;
}

// A plain integer, as a CSV reader would take the text: digits with an optional minus, no
// leading zero (but "0"), at most 18 digits.
std::optional<std::int64_t> plain_integer(std::string_view s) {
  const std::string_view digits = !s.empty() && s[0] == '-' ? s.substr(1) : s;
  if (digits.empty() || digits.size() > 18 || (digits[0] == '0' && digits.size() > 1)) return std::nullopt;
  std::int64_t v = 0;
  for (const char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + (ch - '0');
  }
  return s[0] == '-' ? -v : v;
}

void to_real(CapturedColumn& c, std::size_t rows) {
  c.reals.assign(rows, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t r = 0; r < rows; ++r)
    if (!c.is_blank(r) && c.kind == Kind::Integer) c.reals[r] = static_cast<double>(c.integers[r]);
  c.integers.clear();
  c.kind = Kind::Real;
}

}  // namespace

std::int32_t CapturedColumn::code_of(std::string_view text) {
  // Writers pass the same strings again (a workload's names, packed a few bytes apart; a state's
  // name): in a column of many rows, their address, Fibonacci-hashed, finds the code without a
  // search; the compare makes a stale or shared slot a mere miss.
  constexpr int kSlotBits = 12;
  std::int32_t* slot = nullptr;
  if (codes.size() >= 64) {
    if (by_address_.empty()) by_address_.assign(std::size_t{1} << kSlotBits, -1);
    const std::uint64_t address = reinterpret_cast<std::uintptr_t>(text.data());
    slot = &by_address_[(address * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits)];
    if (*slot >= 0 && distinct[static_cast<std::size_t>(*slot)] == text) return *slot;
  }
  std::int32_t code = -1;
  if (distinct.size() <= 16) {  // a type or a state: comparing beats hashing
    for (std::size_t i = 0; i < distinct.size() && code < 0; ++i)
      if (distinct[i] == text) code = static_cast<std::int32_t>(i);
  } else if (const auto it = index_.find(text); it != index_.end()) {
    code = it->second;
  }
  if (code < 0) {
    code = static_cast<std::int32_t>(distinct.size());
    distinct.emplace_back(text);
    index_.emplace(distinct.back(), code);
  }
  if (slot) *slot = code;
  return code;
}

CapturedColumn& CapturedTable::at(std::size_t column) {
  if (column >= columns.size()) throw std::logic_error("captured table: a row longer than its header");
  CapturedColumn& c = columns[column];
  if (reserved_ > 0) {  // room for the expected rows in what the column fills (a blank one may get integers)
    if (c.kind == Kind::Real) c.reals.reserve(reserved_);
    else if (c.kind == Kind::Text) c.codes.reserve(reserved_);
    else c.integers.reserve(reserved_);
  }
  return c;
}

void CapturedTable::text(std::size_t column, std::string_view s) {
  if (in_header_) {
    header.emplace_back(s);
    columns.emplace_back();
    return;
  }
  CapturedColumn& c = at(column);
  if (c.kind == Kind::Blank || c.kind == Kind::Integer)
    if (const auto v = plain_integer(s)) return integer(column, *v);
  if (c.kind != Kind::Text) to_text(c, rows);
  c.codes.push_back(s.empty() ? -1 : c.code_of(s));
  c.mark(rows, s.empty());
}

void CapturedTable::first_integer(std::size_t column, std::int64_t v) {
  CapturedColumn& c = at(column);
  if (c.kind == Kind::Blank) {
    c.kind = Kind::Integer;
    c.integers.assign(rows, 0);
  }
  if (c.kind == Kind::Integer) c.integers.push_back(v);
  else if (c.kind == Kind::Real) c.reals.push_back(static_cast<double>(v));
  else c.codes.push_back(c.code_of(std::to_string(v)));
  c.mark(rows, false);
}

void CapturedTable::real(std::size_t column, double v, int decimals) {
  CapturedColumn& c = at(column);
  if (c.kind == Kind::Blank || c.kind == Kind::Integer) to_real(c, rows);
  c.decimals = decimals;
  if (c.kind == Kind::Real) c.reals.push_back(v);
  else c.codes.push_back(std::isfinite(v) ? c.code_of(format_fixed(v, decimals)) : -1);
  c.mark(rows, !std::isfinite(v));
}

void CapturedTable::blank(std::size_t column) {
  CapturedColumn& c = at(column);
  switch (c.kind) {
    case Kind::Blank: break;
    case Kind::Integer: c.integers.push_back(0); break;
    case Kind::Real: c.reals.push_back(std::numeric_limits<double>::quiet_NaN()); break;
    case Kind::Text: c.codes.push_back(-1); break;
  }
  c.mark(rows, true);
}

void CapturedTable::reserve(std::size_t n) {
  reserved_ = n;
}

void CapturedTable::end_row() {
  if (in_header_) {
    in_header_ = false;
    return;
  }
  ++rows;
}

}  // namespace acme
