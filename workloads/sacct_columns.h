// Slurm's own accounting export, `sacct --parsable2` (fields split at '|', no quotes), read by the
// AcmeTrace reader (workloads/acme_trace_rows.h) as a trace of AcmeTrace's columns: the sacct
// fields that hold each column, and the GPUs of a TRES list. Internal to workloads/.
//
// The export a trace needs (kExport, with a window: -S 2023-03-01 -E 2023-04-01) has one row per
// job allocation (-X; job steps are skipped otherwise). A job never started has no AllocTRES: its
// GPUs are read from ReqTRES, if exported. Each job's time limit is read from Timelimit, if
// exported. Its times have no UTC offset (workload.trace_utc_offset says the cluster's), a job not
// started has Start "Unknown" (or "None"), and it has no job type: jobs with GPUs are read as Other.
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
    "sacct -a -X -P -o JobID,User,NNodes,NCPUS,AllocTRES,ReqTRES,State,Submit,Start,End,Timelimit";
// The TRES a job asked for, read for its GPUs where AllocTRES is empty (a job never started).
inline constexpr std::string_view kRequested = "ReqTRES";
// The job's time limit, if exported: what Slurm's backfill plans with (Workload::time_limits).
inline constexpr std::string_view kTimelimit = "Timelimit";

inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;  // the fields' names are letters: case-blind
  return true;
}

// A time limit as sacct writes it ([days-]hours:minutes:seconds) or Slurm's --time takes it
// (minutes, minutes:seconds, days-hours, days-hours:minutes), in seconds; 0 for none (empty,
// UNLIMITED, Partition_Limit, INVALID); none for any other text.
inline std::optional<std::int64_t> timelimit_seconds(std::string_view s) {
  if (s.empty() || s == "UNLIMITED" || s == "Partition_Limit" || s == "INVALID") return 0;
  std::int64_t days = 0;
  bool with_days = false;
  const auto number = [](std::string_view d, std::int64_t& out) {
    if (d.empty() || d.size() > 9) return false;
    out = 0;
    for (char c : d) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  if (const std::size_t dash = s.find('-'); dash != std::string_view::npos) {
    if (!number(s.substr(0, dash), days)) return std::nullopt;
    with_days = true;
    s.remove_prefix(dash + 1);
  }
  std::int64_t parts[3] = {0, 0, 0};
  std::size_t n = 0;
  for (; n < 3 && !s.empty(); ++n) {
    const std::size_t colon = s.find(':');
    if (!number(s.substr(0, colon), parts[n])) return std::nullopt;
    s = colon == std::string_view::npos ? std::string_view{} : s.substr(colon + 1);
    if (colon != std::string_view::npos && s.empty()) return std::nullopt;  // a trailing ':'
  }
  if (n == 0 || !s.empty()) return std::nullopt;
  // Without days: minutes, minutes:seconds, hours:minutes:seconds; with them: hours[:minutes[:seconds]].
  const std::int64_t h = with_days || n == 3 ? parts[0] : 0;
  const std::int64_t m = with_days ? parts[1] : n == 3 ? parts[1] : parts[0];
  const std::int64_t sec = with_days ? parts[2] : n == 3 ? parts[2] : parts[1];
  return ((days * 24 + h) * 60 + m) * 60 + sec;
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
