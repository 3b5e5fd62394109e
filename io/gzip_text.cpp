#include "io/gzip_text.h"

#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string_view>

#include "sim/error.h"

namespace acme::gzip_text {
namespace {

using GzFile = std::unique_ptr<gzFile_s, int (*)(gzFile)>;

// zlib reads a file that is not gzip as it is (transparent), so both come through here.
GzFile open(const std::string& path) { return GzFile(gzopen(path.c_str(), "rb"), &gzclose); }

}  // namespace

bool is_gzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  return in.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b';
}

std::string head_through_line(const std::string& path, std::size_t least, std::size_t most) {
  const GzFile f = open(path);
  if (!f) return {};
  std::string out;
  std::size_t got = 0;
  while (got < most) {
    const std::size_t step = std::min(most - got, std::max<std::size_t>(least, 4096));
    out.resize(got + step);
    const int n = gzread(f.get(), out.data() + got, static_cast<unsigned>(step));
    if (n <= 0) break;
    const std::size_t seen = got;
    got += static_cast<std::size_t>(n);
    if (got >= least && std::string_view(out).substr(seen, static_cast<std::size_t>(n)).find('\n') != std::string_view::npos)
      break;
  }
  out.resize(got);
  return out;
}

std::string read_all(const std::string& path) {
  const GzFile f = open(path);
  if (!f) throw InputError(path + ": cannot open the trace file");
  gzbuffer(f.get(), 1u << 17);
  std::string out;
  constexpr std::size_t kStep = std::size_t{1} << 20;
  for (;;) {
    const std::size_t at = out.size();
    out.resize(at + kStep);
    const int n = gzread(f.get(), out.data() + at, static_cast<unsigned>(kStep));
    out.resize(at + static_cast<std::size_t>(std::max(n, 0)));
    int code = Z_OK;
    std::string_view why = gzerror(f.get(), &code);
    if (why.starts_with(path + ": ")) why.remove_prefix(path.size() + 2);  // zlib names the file too
    if (n < 0 || (code != Z_OK && code != Z_STREAM_END))
      throw InputError(path + ": gzip: " + (code == Z_BUF_ERROR ? "cut short (truncated file?)" : std::string(why)) +
                       " (decompress it with gunzip to see where)");
    if (n == 0) break;
  }
  return out;
}

}  // namespace acme::gzip_text
