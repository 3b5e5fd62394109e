// libFuzzer target: the AcmeTrace reader (read_acme_trace_text), strict and lenient, on any bytes.
// InputError is the reader's answer to bad input; anything else is a finding. Also checked:
// lenient reading accepts whatever strict reading accepts, with the same jobs and no row skipped.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "fuzz_support.h"
#include "sim/error.h"
#include "workloads/acme_trace_reader.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  acme::fuzz::silence_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<std::size_t> strict_jobs;
  try {
    strict_jobs = acme::read_acme_trace_text(text, "fuzz.csv", acme::TraceOptions{}).size();
  } catch (const acme::InputError&) {
  }
  try {
    const acme::Workload lenient = acme::read_acme_trace_text(text, "fuzz.csv", acme::TraceOptions{.lenient = true});
    if (strict_jobs && (lenient.size() != *strict_jobs || lenient.rows_skipped != 0)) std::abort();
  } catch (const acme::InputError&) {
    if (strict_jobs) std::abort();
  }
  return 0;
}
