#include "sim/io/captured_table.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/io/csv.h"

namespace acme {
namespace {

using Kind = CapturedColumn::Kind;

// The column as text: every earlier cell printed as the CSV file would print it.
void to_text(CapturedColumn& c, std::size_t rows) {
  c.texts.assign(rows, "");
  for (std::size_t r = 0; r < rows; ++r) {
    if (c.blank[r]) continue;
    c.texts[r] = c.kind == Kind::Integer ? std::to_string(c.integers[r]) : format_fixed(c.reals[r], 3);
  }
  c.integers.clear();
  c.reals.clear();
  c.kind = Kind::Text;
}

void to_real(CapturedColumn& c, std::size_t rows) {
  c.reals.assign(rows, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t r = 0; r < rows; ++r)
    if (!c.blank[r] && c.kind == Kind::Integer) c.reals[r] = static_cast<double>(c.integers[r]);
  c.integers.clear();
  c.kind = Kind::Real;
}

}  // namespace

CapturedColumn& CapturedTable::at(std::size_t column) {
  if (column >= columns.size()) throw std::logic_error("captured table: a row longer than its header");
  return columns[column];
}

void CapturedTable::text(std::size_t column, std::string_view s) {
  if (in_header_) {
    header.emplace_back(s);
    columns.emplace_back();
    return;
  }
  CapturedColumn& c = at(column);
  if (c.kind != Kind::Text) to_text(c, rows);
  c.texts.emplace_back(s);
  c.blank.push_back(0);
}

void CapturedTable::integer(std::size_t column, std::int64_t v) {
  CapturedColumn& c = at(column);
  if (c.kind == Kind::Blank) {
    c.kind = Kind::Integer;
    c.integers.assign(rows, 0);
  }
  if (c.kind == Kind::Integer) c.integers.push_back(v);
  else if (c.kind == Kind::Real) c.reals.push_back(static_cast<double>(v));
  else c.texts.push_back(std::to_string(v));
  c.blank.push_back(0);
}

void CapturedTable::real(std::size_t column, double v) {
  CapturedColumn& c = at(column);
  if (c.kind == Kind::Blank || c.kind == Kind::Integer) to_real(c, rows);
  if (c.kind == Kind::Real) c.reals.push_back(v);
  else c.texts.push_back(format_fixed(v, 3));
  c.blank.push_back(std::isfinite(v) ? 0 : 1);
}

void CapturedTable::blank(std::size_t column) {
  CapturedColumn& c = at(column);
  switch (c.kind) {
    case Kind::Blank: break;
    case Kind::Integer: c.integers.push_back(0); break;
    case Kind::Real: c.reals.push_back(std::numeric_limits<double>::quiet_NaN()); break;
    case Kind::Text: c.texts.emplace_back(); break;
  }
  c.blank.push_back(1);
}

void CapturedTable::end_row() {
  if (in_header_) {
    in_header_ = false;
    return;
  }
  ++rows;
}

}  // namespace acme
