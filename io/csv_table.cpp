#include "io/csv_table.h"

#include <fstream>
#include <sstream>

#include "sim/error.h"

namespace acme {

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

CsvTable parse_csv(std::string_view text, const std::string& name) {
  CsvTable table;
  std::vector<std::string> row;
  std::string cell;
  std::size_t line = 1, row_line = 1;
  bool quoted = false, in_row = false;
  auto end_row = [&] {
    row.push_back(std::move(cell));
    cell.clear();
    if (table.header.empty()) {
      table.header = std::move(row);
    } else {
      if (row.size() != table.header.size())
        throw_input_error(name, row_line, "",
                          "expected " + std::to_string(table.header.size()) + " cells, got " +
                              std::to_string(row.size()));
      table.rows.push_back(std::move(row));
    }
    row.clear();
    in_row = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_row) {
      in_row = true;
      row_line = line;
    }
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        line += c == '\n';
        cell.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n') {
      ++line;
      end_row();
    } else if (c != '\r') {
      cell.push_back(c);
    }
  }
  if (quoted) throw_input_error(name, row_line, "", "unterminated quoted cell");
  if (in_row) end_row();
  return table;
}

CsvTable read_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error(path.string(), 0, "", "no such file");
  std::stringstream s;
  s << in.rdbuf();
  return parse_csv(s.str(), path.string());
}

}  // namespace acme
