// Fidelity (workloads/fidelity.h, `acmesim validate`): the comparison on a hand-worked example,
// and validate on traces written by `acmesim gen`, replayed under gen's policy and under another.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "harness.h"
#include "app/app.h"
#include "io/csv_table.h"
#include "workloads/fidelity.h"

namespace acme::test {
namespace {

ScheduledJob job(JobType type, int gpus, std::int64_t submit, std::optional<std::int64_t> start) {
  return {type, gpus, Time::seconds(submit), start ? OptionalTime(Time::seconds(*start)) : OptionalTime()};
}

GpuSpan span(std::int64_t start, std::int64_t end, int gpus) { return {Time::seconds(start), Time::seconds(end), gpus}; }

const FidelityRow& row(const FidelityReport& r, const std::string& group) {
  for (const FidelityRow& x : r.rows)
    if (x.group == group) return x;
  FAIL("no row " << group);
  return r.rows.front();
}

// The CSV row of `group` in `dir`/fidelity.csv, as column -> cell.
std::map<std::string, std::string> csv_row(const std::filesystem::path& dir, const std::string& group) {
  const CsvTable t = read_csv(dir / "fidelity.csv");
  for (const auto& cells : t.rows)
    if (cells[0] == group) {
      std::map<std::string, std::string> m;
      for (std::size_t i = 0; i < t.header.size(); ++i) m[t.header[i]] = cells[i];
      return m;
    }
  FAIL("no row " << group);
  return {};
}

// `acmesim gen` of one week into dir/trace.csv, under `policy`.
std::string gen_week(const std::filesystem::path& dir, const std::string& cluster, const std::string& from,
                     const std::string& to, const std::string& policy, double load = 1.0) {
  GenArgs gen;
  gen.load = load;
  gen.cluster = cluster;
  gen.from = from;
  gen.to = to;
  gen.policy = policy;
  gen.output = (dir / "trace.csv").string();
  gen.config_file = (source_dir() / "configs" / (cluster + ".yaml")).string();
  gen.cluster_file = (source_dir() / "configs/clusters" / (cluster + ".yaml")).string();
  gen.model_file = (source_dir() / "configs/workloads" / (cluster + ".yaml")).string();
  REQUIRE(gen_command(gen) == 0);
  return gen.output;
}

int validate(const std::string& trace, const std::string& cluster, const std::filesystem::path& out,
             std::vector<std::string> sets) {
  ValidateArgs v;
  v.trace = trace;
  v.cluster = cluster;
  v.config = (source_dir() / "configs" / (cluster + ".yaml")).string();  // ctest runs in build/tests
  v.overrides = std::move(sets);
  v.out_dir = out.string();
  v.progress = false;
  return validate_command(v);
}

}  // namespace

TEST_CASE("The CDF gap is the largest vertical distance between two empirical CDFs", "[fidelity]") {
  CHECK(cdf_gap({}, {1, 2}) == 0);
  CHECK(cdf_gap({5, 0, 5}, {0, 5, 5}) == 0);
  CHECK(cdf_gap({1, 2, 3}, {4, 5, 6}) == 1);
  // {0, 20, 60} against {0, 10, 20}: at 10 s, 1/3 against 2/3.
  CHECK(cdf_gap({0, 20, 60}, {20, 10, 0}) == Approx(1.0 / 3));
}

TEST_CASE("Delays are compared job by job, per type, leaving out the jobs that started on one side only",
          "[fidelity]") {
  // job  type      GPUs submit recorded start  simulated start  delays (rec, sim)
  // j0   Eval      1    0      0               10               0, 10
  // j1   Eval      1    0      20              20               20, 20
  // j2   Pretrain  8    100    160             100              60, 0
  // j3   Eval      2    50     never           70               left out (not started, recorded)
  // j4   CPU       0    0      5               5                5, 5
  // j5   Pretrain  8    200    200             never            left out (not started, simulated)
  // GPU: compared j0 j1 j2; recorded {0, 20, 60}, mean 26.67, p50 (rank 2 of 3) 20, p90 and p99
  // (rank 3) 60; simulated {0, 10, 20}, mean 10, p50 10, p90 20; |diff| (10 + 0 + 60) / 3 = 23.33;
  // CDF gap 1/3 (at 10 s); mismatched j0 j2 j3 j5. Eval: {0, 20} against {10, 20}: gap 1/2 (at
  // 0 s), gated (2 jobs >= min_jobs 2) and over 0.4: FAIL. Pretrain: one job compared, not gated.
  const std::vector<ScheduledJob> rec = {job(JobType::Eval, 1, 0, 0),       job(JobType::Eval, 1, 0, 20),
                                         job(JobType::Pretrain, 8, 100, 160), job(JobType::Eval, 2, 50, {}),
                                         job(JobType::CPU, 0, 0, 5),        job(JobType::Pretrain, 8, 200, 200)};
  const std::vector<ScheduledJob> sim = {job(JobType::Eval, 1, 0, 10),      job(JobType::Eval, 1, 0, 20),
                                         job(JobType::Pretrain, 8, 100, 100), job(JobType::Eval, 2, 50, 70),
                                         job(JobType::CPU, 0, 0, 5),        job(JobType::Pretrain, 8, 200, {})};
  const FidelityReport r = compare_delays(rec, sim, FidelityTolerance{0.4, 2});
  REQUIRE(r.rows.size() == 4);
  CHECK(r.rows[0].group == "GPU");
  CHECK(r.rows[1].group == "Eval");
  CHECK(r.rows[2].group == "Pretrain");
  CHECK(r.rows[3].group == "CPU");
  const FidelityRow& gpu = row(r, "GPU");
  CHECK(gpu.jobs == 5);
  CHECK(gpu.compared == 3);
  CHECK(gpu.not_started_recorded == 1);
  CHECK(gpu.not_started_simulated == 1);
  CHECK(gpu.mismatched == 4);
  CHECK(gpu.recorded.mean_s == Approx(80.0 / 3));
  CHECK(gpu.simulated.mean_s == Approx(10));
  CHECK(gpu.recorded.p50_s == 20);
  CHECK(gpu.simulated.p50_s == 10);
  CHECK(gpu.recorded.p90_s == 60);
  CHECK(gpu.simulated.p90_s == 20);
  CHECK(gpu.recorded.p99_s == 60);
  CHECK(gpu.mean_abs_diff_s == Approx(70.0 / 3));
  CHECK(gpu.cdf_gap == Approx(1.0 / 3));
  CHECK((gpu.gated && gpu.pass));
  const FidelityRow& eval = row(r, "Eval");
  CHECK(eval.compared == 2);
  CHECK(eval.mismatched == 2);
  CHECK(eval.cdf_gap == Approx(0.5));
  CHECK((eval.gated && !eval.pass));
  CHECK_FALSE(row(r, "Pretrain").gated);
  CHECK(row(r, "Pretrain").cdf_gap == 1);
  CHECK(row(r, "CPU").mismatched == 0);
  CHECK_FALSE(row(r, "CPU").gated);
  CHECK(r.failures() == 1);
  CHECK(r.mismatched() == 4);
}

TEST_CASE("Utilization of both schedules is compared on the same aligned intervals", "[fidelity]") {
  // 16 GPUs, 100 s intervals from 0 to 400 (the last holding ends at 360).
  // recorded: 1 GPU [0, 50), 8 GPUs [160, 360): 50, 320, 800, 480 GPU-s = 3.125, 20, 50, 30 %
  // simulated: 1 GPU [10, 60), 8 GPUs [100, 300): 50, 800, 800, 0 GPU-s = 3.125, 50, 50, 0 %
  // Both means 25.78125 %; mean |difference| (0 + 30 + 0 + 30) / 4 = 15 points.
  const std::vector<GpuSpan> rec = {span(0, 50, 1), span(160, 360, 8)};
  const std::vector<GpuSpan> sim = {span(10, 60, 1), span(100, 300, 8)};
  const UtilizationSeries u = compare_utilization(rec, sim, 16, Time::seconds(100));
  CHECK(u.from == Time::seconds(0));
  CHECK(u.recorded_pct == std::vector<double>{3.125, 20, 50, 30});
  CHECK(u.simulated_pct == std::vector<double>{3.125, 50, 50, 0});
  CHECK(u.recorded_mean_pct == Approx(25.78125));
  CHECK(u.simulated_mean_pct == Approx(25.78125));
  CHECK(u.mean_abs_diff_points == Approx(15));
}

TEST_CASE("A trace from `acmesim gen` replayed under gen's policy gives every job its recorded delay",
          "[fidelity][cli]") {
  const auto dir = temp_dir("fidelity-gen");
  for (const auto& [cluster, from, to] : {std::tuple{"seren", "2023-03-01", "2023-03-08"},
                                          std::tuple{"kalos", "2023-06-01", "2023-06-08"}}) {
    INFO(cluster);
    // The default (acme, with its estimates and the cluster's launch latency) and greedy.
    for (const std::string policy : {"acme", "greedy"}) {
      INFO(policy);
      const std::string trace = gen_week(dir, cluster, from, to, policy);
      REQUIRE(validate(trace, cluster, dir / policy, {"policy.name=" + policy}) == 0);
      for (const std::string group : {"GPU", "CPU", "Eval"}) {
        INFO(group);
        const auto same = csv_row(dir / policy, group);
        CHECK(same.at("mismatched") == "0");
        CHECK(same.at("not_started_simulated") == "0");
        CHECK(same.at("cdf_gap") == "0.0000");
        CHECK(same.at("recorded_mean") == same.at("simulated_mean"));
        CHECK(same.at("recorded_p99_s") == same.at("simulated_p99_s"));
        CHECK(same.at("mean_abs_diff") == "0.000");
      }
      CHECK(std::stoll(csv_row(dir / policy, "GPU").at("compared")) > 1000);
      // The simulated series counts the GPUs held while jobs launch, which no trace records.
      CHECK(std::stod(csv_row(dir / policy, "utilization").at("mean_abs_diff")) < 1.0);
    }
    // FIFO: nothing overtakes a blocked job, so delays grow, and a tight tolerance fails. Only on
    // Seren, at twice its load: large jobs are submitted within a cap (large_jobs), so at the
    // published load a week rarely fills either cluster and FIFO starts nearly every job when
    // greedy does.
    if (std::string(cluster) != "seren") continue;
    const std::string trace = gen_week(dir, cluster, from, to, "greedy", 2.0);
    REQUIRE(validate(trace, cluster, dir / "fifo", {"policy.name=fifo", "validate.max_cdf_gap=0.001"}) == 1);
    const auto fifo = csv_row(dir / "fifo", "GPU");
    CHECK(std::stoll(fifo.at("mismatched")) > 0);
    CHECK(std::stod(fifo.at("cdf_gap")) > 0.001);
    CHECK(std::stod(fifo.at("simulated_mean")) > std::stod(fifo.at("recorded_mean")));
    CHECK(fifo.at("result") == "fail");
  }
}

TEST_CASE("Validate reads the published AcmeTrace example rows of both schemas unchanged", "[fidelity][cli]") {
  // The README rows of AcmeTrace (harness.h): Seren waited 32 s and 13 s, Kalos 10 s
  // and 12 s; on the modeled cluster, empty but for them, both start at once. Two jobs are under
  // min_jobs (too few to judge, not gated: exit 0) until min_jobs is 1: then the CDF gap of 1 fails.
  const auto dir = temp_dir("fidelity-published");
  for (const auto& [cluster, text, mean] : {std::tuple{"seren", kPublishedSerenRows, "22.500"},
                                            std::tuple{"kalos", kPublishedKalosRows, "11.000"}}) {
    INFO(cluster);
    const auto trace = dir / (std::string(cluster) + ".csv");
    std::ofstream(trace) << text;
    const std::vector<std::string> fifo = {"policy.name=fifo", "launch.enabled=false"};
    CHECK(validate(trace.string(), cluster, dir / cluster, fifo) == 0);
    const auto gpu = csv_row(dir / cluster, "GPU");
    CHECK(gpu.at("compared") == "2");
    CHECK(gpu.at("recorded_mean") == mean);
    CHECK(gpu.at("simulated_mean") == "0.000");
    CHECK(gpu.at("cdf_gap") == "1.0000");
    CHECK(gpu.at("result") == "too_few");  // reported as too few to judge, not passed
    std::vector<std::string> gated = fifo;
    gated.push_back("validate.min_jobs=1");
    CHECK(validate(trace.string(), cluster, dir / cluster, gated) == 1);
  }
}

TEST_CASE("Every validate key is documented in configs/README.md", "[fidelity]") {
  const std::string readme = read_file(source_dir() / "configs/README.md");
  Params params("validate", {});
  read_fidelity_tolerance(params);
  REQUIRE(params.docs().size() == 2);
  for (const Params::Doc& d : params.docs()) CHECK(readme.find("`" + d.key + "`") != std::string::npos);
}

TEST_CASE("On each cluster's default month the GPU power of jobs has AcmeTrace's measured quantiles, within 15%",
          "[fidelity][power]") {
  // The job power table is fitted to these quantiles (scripts/fit_power.py); what is checked is
  // that GPU-time drawn per GPU, with held time at held_w, keeps that spread over a month's run.
  const auto measured = nlohmann::json::parse(read_file(source_dir() / "workloads/data/acme_workload.json"));
  for (const std::string cluster : {"seren", "kalos"})
    for (const std::string seed : {"1", "2"}) {
      const auto out = temp_dir("power-" + cluster + seed);
      RunArgs args;
      args.config = (source_dir() / "configs" / (cluster + ".yaml")).string();
      args.overrides = {"power.enabled=true", "outputs=summary", "seed=" + seed};
      args.out_dir = out.string();
      args.progress = false;
      REQUIRE(run_command(args) == 0);
      const CsvTable t = read_csv(out / "summary.csv");
      const auto& q = measured["utilization_measured"]["stats"][cluster + "_gpu_power_W"]["quantiles"];
      for (const std::string p : {"p25", "p50", "p75", "p90"}) {
        const auto col = std::find(t.header.begin(), t.header.end(), "job_gpu_power_" + p + "_w") - t.header.begin();
        REQUIRE(col < static_cast<std::ptrdiff_t>(t.header.size()));
        const double simulated = std::stod(t.rows.at(0).at(static_cast<std::size_t>(col)));
        INFO(cluster << " seed " << seed << " " << p << ": " << simulated << " W against " << q[p].get<double>());
        CHECK(std::abs(simulated / q[p].get<double>() - 1) <= 0.15);
      }
    }
}

}  // namespace acme::test
