// Trace files compressed with gzip, read as they are shipped (the Parallel Workloads Archive's SWF
// logs are .swf.gz; a CSV trace may be .csv.gz): told by their first two bytes (1f 8b), not by
// their name, and decompressed through zlib. The one home of zlib. Every reader of a trace's text
// goes through these, so a compressed trace is read as its decompressed text would be.
#pragma once

#include <cstddef>
#include <string>

namespace acme::gzip_text {

// Whether the file opens with gzip's magic bytes; false if it cannot be read.
bool is_gzip(const std::string& path);

// The file's first `least` bytes of text or more (decompressed, if it is gzip): on to the end of
// the line they end in, `most` at most (what a trace's format is told from, with one read).
// Empty if it cannot be read. O(the bytes returned).
std::string head_through_line(const std::string& path, std::size_t least, std::size_t most);

// The file's whole text, decompressed if it is gzip (every member of a concatenated one).
// Throws InputError naming the file if it cannot be opened, or if its compressed data are damaged
// or cut short. O(text).
std::string read_all(const std::string& path);

}  // namespace acme::gzip_text
