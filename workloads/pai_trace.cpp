#include "workloads/pai_trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <span>
#include <unordered_map>

#include "sim/error.h"
#include "sim/log.h"
#include "workloads/table_cells.h"

namespace acme {
namespace {

namespace fs = std::filesystem;

enum class Table : std::uint8_t { Job, Task };
// The columns read of each table, in the published order (the `.header` files').
enum JobColumn : std::uint8_t { kJobName, kInstId, kUser, kJobStatus, kJobStart, kJobEnd };
enum TaskColumn : std::uint8_t {
  kTaskJob, kTaskName, kInstNum, kTaskStatus, kTaskStart, kTaskEnd, kPlanCpu, kPlanMem, kPlanGpu, kGpuType
};
constexpr std::array<std::string_view, 6> kJobColumns{"job_name", "inst_id", "user", "status", "start_time", "end_time"};
constexpr std::array<std::string_view, 10> kTaskColumns{"job_name", "task_name", "inst_num", "status", "start_time",
                                                        "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"};
constexpr std::array<std::string_view, 4> kStatuses{"Terminated", "Failed", "Running", "Waiting"};
// The node an instance's share is packed onto: the Acme clusters' (an assumption, pai_trace.h).
constexpr std::int64_t kGpusPerNode = 8, kCoresPerNode = 128;
constexpr std::int64_t kMostAsked = std::int64_t{1} << 24;  // GPUs or cores of one job, at most

std::span<const std::string_view> columns_of(Table t) {
  if (t == Table::Job) return kJobColumns;
  return kTaskColumns;
}

// A PAI table: which, and where its columns are.
struct Layout {
  Table table = Table::Job;
  table_cells::Layout cells;
};

// The layout a header line gives: it names every column of one of the tables, in any order.
std::optional<Layout> layout_of_header(std::string_view line) {
  for (const Table t : {Table::Task, Table::Job})
    if (auto cells = table_cells::layout_of_header(line, columns_of(t))) return Layout{t, *cells};
  return std::nullopt;
}

// The layout of the table at `path` whose first line is `line`: that line's, its `.header` file's,
// or, for a first line of a table's published shape (its field count, a PAI status fourth), the
// published order.
std::optional<Layout> layout_of(std::string_view line, const std::string& path) {
  if (auto l = layout_of_header(line)) return l;
  const fs::path header = fs::path(path).replace_extension(".header");
  std::error_code ec;
  if (fs::is_regular_file(header, ec))
    if (auto l = layout_of_header(table_cells::first_line(header.string()))) {
      l->cells.header_line = false;
      return l;
    }
  const std::vector<std::string_view> f = table_cells::fields_of(line);
  if ((f.size() != kJobColumns.size() && f.size() != kTaskColumns.size()) ||
      std::find(kStatuses.begin(), kStatuses.end(), f[kJobStatus]) == kStatuses.end())
    return std::nullopt;
  const Table t = f.size() == kJobColumns.size() ? Table::Job : Table::Task;
  Layout l{t, {columns_of(t), false, f.size(), {}}};
  for (std::size_t c = 0; c < l.cells.at.size(); ++c) l.cells.at[c] = c;
  return l;
}

std::optional<Layout> layout_of(const std::string& path) { return layout_of(table_cells::first_line(path), path); }

// The other table of the pair: its name with `job_table` and `task_table` swapped; none if the
// name has neither.
std::optional<std::string> partner_of(const std::string& path, Table t) {
  const std::string_view mine = t == Table::Job ? "job_table" : "task_table";
  const std::string_view other = t == Table::Job ? "task_table" : "job_table";
  std::string name = fs::path(path).filename().string();
  const std::size_t at = name.rfind(mine);
  if (at == std::string::npos) return std::nullopt;
  name.replace(at, mine.size(), other);
  return (fs::path(path).parent_path() / name).string();
}

// A job of the job table, with what its tasks add.
struct PaiJob {
  std::uint32_t user = 0;  // in Tables::user_names
  JobState state = JobState::Completed;
  Time submit;
  std::optional<Time> end, first_start, last_task_end;
  std::int64_t gpus = 0, cores = 0;
  bool has_task = false, shared_gpu = false, early = false, in_window = true;
};

JobState state_of(const table_cells::Cell& c) {
  if (c.text == "Terminated") return JobState::Completed;
  if (c.text == "Failed") return JobState::Failed;
  if (c.text == "Running") return JobState::Running;
  if (c.text == "Waiting") return JobState::Cancelled;
  c.fail("unknown status " + csv_lines::shown(c.text) + " (PAI's: Terminated, Failed, Running, Waiting)");
}

// The two tables read: the jobs in the job table's order, by name.
struct Tables {
  table_cells::TextArena text;
  std::vector<std::string_view> names;  // [job]
  std::vector<PaiJob> jobs;
  std::unordered_map<std::string_view, std::uint32_t> by_name;
  std::vector<std::string_view> user_names;
  std::unordered_map<std::string_view, std::uint32_t> users;  // [name]: its place in user_names
  std::uint64_t orphan_tasks = 0;
  Time latest;
};

void read_jobs(const std::string& path, const Layout& l, const PaiOptions& opt, Tables& t) {
  table_cells::read_rows(path, l.cells, [&](const auto& cell) {
    const table_cells::Cell name = cell(kJobName);
    if (name.text.empty()) name.fail("empty");
    PaiJob j;
    j.state = state_of(cell(kJobStatus));
    const std::optional<Time> submit = cell(kJobStart).time();
    if (!submit) cell(kJobStart).fail("missing: a job's submission time");
    j.submit = *submit;
    j.end = cell(kJobEnd).time();
    if (j.end && *j.end < j.submit) cell(kJobEnd).fail("before start_time (the submission)");
    j.in_window = !(opt.from && j.submit < *opt.from) && !(opt.to && j.submit >= *opt.to);
    t.latest = std::max({t.latest, j.submit, j.end.value_or(j.submit)});
    if (t.by_name.contains(name.text)) name.fail("used by an earlier job");
    t.names.push_back(t.text.keep(name.text));
    t.by_name.emplace(t.names.back(), static_cast<std::uint32_t>(t.jobs.size()));
    const std::string_view user = cell(kUser).text;
    auto known = t.users.find(user);
    if (known == t.users.end()) {
      t.user_names.push_back(t.text.keep(user));
      known = t.users.emplace(t.user_names.back(), static_cast<std::uint32_t>(t.user_names.size() - 1)).first;
    }
    j.user = known->second;
    t.jobs.push_back(j);
  });
}

void read_tasks(const std::string& path, const Layout& l, Tables& t) {
  table_cells::read_rows(path, l.cells, [&](const auto& cell) {
    const auto it = t.by_name.find(cell(kTaskJob).text);
    if (it == t.by_name.end()) return void(++t.orphan_tasks);
    PaiJob& j = t.jobs[it->second];
    const double instances = cell(kInstNum).number().value_or(1);
    const double gpu_share = cell(kPlanGpu).number().value_or(0) / 100, cores = cell(kPlanCpu).number().value_or(0) / 100;
    j.has_task = true;
    j.shared_gpu = j.shared_gpu || std::ceil(gpu_share) != gpu_share;
    j.gpus += static_cast<std::int64_t>(std::ceil(instances) * std::ceil(gpu_share));
    j.cores += static_cast<std::int64_t>(std::ceil(instances * cores));
    if (j.gpus > kMostAsked || j.cores > kMostAsked)
      cell(kInstNum).fail("the job asks for more than " + std::to_string(kMostAsked) + " GPUs or cores");
    // A task's end only stands in for its job's when the job has none: one before the task's
    // start says nothing.
    const std::optional<Time> start = cell(kTaskStart).time();
    std::optional<Time> end = cell(kTaskEnd).time();
    if (start && end && *end < *start) end.reset();
    if (start) {
      j.early = j.early || *start < j.submit;
      j.first_start = std::min(j.first_start.value_or(Time::max()), std::max(*start, j.submit));
    }
    if (end) j.last_task_end = std::max(j.last_task_end.value_or(Time{}), *end);
    t.latest = std::max({t.latest, start.value_or(t.latest), end.value_or(t.latest)});
  });
}

// The job table's path and layout, and the task table's, from either.
struct Pair {
  std::string job_path, task_path;
  Layout job, task;
};

Pair pair_of(const std::string& path) {
  const std::optional<Layout> given = layout_of(path);
  if (!given) throw_input_error(path, 1, "", "not a PAI job or task table");
  const std::optional<std::string> other = partner_of(path, given->table);
  const char* wanted = given->table == Table::Job ? "pai_task_table.csv" : "pai_job_table.csv";
  if (!other) throw InputError(path + ": a PAI table is read with its partner (" + wanted +
                               "), named as this file with job_table and task_table swapped; this name has neither");
  std::error_code ec;
  if (!fs::is_regular_file(*other, ec)) throw InputError(path + ": PAI's other table is not there: " + *other);
  const std::optional<Layout> partner = layout_of(*other);
  if (!partner || partner->table == given->table)
    throw_input_error(*other, 1, "", std::string("not a PAI ") + (given->table == Table::Job ? "task" : "job") + " table");
  if (given->table == Table::Job) return {path, *other, *given, *partner};
  return {*other, path, *partner, *given};
}

}  // namespace

bool is_pai_table(std::string_view first_line, const std::string& path) {
  return layout_of(first_line, path).has_value();
}

std::vector<std::string> pai_companions(const std::string& path) {
  const std::optional<Layout> l = layout_of(path);
  if (!l) return {};
  std::vector<std::string> out;
  std::error_code ec;
  const auto add = [&](const fs::path& p) {
    if (fs::is_regular_file(p, ec)) out.push_back(p.string());
  };
  add(fs::path(path).replace_extension(".header"));
  if (const std::optional<std::string> other = partner_of(path, l->table)) {
    add(*other);
    add(fs::path(*other).replace_extension(".header"));
  }
  return out;
}

Workload read_pai_trace(const std::string& path, const PaiOptions& opt, std::vector<std::string>* warnings) {
  const Pair pair = pair_of(path);
  Tables t;
  std::error_code ec;
  t.by_name.reserve(static_cast<std::size_t>(fs::file_size(pair.job_path, ec) / 100));  // PAI's lines: about 130 bytes
  read_jobs(pair.job_path, pair.job, opt, t);
  read_tasks(pair.task_path, pair.task, t);
  Workload w;
  w.source = "PAI " + path;
  w.window_from = opt.from;
  w.window_to = opt.to;
  const Time horizon = opt.to.value_or(t.latest);
  std::uint64_t taskless = 0, empty = 0, shared = 0, early = 0;
  for (std::size_t i = 0; i < t.jobs.size(); ++i) {
    const PaiJob& j = t.jobs[i];
    if (!j.in_window) {
      ++w.rows_outside_window;
      continue;
    }
    if (!j.has_task || (j.gpus == 0 && j.cores == 0)) {
      ++(j.has_task ? empty : taskless);
      continue;
    }
    shared += j.shared_gpu;
    early += j.early;
    JobRequest r;
    r.submit = j.submit;
    r.gpu_num = static_cast<std::int32_t>(j.gpus);
    r.cpu_num = static_cast<std::int32_t>(j.cores);
    r.node_num = static_cast<std::int32_t>(std::max<std::int64_t>(
        {1, (j.gpus + kGpusPerNode - 1) / kGpusPerNode, (j.cores + kCoresPerNode - 1) / kCoresPerNode}));
    r.type = untyped_job_type(r.gpu_num);
    try {
      r.user = w.users.intern(t.user_names[j.user]);
    } catch (const std::length_error& e) {
      throw InputError(pair.job_path + ": user: " + e.what());
    }
    JobProfile p;
    p.final_state = j.state;
    const std::optional<Time> end = j.end ? j.end : j.last_task_end;
    if (!j.first_start) {
      p.set_cancel_pending_at(end.value_or(horizon));
    } else {
      p.set_recorded_start(j.first_start);
      const bool running = j.state == JobState::Running || !end;
      p.run = std::max(running ? horizon : *end, *j.first_start) - *j.first_start;
      if (running) p.final_state = JobState::Running;
    }
    w.add(t.names[i], r, p);
  }
  if (taskless + t.orphan_tasks > 0)
    log::warn_kept(path, warnings, ": {} jobs have no task in {} (no size: skipped), and {} of its tasks no job here (skipped)",
                   taskless, pair.task_path, t.orphan_tasks);
  if (empty > 0) log::warn_kept(path, warnings, ": {} jobs ask for no GPU and no core: skipped", empty);
  if (shared > 0)
    log::warn_kept(path, warnings, ": {} jobs ask for part of a GPU per instance (PAI shares GPUs): given whole GPUs, rounded up",
                   shared);
  if (early > 0)
    log::warn_kept(path, warnings, ": {} jobs have a task started before the job's submission: read as started at it", early);
  if (w.size() == 0) log::warn_kept(path, warnings, ": none of its {} jobs is in the window: the run has no jobs", t.jobs.size());
  return w;
}

}  // namespace acme
