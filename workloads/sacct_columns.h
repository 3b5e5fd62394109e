// Slurm's own accounting export, `sacct --parsable2` (fields split at '|', no quotes), read by the
// AcmeTrace reader (workloads/acme_trace_rows.h) as a trace of AcmeTrace's columns: the sacct
// fields that hold each column, and the GPUs of a TRES list. Internal to workloads/.
//
// The export a trace needs (kExport, with a window: -S 2023-03-01 -E 2023-04-01) has one row per
// job allocation (-X; job steps are skipped otherwise). A job never started has no AllocTRES: its
// GPUs are read from ReqTRES, if exported. Its times have no UTC offset (workload.trace_utc_offset
// says the cluster's), a job not started has Start "Unknown" (or "None"), and it has no job type:
// jobs with GPUs are read as Other.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace acme::sacct_columns {

// The sacct fields that hold each AcmeTrace column, in the reader's column order (job_id, user,
// node_num, gpu_num, cpu_num, type, state, submit_time, start_time, end_time), the first found
// taken; matched without regard to case, as sacct's -o takes them. No field holds a job's type.
inline constexpr std::array<std::array<std::string_view, 2>, 10> kFields{{
    {"JobID", "JobIDRaw"},
    {"User", ""},
    {"NNodes", "AllocNodes"},
    {"AllocTRES", ""},
    {"NCPUS", "AllocCPUS"},
    {"", ""},
    {"State", ""},
    {"Submit", ""},
    {"Start", ""},
    {"End", ""},
}};
inline constexpr std::string_view kExport =
    "sacct -a -X -P -o JobID,User,NNodes,NCPUS,AllocTRES,ReqTRES,State,Submit,Start,End";
// The TRES a job asked for, read for its GPUs where AllocTRES is empty (a job never started).
inline constexpr std::string_view kRequested = "ReqTRES";

inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;  // the fields' names are letters: case-blind
  return true;
}

// A job step's row ("123.batch", "123.0", "123.extern"): part of the job of the row without the
// suffix, not a job of its own.
inline bool is_step(std::string_view job_id) { return job_id.find('.') != std::string_view::npos; }

// The GPUs of a TRES list ("billing=16,cpu=16,gres/gpu=8,mem=64G,node=1"): gres/gpu's count, or
// the sum of its typed counts (gres/gpu:a100=8) when it is not given alone; 0 for none. `count`
// reads a count (a whole number) and throws the reader's error for any other text.
template <class Count>
std::int32_t gpus_of_tres(std::string_view tres, Count count) {
  std::optional<std::int32_t> whole;
  std::int32_t typed = 0;
  while (!tres.empty()) {
    const std::size_t comma = tres.find(',');
    const std::string_view item = tres.substr(0, comma);
    tres = comma == std::string_view::npos ? std::string_view{} : tres.substr(comma + 1);
    const std::size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    if (eq == std::string_view::npos || !key.starts_with("gres/gpu")) continue;
    if (key == "gres/gpu") whole = count(item.substr(eq + 1));
    else if (key[8] == ':') typed += count(item.substr(eq + 1));
  }
  return whole.value_or(typed);
}

}  // namespace acme::sacct_columns
