// libFuzzer target: the sweep expander (load_sweep) on any bytes, written to a sweep file in a
// copy of configs/sweeps/ (so base: ../kalos.yaml resolves as in the real sweeps). InputError is
// its answer to bad input; anything else is a finding. Sweeps are capped at 128 runs: expanding
// and checking each run takes about a millisecond here, and a real sweep of a million runs would
// only be slow, not wrong.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "sim/error.h"
#include "app/sweep.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  acme::fuzz::silence_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string file = (acme::fuzz::configs_mirror() / "sweeps" / "fuzz_input.yaml").string();
  acme::fuzz::write_file(file, data, size);
  try {
    acme::load_sweep(file, 128);
  } catch (const acme::InputError&) {
  }
  return 0;
}
