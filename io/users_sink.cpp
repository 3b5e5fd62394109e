// users.csv (io/sinks.h): its columns, and the sink that writes them.
#include "io/sinks.h"

#include <cstdint>
#include <filesystem>
#include <vector>

#include "io/columns.h"
#include "io/csv.h"
#include "io/fairness.h"

namespace acme {
namespace {

constexpr std::string_view kUserQueue =
    "queuing delay (start - submit) of the user's GPU jobs that started: mean, and nearest-rank 95th percentile (as "
    "`summary.csv`'s); blank when none started";

constexpr Column<UserStats> kUserColumns[] = {
    {"user", "the name as in the trace", [](const UserStats& u) { return Cell::text(u.user); }},
    {"jobs", "the user's jobs, and those asking for at least one GPU",
     [](const UserStats& u) { return Cell::integer(static_cast<std::int64_t>(u.jobs)); }},
    {"gpu_jobs", "the user's jobs, and those asking for at least one GPU",
     [](const UserStats& u) { return Cell::integer(static_cast<std::int64_t>(u.gpu_jobs)); }},
    {"gpu_hours", "GPU-hours held by the user's jobs (as `gpu_hours` of `summary.csv`)",
     [](const UserStats& u) { return Cell::real(static_cast<double>(u.gpu_seconds) / 3600.0, 3); }},
    {"queue_mean_s", kUserQueue,
     [](const UserStats& u) { return u.queue_mean_s ? Cell::real(*u.queue_mean_s, 3) : Cell::blank(); }},
    {"queue_p95_s", kUserQueue,
     [](const UserStats& u) { return u.queue_mean_s ? Cell::integer(*u.queue_p95_s) : Cell::blank(); }},
    {"slowdown_mean", "mean slowdown of the user's started GPU jobs whose run is not 0; blank when there is none",
     [](const UserStats& u) { return u.slowdown_mean ? Cell::real(*u.slowdown_mean, 3) : Cell::blank(); }},
    {"jobs_waiting_over_1h", "the user's started GPU jobs whose queuing delay exceeded 3600 s",
     [](const UserStats& u) { return Cell::integer(static_cast<std::int64_t>(u.jobs_waiting_over_1h)); }},
};

// users.csv: one row per user with at least one job, by name (io/fairness.h); blank cells
// where a user has nothing to average.
class UsersSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit UsersSink(const SinkSettings& s)
      : path_(s.out_dir / "users.csv"), capture_(s.capture), renames_(s.renames) {}
  void finish(const RunRecord& run) override {
    const std::vector<UserStats> users = user_stats(run);
    CsvWriter csv(path_, capture_, renames_);
    write_table<UserStats>(csv, kUserColumns, users);
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

}  // namespace

std::unique_ptr<Sink> make_users_sink(const SinkSettings& settings) { return std::make_unique<UsersSink>(settings); }

std::vector<FileColumns> users_columns() { return {{"users.csv", {group_doc<UserStats>(kUserColumns)}}}; }

}  // namespace acme
