// libFuzzer target: the AcmeTrace reader (read_acme_trace_text), strict and lenient, on any bytes.
// InputError is the reader's answer to bad input; anything else is a finding. Also checked:
// lenient reading accepts whatever strict reading accepts, with the same jobs and no row skipped;
// and the text read in 3 parts on 3 threads gives exactly what one thread gives, the same
// workload or the same error. Bytes that open JSON are also read as a file, which the reader
// hands to Philly's (io/philly_trace.h); bytes with a line "---" are read as PAI's two tables, the
// job table before it and the task table after (workloads/pai_trace.h); bytes that open with
// "name," are also read as a file, which may be Alibaba's 2023 pod list (workloads/openb_trace.h),
// and bytes that open with ';' as one, an SWF log (workloads/swf_trace.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <utility>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "sim/error.h"
#include "workloads/acme_trace_reader.h"

namespace {

// Every field of the workload, or the error.
std::string outcome(std::string_view text, acme::TraceOptions opt, unsigned threads) {
  opt.threads = threads;
  std::string out;
  try {
    const acme::Workload w = acme::read_acme_trace_text(text, "fuzz.csv", opt);
    out = std::to_string(w.rows_skipped) + "," + std::to_string(w.rows_outside_window) + ";";
    for (std::uint32_t u = 0; u < w.users.size(); ++u) out += std::string(w.users[u]) + ",";
    for (std::uint32_t j = 0; j < w.size(); ++j) {
      const acme::JobRequest& r = w.requests[j];
      const acme::JobProfile& p = w.profiles[j];
      out += ";" + std::string(w.names[j]) + "," + std::to_string(r.submit.sec()) + "," + std::to_string(r.gpu_num) +
             "," + std::to_string(r.node_num) + "," + std::to_string(r.cpu_num) + "," +
             std::to_string(static_cast<int>(r.type)) + "," + std::to_string(r.user) + "," +
             std::to_string(p.run.sec()) + "," + std::to_string(static_cast<int>(p.final_state)) + "," +
             (p.recorded_start() ? std::to_string(p.recorded_start()->sec()) : "-") + "," +
             (p.cancel_pending_at() ? std::to_string(p.cancel_pending_at()->sec()) : "-");
    }
  } catch (const acme::InputError& e) {
    out = std::string("error: ") + e.what();
  }
  return out;
}

// Writes each (name, bytes) as a file of its own and reads the first as the trace.
void read_as_files(std::initializer_list<std::pair<const char*, std::string_view>> files) {
  for (const auto& [name, bytes] : files)
    acme::fuzz::write_file(acme::fuzz::configs_mirror() / name, reinterpret_cast<const std::uint8_t*>(bytes.data()),
                           bytes.size());
  try {
    acme::read_acme_trace((acme::fuzz::configs_mirror() / files.begin()->first).string(), acme::TraceOptions{.threads = 1});
  } catch (const acme::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  acme::fuzz::silence_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<std::size_t> strict_jobs;
  try {
    strict_jobs = acme::read_acme_trace_text(text, "fuzz.csv", acme::TraceOptions{.threads = 1}).size();
  } catch (const acme::InputError&) {
  }
  try {
    const acme::Workload lenient =
        acme::read_acme_trace_text(text, "fuzz.csv", acme::TraceOptions{.lenient = true, .threads = 1});
    if (strict_jobs && (lenient.size() != *strict_jobs || lenient.rows_skipped != 0)) std::abort();
  } catch (const acme::InputError&) {
    if (strict_jobs) std::abort();
  }
  for (const bool lenient : {false, true}) {
    const acme::TraceOptions opt{.lenient = lenient};
    if (outcome(text, opt, 3) != outcome(text, opt, 1)) std::abort();
  }
  // Read as files: Philly's JSON, Alibaba's pod list, an SWF log, and PAI's two tables around a "---" line.
  if (size > 0 && (text[0] == '[' || text[0] == '{')) read_as_files({{"philly.json", text}});
  if (text.starts_with("name,")) read_as_files({{"pods.csv", text}});
  if (text.starts_with(";")) read_as_files({{"log.swf", text}});
  if (const std::size_t cut = text.find("\n---\n"); cut != std::string_view::npos)
    read_as_files({{"pai_job_table.csv", text.substr(0, cut + 1)}, {"pai_task_table.csv", text.substr(cut + 5)}});
  return 0;
}
