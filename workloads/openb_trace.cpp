#include "workloads/openb_trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

#include "sim/log.h"
#include "workloads/table_cells.h"

namespace acme {
namespace {

enum PodColumn : std::uint8_t { kPodName, kCpuMilli, kNumGpu, kGpuMilli, kPhase, kCreation, kDeletion, kScheduled };
constexpr std::array<std::string_view, 8> kPodColumns{"name",      "cpu_milli",     "num_gpu",       "gpu_milli",
                                                   "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

JobState state_of_phase(const table_cells::Cell& c) {
  if (c.text == "Succeeded") return JobState::Completed;
  if (c.text == "Failed") return JobState::Failed;
  if (c.text == "Running" || c.text == "Pending") return JobState::Cancelled;
  c.fail("unknown phase " + csv_lines::shown(c.text) + " (the trace's: Succeeded, Running, Pending, Failed)");
}

}  // namespace

bool is_openb_pod_list(std::string_view first_line) {
  return table_cells::layout_of_header(first_line, kPodColumns).has_value();
}

Workload read_openb_pod_list(const std::string& path, const OpenbOptions& opt, std::vector<std::string>* warnings) {
  const std::optional<table_cells::Layout> layout =
      table_cells::layout_of_header(table_cells::first_line(path), kPodColumns);
  if (!layout) throw_input_error(path, 1, "", "not an Alibaba 2023 pod list");
  Workload w;
  w.source = "openb " + path;
  w.window_from = opt.from;
  w.window_to = opt.to;
  const std::uint32_t user = w.users.intern("openb");
  std::unordered_set<std::string> names;
  std::uint64_t shared = 0, rows = 0, outside = 0;
  table_cells::read_rows(path, *layout, [&](const auto& cell) {
    ++rows;
    const table_cells::Cell name = cell(kPodName);
    if (name.text.empty()) name.fail("empty");
    JobRequest r;
    const std::optional<Time> created = cell(kCreation).time(false), deleted = cell(kDeletion).time(false);
    if (!created) cell(kCreation).fail("missing");
    if (!deleted) cell(kDeletion).fail("missing");
    if (*deleted < *created) cell(kDeletion).fail("before creation_time");
    std::optional<Time> scheduled = cell(kScheduled).time(false);
    if (scheduled && (*scheduled < *created || *scheduled > *deleted)) {
      ++outside;
      scheduled = std::clamp(*scheduled, *created, *deleted);
    }
    r.submit = *created;
    if ((opt.from && r.submit < *opt.from) || (opt.to && r.submit >= *opt.to)) return void(++w.rows_outside_window);
    const double gpus = cell(kNumGpu).number().value_or(0), cores = cell(kCpuMilli).number().value_or(0) / 1000;
    if (gpus != std::floor(gpus) || gpus > 64) cell(kNumGpu).fail("expected a whole number of GPUs up to 64");
    if (cores > 1e6) cell(kCpuMilli).fail("more than a million cores");
    shared += gpus > 0 && cell(kGpuMilli).number().value_or(1000) < 1000;
    r.gpu_num = static_cast<std::int32_t>(gpus);
    r.cpu_num = static_cast<std::int32_t>(std::ceil(cores));
    r.node_num = 1;
    r.type = untyped_job_type(r.gpu_num);
    r.user = user;
    JobProfile p;
    p.final_state = state_of_phase(cell(kPhase));
    if (scheduled) {
      p.set_recorded_start(scheduled);
      p.run = *deleted - *scheduled;
    } else {
      p.set_cancel_pending_at(deleted);
    }
    if (!names.emplace(name.text).second) name.fail("used by an earlier pod");
    w.add(name.text, r, p);
  });
  if (shared > 0)
    log::warn_kept(path, warnings, ": {} pods ask for part of a GPU (the trace shares GPUs): given a whole GPU", shared);
  if (outside > 0)
    log::warn_kept(path, warnings, ": {} pods are scheduled outside their life (creation to deletion): read as scheduled "
                   "at its nearer end", outside);
  log::warn_kept(path, warnings, ": the trace names no users: every pod is user openb");
  if (w.size() == 0) log::warn_kept(path, warnings, ": none of its {} pods is in the window: the run has no jobs", rows);
  return w;
}

}  // namespace acme
