// Fairness: users.csv and the Jain indexes of summary.csv, on schedules worked out by hand.
#include <catch2/catch.hpp>

#include "harness.h"
#include "io/csv_table.h"
#include "io/fairness.h"
#include "io/sinks.h"
#include "io/metrics.h"

namespace acme::test {
namespace {

// A finished run and the sinks' files in `dir`.
struct FinishedRun {
  Workload workload;
  ClusterSpec cluster;
  std::vector<JobOutcome> outcomes;
};

FinishedRun run_fifo(Workload w, const ClusterSpec& cluster, const std::filesystem::path& dir) {
  FinishedRun out{std::move(w), cluster, {}};
  Simulation sim(out.workload, out.cluster, make_policy("fifo"), ReplayMode::Policy);
  std::vector<std::unique_ptr<Sink>> sinks;
  for (const char* name : {"users", "summary"}) sinks.push_back(make_sink(name, SinkSettings{dir}));
  for (auto& s : sinks) sim.add_sink(*s);
  sim.run();
  const Conservation c = sim.check_conservation();
  out.outcomes = sim.outcomes();
  for (auto& s : sinks)
    s->finish(RunRecord{out.workload, out.cluster, ReplayMode::Policy, out.outcomes, {}, c, sim.window_gpu_seconds()});
  return out;
}

// The cell of column `name` in the row whose `key` column is `value` (the first row if `key` is empty).
std::string cell(const CsvTable& t, const std::string& name, const std::string& key = "", const std::string& value = "") {
  const auto column = t.column(name);
  REQUIRE(column);
  for (const auto& row : t.rows)
    if (key.empty() || row[*t.column(key)] == value) return row[*column];
  FAIL("no row with " << key << " = " << value);
  return "";
}

}  // namespace

TEST_CASE("Jain's index is 1 for equal values, 1/n when one value holds everything, none for nothing",
          "[fairness]") {
  CHECK(*jain_index(std::vector<double>{1.5, 1.5, 1.5}) == Approx(1.0));
  CHECK(*jain_index(std::vector<double>{0, 0, 5}) == Approx(1.0 / 3));
  CHECK(*jain_index(std::vector<double>{1, 3}) == Approx(16.0 / 20));  // (1 + 3)^2 / (2 x (1 + 9))
  CHECK_FALSE(jain_index(std::vector<double>{}));
  CHECK_FALSE(jain_index(std::vector<double>{0, 0}));
}

TEST_CASE("users.csv and the Jain indexes of three users' FIFO schedule are as worked out by hand", "[fairness]") {
  // One node of 8 GPUs, strict FIFO; times in seconds after t0 (CPU jobs 4 cores each).
  //   a carol Pretrain 8 GPUs 100 s at 0:  runs 0-100       queue 0     slowdown 100/100        = 1
  //   b alice SFT      8 GPUs  50 s at 10: runs 100-150     queue 90    slowdown (90+50)/50     = 2.8
  //   c carol Eval     4 GPUs 3900 s at 20: runs 150-4050   queue 130   slowdown 4030/3900      = 31/30
  //   d bob   Eval     8 GPUs 100 s at 30: waits for c's 4 GPUs: runs 4050-4150, queue 4020 (> 1 h),
  //                                                                     slowdown (4020+100)/100 = 41.2
  //   e alice SFT      4 GPUs   0 s at 40: held behind d (strict order), starts and ends at 4150:
  //                                        queue 4110 (> 1 h), run 0: no slowdown, skipped
  //   f dave  CPU      0 GPUs  10 s at 50: held behind e, runs 4150-4160; not a GPU job
  // users.csv, by name (the trace meets carol first):
  //   alice: 2 jobs, 2 GPU jobs, 400 GPU-s = 0.111 h; queues 90, 4110: mean 2100, p95 (rank
  //          ceil(2 x 0.95) = 2) 4110; slowdown 2.8 (e skipped); 1 long wait
  //   bob:   1 job, 800 GPU-s = 0.222 h; queue 4020; slowdown 41.2; 1 long wait
  //   carol: 2 jobs, 800 + 4 x 3900 = 16400 GPU-s = 4.556 h; queues 0, 130: mean 65, p95 130;
  //          slowdown (1 + 31/30) / 2 = 61/60 = 1.0167; no long wait
  //   dave:  1 CPU job: no GPU-hours, blank queuing and slowdown
  // Jain over users: x = 2.8, 41.2, 61/60; sum 45.01667, sum^2 2026.5003; sum x^2 = 7.84 +
  //   1697.44 + 1.03361 = 1706.3136; 2026.5003 / (3 x 1706.3136) = 0.39588.
  // Jain over types: Pretrain 1, SFT 2.8 (e skipped), Eval (31/30 + 41.2) / 2 = 21.11667;
  //   sum 24.91667, sum^2 620.8403; sum x^2 = 1 + 7.84 + 445.9136 = 454.7536; 0.45507.
  // Per type: Eval over carol (31/30) and bob (41.2): 1783.6544 / (2 x 1698.5078) = 0.52507;
  //   SFT (alice only) and Pretrain (carol only) 1; CPU none (blank).
  // Waits over 1 h: d and e of the 5 started GPU jobs: 40%; Eval 1 of 2, SFT 1 of 2, Pretrain 0 of 1.
  Workload w;
  const Time t0 = kGoldenBase;
  const std::uint32_t carol = w.users.intern("carol"), alice = w.users.intern("alice");
  const std::uint32_t bob = w.users.intern("bob"), dave = w.users.intern("dave");
  auto at = [&](std::int64_t s) { return t0 + Time::seconds(s); };
  w.add("a", JobRequest{at(0), 8, 1, 4, JobType::Pretrain, carol}, runs_for(100));
  w.add("b", JobRequest{at(10), 8, 1, 4, JobType::SFT, alice}, runs_for(50));
  w.add("c", JobRequest{at(20), 4, 1, 4, JobType::Eval, carol}, runs_for(3900));
  w.add("d", JobRequest{at(30), 8, 1, 4, JobType::Eval, bob}, runs_for(100));
  w.add("e", JobRequest{at(40), 4, 1, 4, JobType::SFT, alice}, runs_for(0));
  w.add("f", JobRequest{at(50), 0, 1, 4, JobType::CPU, dave}, runs_for(10));
  const auto dir = temp_dir("fairness-hand");
  const FinishedRun run = run_fifo(std::move(w), small_cluster(1), dir);
  REQUIRE(run.outcomes[3].start == at(4050));  // the schedule above
  REQUIRE(run.outcomes[4].start == at(4150));
  REQUIRE(run.outcomes[4].end == at(4150));

  CHECK(lines_of(read_file(dir / "users.csv")) ==
        std::vector<std::string>{
            "user,jobs,gpu_jobs,gpu_hours,queue_mean_s,queue_p95_s,slowdown_mean,jobs_waiting_over_1h",
            "alice,2,2,0.111,2100.000,4110,2.800,1",
            "bob,1,1,0.222,4020.000,4020,41.200,1",
            "carol,2,2,4.556,65.000,130,1.017,0",
            "dave,1,0,0.000,,,,0",
        });

  const RunRecord record{run.workload, run.cluster, ReplayMode::Policy, run.outcomes, {}, {}, {}};
  const RunSummary sum = summarize(record);
  CHECK(*sum.all.jain_slowdown_users == Approx(0.395883).epsilon(1e-5));
  CHECK(*sum.all.jain_slowdown_types == Approx(0.455074).epsilon(1e-5));
  CHECK(*sum.all.waiting_over_1h_pct == Approx(40.0));
  const auto type = [&](JobType t) { return sum.by_type[static_cast<std::size_t>(t)]; };
  CHECK(*type(JobType::Eval).jain_slowdown_users == Approx(0.525065).epsilon(1e-5));
  CHECK(*type(JobType::SFT).jain_slowdown_users == Approx(1.0));
  CHECK(*type(JobType::Pretrain).jain_slowdown_users == Approx(1.0));
  CHECK_FALSE(type(JobType::CPU).jain_slowdown_users);
  CHECK_FALSE(type(JobType::Eval).jain_slowdown_types);  // summary.csv's row only

  // The files: three decimals, blank where there is nothing to average.
  const CsvTable all = read_csv(dir / "summary.csv");
  CHECK(cell(all, "jain_slowdown_users") == "0.396");
  CHECK(cell(all, "jain_slowdown_types") == "0.455");
  CHECK(cell(all, "waiting_over_1h_pct") == "40.000");
  CHECK(all.header.back() == "waiting_over_1h_pct");  // appended after the older columns
  const CsvTable by_type = read_csv(dir / "summary_by_type.csv");
  CHECK(cell(by_type, "jain_slowdown_users", "type", "Eval") == "0.525");
  CHECK(cell(by_type, "jain_slowdown_users", "type", "SFT") == "1.000");
  CHECK(cell(by_type, "jain_slowdown_users", "type", "CPU") == "");
  CHECK(cell(by_type, "jain_slowdown_types", "type", "Eval") == "");
  CHECK(cell(by_type, "waiting_over_1h_pct", "type", "Eval") == "50.000");
  CHECK(cell(by_type, "waiting_over_1h_pct", "type", "Pretrain") == "0.000");
  CHECK(cell(by_type, "waiting_over_1h_pct", "type", "CPU") == "");
}

TEST_CASE("Two users with the same jobs get the same row and a Jain index of 1", "[fairness]") {
  // One node of 8 GPUs, FIFO: x1 and y1 (4 GPUs, 100 s, at 0) run 0-100, x2 and y2 100-200.
  // Each user: slowdowns 1 and 2, mean 1.5; queues 0 and 100, mean 50, p95 100.
  Workload w;
  const std::uint32_t x = w.users.intern("x"), y = w.users.intern("y");
  for (const char* job : {"x1", "y1", "x2", "y2"})
    w.add(job, JobRequest{kGoldenBase, 4, 1, 4, JobType::Pretrain, job[0] == 'x' ? x : y}, runs_for(100));
  const auto dir = temp_dir("fairness-equal");
  run_fifo(std::move(w), small_cluster(1), dir);
  CHECK(lines_of(read_file(dir / "users.csv")) ==
        std::vector<std::string>{
            "user,jobs,gpu_jobs,gpu_hours,queue_mean_s,queue_p95_s,slowdown_mean,jobs_waiting_over_1h",
            "x,2,2,0.222,50.000,100,1.500,0",
            "y,2,2,0.222,50.000,100,1.500,0",
        });
  const CsvTable all = read_csv(dir / "summary.csv");
  CHECK(cell(all, "jain_slowdown_users") == "1.000");
  CHECK(cell(all, "jain_slowdown_types") == "1.000");  // one type
  CHECK(cell(all, "waiting_over_1h_pct") == "0.000");
}

}  // namespace acme::test
