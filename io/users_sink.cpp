// users.csv (io/sinks.h).
#include "io/sinks.h"

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/csv.h"
#include "io/fairness.h"

namespace acme {
namespace {

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
    for (std::string_view h : {"user", "jobs", "gpu_jobs", "gpu_hours", "queue_mean_s", "queue_p95_s", "slowdown_mean",
                               "jobs_waiting_over_1h"})
      csv.text(h);
    csv.end_row();
    csv.expect_rows(users.size());
    for (const UserStats& u : users) {
      csv.text(u.user).integer(static_cast<std::int64_t>(u.jobs)).integer(static_cast<std::int64_t>(u.gpu_jobs));
      csv.real(static_cast<double>(u.gpu_seconds) / 3600.0, 3);
      if (u.queue_mean_s) csv.real(*u.queue_mean_s, 3).integer(*u.queue_p95_s); else csv.blank().blank();
      if (u.slowdown_mean) csv.real(*u.slowdown_mean, 3); else csv.blank();
      csv.integer(static_cast<std::int64_t>(u.jobs_waiting_over_1h));
      csv.end_row();
    }
    csv.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

}  // namespace

std::unique_ptr<Sink> make_users_sink(const SinkSettings& settings) { return std::make_unique<UsersSink>(settings); }

}  // namespace acme
