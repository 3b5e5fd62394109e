// What the libFuzzer targets in tests/fuzz share: quiet logging, and a private copy of configs/
// to write inputs into, so that an input naming ../kalos.yaml or clusters/seren.yaml (as the
// real configurations and sweeps do) finds those files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace acme::fuzz {

// Turns logging off: lenient reading warns once per bad row, which would flood the fuzzer's output.
void silence_logging();

// A temporary folder (under $TMPDIR) whose entries link to those of the source tree's configs/,
// except sweeps/, an empty folder of its own. Made on the first call, removed at exit.
const std::filesystem::path& configs_mirror();

// Replaces the file at `path` with `size` bytes of `data`.
void write_file(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size);

}  // namespace acme::fuzz
