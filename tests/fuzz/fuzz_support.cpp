// The helpers of fuzz_support.h.
#include "fuzz_support.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace acme::fuzz {
namespace fs = std::filesystem;

void silence_logging() { spdlog::set_level(spdlog::level::off); }

namespace {

class ConfigsMirror {
 public:
  ConfigsMirror() {
    std::string pattern = (fs::temp_directory_path() / "acmesim-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    root_ = pattern;
    configs_ = root_ / "configs";
    fs::create_directories(configs_ / "sweeps");
    for (const auto& entry : fs::directory_iterator(fs::path(ACMESIM_SOURCE_DIR) / "configs"))
      if (entry.path().filename() != "sweeps")
        fs::create_symlink(entry.path(), configs_ / entry.path().filename());
  }
  ~ConfigsMirror() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  const fs::path& configs() const { return configs_; }

 private:
  fs::path root_, configs_;
};

}  // namespace

const fs::path& configs_mirror() {
  static const ConfigsMirror mirror;
  return mirror.configs();
}

void write_file(const fs::path& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

}  // namespace acme::fuzz
