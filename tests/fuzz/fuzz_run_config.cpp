// libFuzzer target: the YAML run configuration and cluster loaders on any bytes, written to a
// file (both read files): load_run_config, then resolve_run (every plugin checks its own keys)
// on the cluster it names; and load_cluster_spec on the same text. InputError is their answer to
// bad input; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "app/app.h"
#include "sim/cluster_spec.h"
#include "io/config.h"
#include "sim/error.h"
#include "io/cluster_file.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  acme::fuzz::silence_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string file = (acme::fuzz::configs_mirror() / "fuzz_input.yaml").string();
  acme::fuzz::write_file(file, data, size);
  try {
    const acme::RunConfig config = acme::load_run_config(file, {});
    acme::resolve_run(config, acme::load_cluster_spec(config.cluster));
  } catch (const acme::InputError&) {
  }
  try {
    acme::load_cluster_spec(file);
  } catch (const acme::InputError&) {
  }
  return 0;
}
