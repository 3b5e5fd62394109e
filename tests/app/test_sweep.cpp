#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>

#include "harness.h"
#include "app/compare.h"
#include "io/csv_table.h"
#include "sim/error.h"
#include "app/sweep.h"

namespace acme::test {
namespace {

namespace fs = std::filesystem;

// Writes a sweep file into `dir`; {SRC} in the text becomes the source folder.
std::string write_sweep(const fs::path& dir, const std::string& name, std::string text) {
  for (std::size_t p; (p = text.find("{SRC}")) != std::string::npos;) text.replace(p, 5, source_dir().string());
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string sweep_error(const std::string& path) {
  try {
    load_sweep(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Six runs on two golden traces and a trace that does not exist: two policies x three traces.
constexpr const char* kTraceSweep = R"(base: {SRC}/configs/seren.yaml
set: {outputs: "jobs,summary,waste", workload.from: "", workload.to: ""}
grid:
  policy.name: [fifo, backfill]
zip:
  workload.trace: [{SRC}/tests/golden/six_jobs.csv, missing.csv, {SRC}/tests/golden/backfill.csv]
)";

std::string small_sweep() { return (source_dir() / "tests/data/sweep_small.yaml").string(); }

}  // namespace

TEST_CASE("A sweep is the product of its grid axes, its zip and its seeds, the first grid axis slowest", "[sweep]") {
  const auto dir = temp_dir("sweep-expand");
  const std::string path = write_sweep(dir, "s.yaml", R"(base: {SRC}/configs/kalos.yaml
grid:
  policy.name: [fifo, sjf]
  workload.load: [1.0, 1.5, 2.0]
zip:
  workload.from: [2023-06-01, 2023-06-08]
  workload.to: [2023-06-02, 2023-06-09]
seeds: {from: 7, count: 3}
)");
  const Sweep s = load_sweep(path);
  REQUIRE(s.runs.size() == 2 * 3 * 2 * 3);
  CHECK(s.swept_keys ==
        std::vector<std::string>{"policy.name", "workload.load", "workload.from", "workload.to", "seed"});
  CHECK(s.runs[0].swept == std::vector<std::string>{"fifo", "1.0", "2023-06-01", "2023-06-02", "7"});
  CHECK(s.runs[1].swept == std::vector<std::string>{"fifo", "1.0", "2023-06-01", "2023-06-02", "8"});
  CHECK(s.runs[3].swept == std::vector<std::string>{"fifo", "1.0", "2023-06-08", "2023-06-09", "7"});
  CHECK(s.runs[35].swept == std::vector<std::string>{"sjf", "2.0", "2023-06-08", "2023-06-09", "9"});
  CHECK(s.runs[35].config.policy_name == "sjf");
  CHECK(s.runs[35].config.workload_load == 2.0);
  CHECK(s.runs[35].config.seed == 9);
  // Generated workloads differ by seed; runs that differ only by policy share one.
  CHECK(s.runs[0].workload_key != s.runs[1].workload_key);
  CHECK(s.runs[0].workload_key == s.runs[18].workload_key);
}

TEST_CASE("Run ids are 12 hex digits, distinct, and the same from any working directory", "[sweep]") {
  const Sweep a = load_sweep(small_sweep());
  std::set<std::string> ids;
  for (const SweepRun& r : a.runs) {
    CHECK(r.id.size() == 12);
    CHECK(r.id.find_first_not_of("0123456789abcdef") == std::string::npos);
    ids.insert(r.id);
  }
  CHECK(ids.size() == a.runs.size());
  const fs::path cwd = fs::current_path();
  fs::current_path(source_dir() / "tests");
  const Sweep b = load_sweep("data/sweep_small.yaml");
  fs::current_path(cwd);
  for (std::size_t i = 0; i < a.runs.size(); ++i) CHECK(a.runs[i].id == b.runs[i].id);
  CHECK(fnv1a64("") == 14695981039346656037ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
}

TEST_CASE("A bad key in a sweep is an error naming the sweep file, its line and the key", "[sweep]") {
  const auto dir = temp_dir("sweep-errors");
  const std::string base = "base: {SRC}/configs/kalos.yaml\n";
  const std::string bad_key = write_sweep(dir, "bad_key.yaml", base + "grid:\n  policy.name: [fifo]\n  sed: [1, 2]\n");
  CHECK(sweep_error(bad_key).rfind(bad_key + ":4: sed: unknown key (valid keys: cluster,", 0) == 0);
  // Policy keys are checked by building each run's policy before any run starts.
  const std::string policy_key =
      write_sweep(dir, "policy_key.yaml", base + "grid:\n  policy.name: [backfill]\n  policy.dept: [1, 2]\n");
  CHECK(sweep_error(policy_key).rfind(
            policy_key + ":4: policy.dept: not a key of any policy this sweep runs (valid: backfill: policy.order,", 0) == 0);
  const std::string policy = write_sweep(dir, "policy.yaml", base + "grid: {policy.name: [fifo, fido]}\n");
  CHECK(sweep_error(policy) == policy + ":2: policy.name: unknown policy 'fido' (valid: " + policy_names() + ")");
  const std::string top = write_sweep(dir, "top.yaml", base + "gird: {policy.name: [fifo]}\n");
  CHECK(sweep_error(top) ==
        top + ":2: gird.policy.name: unknown sweep key (valid: base, set, grid, zip, windows, seeds)");
  const std::string empty = write_sweep(dir, "empty.yaml", base + "grid: {policy.name: []}\n");
  CHECK(sweep_error(empty) == empty + ":2: grid.policy.name: an empty list gives no runs");
  const std::string none = write_sweep(dir, "none.yaml", base);
  CHECK(sweep_error(none) == none + ": no axis: a sweep needs at least one of grid, zip, windows or seeds");
  const std::string zip = write_sweep(
      dir, "zip.yaml", base + "zip:\n  workload.from: [2023-06-01, 2023-06-02]\n  workload.to: [2023-06-03]\n");
  CHECK(sweep_error(zip) ==
        zip + ":4: zip.workload.to: has 1 values, but zip.workload.from has 2 (zip axes move together)");
  const std::string twice = write_sweep(dir, "twice.yaml", base + "grid: {seed: [1, 2]}\nseeds: [3, 4]\n");
  CHECK(sweep_error(twice) == twice + ":3: seeds: seed is swept twice (also at line 2)");
  const std::string repeated = write_sweep(dir, "repeated.yaml", base + "grid: {policy.name: [fifo, fifo]}\n");
  CHECK(sweep_error(repeated).find("runs 0 and 1 have the same configuration") != std::string::npos);
  const std::string value = write_sweep(dir, "value.yaml", base + "seeds: [1, x]\n");
  CHECK(sweep_error(value) == value + ":2: seed: expected a whole number, got 'x'");
}

TEST_CASE("A policy key of the sweep is left out of the runs whose policy does not read it; their twins run once",
          "[sweep]") {
  const auto dir = temp_dir("sweep-policy-keys");
  const std::string grid = write_sweep(dir, "grid.yaml", R"(base: {SRC}/configs/kalos.yaml
grid:
  policy.name: [acme, backfill]
  policy.depth: [64, 256]
)");
  const Sweep g = load_sweep(grid);
  REQUIRE(g.runs.size() == 3);  // acme with depth 64 and acme with depth 256 are one run: acme
  CHECK(g.runs[0].swept == std::vector<std::string>{"acme", ""});
  CHECK(g.runs[1].swept == std::vector<std::string>{"backfill", "64"});
  CHECK(g.runs[2].swept == std::vector<std::string>{"backfill", "256"});
  for (std::size_t i = 0; i < g.runs.size(); ++i) CHECK(g.runs[i].index == i);
  auto depth = [](const SweepRun& r) {
    for (const auto& [k, v] : r.resolved)
      if (k == "policy.depth") return v;
    return std::string("absent");
  };
  CHECK(depth(g.runs[0]) == "absent");
  CHECK(depth(g.runs[2]) == "256");

  // In a zip, null says so explicitly: that run does not set the key.
  const std::string zip = write_sweep(dir, "zip.yaml", R"(base: {SRC}/configs/kalos.yaml
zip:
  policy.name: [acme, backfill, backfill]
  policy.depth: [null, 10, ~]
)");
  const Sweep z = load_sweep(zip);
  REQUIRE(z.runs.size() == 3);
  CHECK(z.runs[0].swept == std::vector<std::string>{"acme", ""});
  CHECK(z.runs[1].swept == std::vector<std::string>{"backfill", "10"});
  CHECK(z.runs[2].swept == std::vector<std::string>{"backfill", ""});
  CHECK(depth(z.runs[1]) == "10");
  CHECK(depth(z.runs[2]) == "256");  // backfill's default

  // A key no policy of the sweep reads is an error at its line, not dropped from every run.
  const std::string none = write_sweep(dir, "none.yaml", "base: {SRC}/configs/kalos.yaml\n"
                                                         "set: {policy.depth: 64}\n"
                                                         "grid: {policy.name: [fifo, greedy]}\n");
  CHECK(sweep_error(none).rfind(
            none + ":2: policy.depth: not a key of any policy this sweep runs (valid: fifo: none; greedy: ", 0) == 0);
  // A value repeated in an axis still makes twins that are an error.
  const std::string twins = write_sweep(dir, "twins.yaml", "base: {SRC}/configs/kalos.yaml\n"
                                                           "grid: {policy.name: [backfill], policy.depth: [8, 8]}\n");
  CHECK(sweep_error(twins).find("runs 0 and 1 have the same configuration") != std::string::npos);
}

TEST_CASE("Monthly windows follow the calendar in the offset of their start, the last one cut at the end", "[sweep]") {
  const auto dir = temp_dir("sweep-windows");
  const std::string path = write_sweep(dir, "w.yaml", R"(base: {SRC}/configs/seren.yaml
windows: {every: month, from: "2023-01-01 00:00:00+08:00", to: "2023-03-15 00:00:00+08:00"}
)");
  const Sweep s = load_sweep(path);
  REQUIRE(s.runs.size() == 3);
  CHECK(s.runs[0].swept == std::vector<std::string>{"2023-01-01 00:00:00+08:00", "2023-02-01 00:00:00+08:00"});
  CHECK(s.runs[1].swept == std::vector<std::string>{"2023-02-01 00:00:00+08:00", "2023-03-01 00:00:00+08:00"});
  CHECK(s.runs[2].swept == std::vector<std::string>{"2023-03-01 00:00:00+08:00", "2023-03-15 00:00:00+08:00"});
  CHECK(*s.runs[1].config.workload_from == *parse_timestamp("2023-01-31 16:00:00+00:00"));
  // Recorded (summary.csv, run.json, the console) with the offset they were written in.
  auto resolved = [&](const std::string& key) {
    for (const auto& [k, v] : s.runs[1].resolved)
      if (k == key) return v;
    return std::string();
  };
  CHECK(resolved("workload.from") == "2023-02-01 00:00:00+08:00");
  CHECK(resolved("workload.to") == "2023-03-01 00:00:00+08:00");
}

TEST_CASE("A sweep gives byte-identical summaries with one worker and with two", "[sweep]") {
  const Sweep s = load_sweep(small_sweep());
  const auto one = temp_dir("sweep-one"), two = temp_dir("sweep-two");
  const MergeResult a = run_sweep(s, one, {1, false});
  const MergeResult b = run_sweep(s, two, {2, false});
  CHECK(a.ok == 6);
  CHECK(b.ok == 6);
  CHECK(read_file(one / "summary.csv") == read_file(two / "summary.csv"));
  CHECK(read_file(one / "summary_by_type.csv") == read_file(two / "summary_by_type.csv"));
  const CsvTable t = read_csv(one / "summary.csv");
  REQUIRE(t.rows.size() == 6);
  CHECK(t.header[0] == "policy.name");
  CHECK(t.header[2] == "run_id");
  CHECK(t.rows[2][0] == "sjf");
  CHECK(t.rows[2][2] == s.runs[2].id);
  CHECK(t.rows[2][*t.column("status")] == "ok");
  CHECK(fs::exists(one / "runs" / s.runs[2].id / "jobs.csv"));
  CHECK(fs::exists(one / "runs" / s.runs[2].id / "timeseries.csv"));
}

TEST_CASE("What a sweep resolves for a run is the configuration the run's summary.csv records", "[sweep]") {
  // resolve_run (checked before the sweep starts, hashed into the id) and execute_run (which
  // writes the outputs) build the same plugins the same way.
  const Sweep s = load_sweep(small_sweep());
  const auto dir = temp_dir("sweep-resolved");
  run_sweep(s, dir, {2, false});
  for (const SweepRun& run : s.runs) {
    const CsvTable t = read_csv(dir / "runs" / run.id / "summary.csv");
    REQUIRE(t.rows.size() == 1);
    std::vector<std::pair<std::string, std::string>> recorded;
    for (std::size_t c = 0; c < t.header.size(); ++c) recorded.emplace_back(t.header[c], t.rows[0][c]);
    recorded.resize(std::min(recorded.size(), run.resolved.size()));
    CHECK(recorded == run.resolved);
  }
}

TEST_CASE("A failing run is reported with its error and the other runs finish", "[sweep]") {
  const auto dir = temp_dir("sweep-fail");
  const Sweep s = load_sweep(write_sweep(dir, "s.yaml", kTraceSweep));
  REQUIRE(s.runs.size() == 6);
  const RunnerResult ran = run_sweep_runs(s, unfinished_runs(s, dir / "out"), dir / "out", {2, false});
  CHECK(ran.finished == 4);
  CHECK(ran.failed == 2);
  const MergeResult m = merge_sweep(s, dir / "out");
  CHECK(m.ok == 4);
  CHECK(m.failed == 2);
  const CsvTable t = read_csv(dir / "out/summary.csv");
  REQUIRE(t.rows.size() == 6);
  const std::size_t status = *t.column("status"), error = *t.column("error"), jobs = *t.column("jobs");
  CHECK(t.rows[0][status] == "ok");
  CHECK(t.rows[0][jobs] == "6");
  CHECK(t.rows[1][status] == "failed");
  CHECK(t.rows[1][error] == (dir / "missing.csv").string() + ": cannot open the trace file");
  CHECK(t.rows[1][jobs].empty());
  CHECK(t.rows[1][*t.column("policy.name")] == "fifo");
  CHECK(t.rows[4][status] == "failed");
  CHECK(t.rows[5][status] == "ok");
}

TEST_CASE("A killed and restarted sweep skips finished runs and ends with the same summary", "[sweep]") {
  const Sweep s = load_sweep(small_sweep());
  const auto whole = temp_dir("sweep-whole"), restarted = temp_dir("sweep-restarted");
  run_sweep(s, whole, {2, false});
  run_sweep(s, restarted, {2, false});
  // What a kill leaves behind: a run half written, one not started, a merge never done.
  const fs::path runs = restarted / "runs";
  fs::remove_all(runs / s.runs[1].id);
  fs::create_directories(runs / (s.runs[1].id + ".partial"));
  std::ofstream(runs / (s.runs[1].id + ".partial") / "jobs.csv") << "job_id,half a row";
  fs::remove_all(runs / s.runs[4].id);
  fs::remove(restarted / "summary.csv");
  std::ofstream(runs / s.runs[0].id / "kept") << "this folder is not redone";

  CHECK(unfinished_runs(s, restarted) == std::vector<std::size_t>{1, 4});
  const MergeResult m = run_sweep(s, restarted, {2, false});
  CHECK(m.ok == 6);
  CHECK(fs::exists(runs / s.runs[0].id / "kept"));
  CHECK_FALSE(fs::exists(runs / (s.runs[1].id + ".partial")));
  CHECK(read_file(restarted / "summary.csv") == read_file(whole / "summary.csv"));
  CHECK(read_file(restarted / "summary_by_type.csv") == read_file(whole / "summary_by_type.csv"));
  CHECK(read_file(runs / s.runs[1].id / "jobs.csv") == read_file(whole / "runs" / s.runs[1].id / "jobs.csv"));
}

TEST_CASE("Processes split the unfinished runs into contiguous shares, runs of one workload together", "[sweep]") {
  const auto dir = temp_dir("sweep-share");
  const Sweep s = load_sweep(write_sweep(dir, "s.yaml", kTraceSweep));
  const std::vector<std::size_t> todo = {0, 1, 2, 3, 4, 5};
  // Workloads in order of first use: six_jobs (0, 3), missing (1, 4), backfill (2, 5).
  CHECK(share_of(s, todo, 0, 1) == std::vector<std::size_t>{0, 3, 1, 4, 2, 5});
  CHECK(share_of(s, todo, 0, 2) == std::vector<std::size_t>{0, 3, 1});
  CHECK(share_of(s, todo, 1, 2) == std::vector<std::size_t>{4, 2, 5});
  CHECK(share_of(s, todo, 3, 4) == std::vector<std::size_t>{5});
  CHECK(share_of(s, todo, 0, 8).size() == 1);
  CHECK(share_of(s, todo, 7, 8).empty());
}

TEST_CASE("compare gives means, t confidence intervals over seeds and ratios to the baseline", "[sweep]") {
  const CsvTable t = parse_csv(
      "policy.name,seed,run_id,status,error,queue_mean_s\n"
      "fifo,1,a,ok,,1\nfifo,2,b,ok,,2\nfifo,3,c,ok,,3\n"
      "sjf,1,d,ok,,2\nsjf,2,e,ok,,4\nsjf,3,f,ok,,6\nsjf,4,g,failed,boom,\n",
      "summary.csv");
  const Comparison c = compare_runs(t, {{"policy.name"}, "", {"queue_mean_s"}});
  REQUIRE(c.groups.size() == 2);
  CHECK(c.groups[0].name == "fifo");
  CHECK(c.groups[0].metrics[0].mean == Approx(2.0));
  CHECK(*c.groups[0].metrics[0].ci95 == Approx(4.303 / std::sqrt(3.0)));
  CHECK(*c.groups[0].metrics[0].ratio == Approx(1.0));
  CHECK(c.groups[1].runs == 3);
  CHECK(*c.groups[1].metrics[0].ratio == Approx(2.0));
  CHECK(c.notes == std::vector<std::string>{"1 runs that did not finish are left out"});
  const Comparison by_sjf = compare_runs(t, {{"policy.name"}, "sjf", {"queue_mean_s"}});
  CHECK(*by_sjf.groups[0].metrics[0].ratio == Approx(0.5));
  const std::string table = format_comparison(c, {{"policy.name"}, "", {"queue_mean_s"}});
  CHECK(lines_of(table)[0] == "policy.name  runs  queue_mean_s  ratio");
  CHECK(lines_of(table)[2] == "sjf             3     4 ± 4.969  2.000");
  CHECK_THROWS_WITH(compare_runs(t, {{"policy"}, "", {}}), Catch::StartsWith("--by: no column 'policy'"));
  CHECK_THROWS_WITH(compare_runs(t, {{"policy.name"}, "srtf", {"queue_mean_s"}}),
                    "--baseline: no group 'srtf' (groups: fifo, sjf)");
  CHECK(c.warnings.empty());
  CHECK(t_quantile_975(1) == 12.706);
  CHECK(t_quantile_975(100) == 1.960);
}

TEST_CASE("compare warns, one line a key, when a swept key other than --by varies inside a group", "[sweep]") {
  const CsvTable t = parse_csv(
      "policy.name,workload.load,policy.depth,seed,run_id,status,error,queue_mean_s\n"
      "acme,1.0,,1,a,ok,,1\nacme,1.3,,1,b,ok,,5\n"
      "backfill,1.0,64,1,c,ok,,2\nbackfill,1.3,64,1,d,ok,,6\nbackfill,1.0,256,1,e,ok,,2\n",
      "summary.csv");
  const CompareOptions by_policy{{"policy.name"}, "", {"queue_mean_s"}};
  const Comparison c = compare_runs(t, by_policy);
  CHECK(c.warnings == std::vector<std::string>{
                          "workload.load varies inside groups (1.0, 1.3), whose means pool its values; add --by "
                          "workload.load to keep them apart",
                          "policy.depth varies inside groups (64, 256), whose means pool its values; add --by "
                          "policy.depth to keep them apart"});
  CHECK(lines_of(format_comparison(c, by_policy)).back() ==
        "warning: policy.depth varies inside groups (64, 256), whose means pool its values; add --by policy.depth to "
        "keep them apart");
  // Grouped by every swept key but the seed: nothing is pooled.
  CHECK(compare_runs(t, {{"policy.name", "workload.load", "policy.depth"}, "", {"queue_mean_s"}}).warnings.empty());
  // A key set in some runs of a group and not in others is named too.
  const CsvTable unset = parse_csv("policy.name,policy.depth,run_id,status,error,queue_mean_s\n"
                                   "backfill,,a,ok,,1\nbackfill,64,b,ok,,2\n",
                                   "summary.csv");
  CHECK(compare_runs(unset, by_policy).warnings.at(0).rfind("policy.depth varies inside groups (not set, 64)", 0) == 0);
}

TEST_CASE("The CSV reader reads quoted cells with commas, quotes and line breaks", "[sweep]") {
  const CsvTable t = parse_csv("a,b\r\n\"x,y\",\"say \"\"hi\"\"\"\n\"two\nlines\",\n", "t.csv");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] == std::vector<std::string>{"x,y", "say \"hi\""});
  CHECK(t.rows[1] == std::vector<std::string>{"two\nlines", ""});
  CHECK_THROWS_WITH(parse_csv("a,b\n1\n", "t.csv"), "t.csv:2: expected 2 cells, got 1");
}

}  // namespace acme::test
