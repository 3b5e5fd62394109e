// Reading back the small CSV files acmesim writes (summary.csv and the like), for merging sweeps
// and comparing runs. RFC 4180: quoted cells may hold commas, quotes ("") and line breaks.
// Whole file in memory: meant for tables of thousands of rows, not for traces.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace acme {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as long as the header

  // The column's position, if the header has it.
  std::optional<std::size_t> column(std::string_view name) const;
};

// Throws InputError "<path>: no such file", or "<path>:<line>: ..." for a row whose cell count
// differs from the header's or an unterminated quote.
CsvTable read_csv(const std::filesystem::path& path);

// The same from text already in memory; `name` is used in error messages.
CsvTable parse_csv(std::string_view text, const std::string& name);

}  // namespace acme
