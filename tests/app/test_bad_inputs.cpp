// The catalogue of awkward and bad traces, each with its exact outcome:
//  - read as the same jobs as the clean file: CRLF, a byte-order mark, quoted fields, extra and
//    reordered columns, no final newline (and all of them at once);
//  - rejected with one line naming file, line and field: empty, header only, a missing column,
//    bad numbers and timestamps, end before start, duplicate job ids, a truncated last line,
//    binary data (a gzip file named as one), a line without end;
//  - accepted with a warning: jobs larger than the cluster (REJECTED, counted in the summary),
//    GPUs that node_num does not divide (spread evenly), rows out of submit order;
//  - a large trace read through a window holds memory for the rows selected, not the file.
// Configurations and sweeps: test_bad_configs.cpp; the command line: tests/cli/test_cli_bad_inputs.sh.
#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "harness.h"
#include "app/app.h"
#include "io/config.h"
#include "io/csv_table.h"
#include "sim/error.h"
#include "io/cluster_file.h"

namespace acme::test {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

const std::vector<std::string> kColumns = {"job_id", "user",  "node_num",    "gpu_num",    "cpu_num",
                                           "type",   "state", "submit_time", "start_time", "end_time"};

// Every kind of row: completed, failed on two nodes, cancelled in the queue, a CPU job, RUNNING
// without an end, cancelled at its start.
const std::vector<std::vector<std::string>> kRows = {
    {"101", "u1", "1", "8", "128", "Pretrain", "COMPLETED", "2023-03-01 00:00:00+08:00", "2023-03-01 00:00:10+08:00",
     "2023-03-01 02:00:10+08:00"},
    {"102", "u2", "2", "16", "256", "SFT", "FAILED", "2023-03-01 00:05:00+08:00", "2023-03-01 00:06:00+08:00",
     "2023-03-01 00:36:00+08:00"},
    {"103", "u1", "1", "1", "16", "Eval", "CANCELLED", "2023-03-01 00:07:00+08:00", "", "2023-03-01 00:09:00+08:00"},
    {"104", "u3", "1", "0", "4", "CPU", "COMPLETED", "2023-03-01 00:08:00+08:00", "2023-03-01 00:08:00+08:00",
     "2023-03-01 00:08:30+08:00"},
    {"105", "u2", "4", "32", "512", "MLLM", "RUNNING", "2023-03-01 01:00:00+08:00", "2023-03-01 01:00:05+08:00", ""},
    {"106", "u3", "1", "4", "64", "Debug", "CANCELLED", "2023-03-01 01:10:00+08:00", "2023-03-01 01:10:00+08:00",
     "2023-03-01 01:10:00+08:00"},
};

// How a variant writes the clean table.
struct Style {
  bool bom = false;
  std::string eol = "\n";
  bool quoted = false;
  bool reversed = false;      // columns in reverse order
  bool extra = false;         // a column before and three after, one with a quoted comma
  bool final_newline = true;
};

std::string render(const Style& s) {
  auto line = [&](std::vector<std::string> cells, const std::vector<std::string>& extra) {
    if (s.reversed) std::reverse(cells.begin(), cells.end());
    std::string out = s.extra ? extra[0] + "," : "";
    for (std::size_t i = 0; i < cells.size(); ++i)
      out += (i ? "," : "") + (s.quoted ? "\"" + cells[i] + "\"" : cells[i]);
    return out + (s.extra ? "," + extra[1] : "");
  };
  std::string text = (s.bom ? "\xEF\xBB\xBF" : "") + line(kColumns, {"cluster_note", "duration,queue,gpu_time"});
  for (const auto& row : kRows) text += s.eol + line(row, {"\"a, b\"", "7200,10,57600.0"});
  return s.final_newline ? text + s.eol : text;
}

// "t.csv:<line>: <field>: <what>" on one line of printable text.
void check_one_line_with_place(const std::string& message) {
  INFO(message);
  CHECK(std::regex_search(message, std::regex("^t\\.csv:[0-9]+: [^:]+: ")));
  CHECK(std::none_of(message.begin(), message.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }));
}

// Where each job was placed when it started.
class PlacementRecorder final : public Sink {
 public:
  void on_fact(const Fact& f) override {
    if (f.kind == FactKind::Queued) queued.push_back(f.job);
    if (f.kind == FactKind::Started) placed[f.job] = *f.placement;
  }
  void finish(const RunRecord&) override {}
  std::vector<JobId> queued;
  std::map<JobId, Placement> placed;
};


std::string row(const std::string& id, const std::string& gpus, const std::string& nodes, const std::string& submit) {
  return id + ",u1," + nodes + "," + gpus + ",16,SFT,COMPLETED,2023-03-01 " + submit + "Z,2023-03-01 " + submit +
         "Z,2023-03-01 23:00:00Z\n";
}

// Peak resident memory since the last reset, and the reset (Linux: /proc/self/clear_refs).
std::int64_t status_kb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  return -1;
}

}  // namespace

TEST_CASE("Awkward but valid spellings of a trace read as exactly the jobs of the clean file", "[bad-inputs]") {
  const Workload clean = read_acme_trace_text(render({}), "clean.csv", {});
  REQUIRE(clean.size() == kRows.size());
  REQUIRE(clean.profiles[4].final_state == JobState::Running);
  const std::vector<std::pair<const char*, Style>> variants = {
      {"CRLF line ends", {.eol = "\r\n"}},
      {"a UTF-8 byte-order mark", {.bom = true}},
      {"every field quoted", {.quoted = true}},
      {"extra columns, one holding a quoted comma", {.extra = true}},
      {"columns in reverse order", {.reversed = true}},
      {"no final newline", {.final_newline = false}},
      {"all of them at once", {true, "\r\n", true, true, true, false}},
  };
  for (const auto& [what, style] : variants) {
    INFO(what);
    check_same_jobs(read_acme_trace_text(render(style), "t.csv", {}), clean);
  }
}

TEST_CASE("Bad traces stop with one line naming file, line and field", "[bad-inputs]") {
  const std::string h = kHeader;
  const std::string ok = row("1", "8", "1", "00:00:00");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "t.csv:1: header: empty file: expected an AcmeTrace header"},
      {h, "t.csv:1: header: no job rows after the header"},
      {h + "\n\r\n", "t.csv:1: header: no job rows after the header"},
      {"job_id,user,node_num,cpu_num,type,state,submit_time,start_time,end_time\n1,u1,1,8,Eval,COMPLETED,,,\n",
       "t.csv:1: header: missing required column 'gpu_num' (is this an AcmeTrace file?)"},
      {"job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,user\n",
       "t.csv:1: header: column 'user' appears twice"},
      {h + ok + "2,u1,1,8,12x,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n",
       "t.csv:3: cpu_num: expected a whole number, got '12x'"},
      {h + "2,u1,1,,16,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n",
       "t.csv:2: gpu_num: expected a whole number, got ''"},
      {h + "2,u1,-1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n",
       "t.csv:2: node_num: must be between 0 and 1000000, got -1"},
      {h + "2,u1,1,99999999999999999999,16,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n",
       "t.csv:2: gpu_num: must be between 0 and 1000000, got 99999999999999999999"},
      {h + "2,u1,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:10:00Z,2023-03-01 00:05:00Z\n",
       "t.csv:2: end_time: before start_time"},
      {h + "2,u1,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:05+8,2023-03-01 01:00:00Z\n",
       "t.csv:2: start_time: expected a timestamp like 2023-03-01 00:18:22+08:00 (or Unix seconds), got '2023-03-01 00:00:05+8'"},
      {h + "2,u1,1,8,16,SFT,COMPLETED,2023-02-30 00:00:00+08:00,,2023-03-01 01:00:00Z\n",
       "t.csv:2: submit_time: expected a timestamp like 2023-03-01 00:18:22+08:00 (or Unix seconds), got '2023-02-30 00:00:00+08:00'"},
      {h + "2,u1,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 25:00:00+08:00\n",
       "t.csv:2: end_time: expected a timestamp like 2023-03-01 00:18:22+08:00 (or Unix seconds), got '2023-03-01 25:00:00+08:00'"},
      {h + row("7", "8", "1", "00:00:00") + row("8", "8", "1", "00:01:00") + "\n" + row("7", "8", "1", "00:02:00"),
       "t.csv:5: job_id: duplicate job id '7', also on line 2"},
      {h + ok + "3,u1,1,8", "t.csv:3: cpu_num: missing: the line has 4 fields, the header 10 (truncated line?)"},
      {h + ok + "3,u1,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,2023-03-01 00:00:00Z,2023-03-01 0",
       "t.csv:3: end_time: expected a timestamp like 2023-03-01 00:18:22+08:00 (or Unix seconds), got '2023-03-01 0'"},
      {h + "3,\"u1,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n",
       "t.csv:2: user: a quoted field is not closed on its line"},
      {"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\n"s + ok,
       "t.csv:1: header: gzip-compressed: decompress it first (gunzip)"},
      {"job_id\0\x01\x02\n"s + ok, "t.csv:1: header: binary data (a NUL byte): not a CSV text file"},
      {h + "2,u\0\x01,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n"s,
       "t.csv:2: user: binary data (a NUL byte): not a CSV text file"},
      {h + "2,u1,1,8,16,\x01\x02\x7f" + std::string(100, 'x') +
           ",COMPLETED,2023-03-01 00:00:00Z,,2023-03-01 01:00:00Z\n",
       "t.csv:2: type: unknown job type '\\x01\\x02\\x7f" + std::string(37, 'x') + "'..."},
      {std::string(3 << 20, 'a'), "t.csv:1: header: line longer than 1 MiB (is this an AcmeTrace CSV file?)"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text.substr(0, 200));
    const std::string e = trace_error(text);
    CHECK(e == message);
    check_one_line_with_place(e);
  }
}

TEST_CASE("Random bytes, alone or after a good header, stop with one printable line", "[bad-inputs]") {
  std::mt19937 bits(7);
  for (int n = 0; n < 20; ++n) {
    std::string noise(4096, '\0');
    for (char& c : noise) c = static_cast<char>(bits() & 0xff);
    const std::string alone = trace_error(noise), after_header = trace_error(kHeader + noise);
    check_one_line_with_place(alone);
    CHECK(alone.rfind("t.csv:1: header: ", 0) == 0);
    check_one_line_with_place(after_header);
    CHECK(after_header.rfind("t.csv:1:", 0) != 0);
  }
}

TEST_CASE("A duplicate job id is looked for among the selected rows, and skipped when lenient", "[bad-inputs]") {
  const std::string text = kHeader + row("7", "8", "1", "00:00:00") + row("8", "8", "1", "00:01:00") +
                           row("7", "8", "1", "12:00:00") + row("9", "8", "1", "12:01:00");
  TraceOptions afternoon;
  afternoon.from = *parse_timestamp("2023-03-01 12:00:00Z");
  CHECK(read_acme_trace_text(text, "t.csv", afternoon).size() == 2);
  TraceOptions lenient;
  lenient.lenient = true;
  const Workload w = read_acme_trace_text(text, "t.csv", lenient);
  REQUIRE(w.size() == 3);
  CHECK(w.rows_skipped == 1);
  CHECK(w.names[2] == "9");
  CHECK(w.requests[0].submit == *parse_timestamp("2023-03-01 00:00:00Z"));
}

TEST_CASE("A job larger than the cluster is REJECTED with its reason, counted, and the run goes on",
          "[bad-inputs]") {
  const auto dir = temp_dir("bad-too-large");
  std::ofstream(dir / "t.csv") << kHeader << row("fits", "8", "1", "00:00:00") << row("gpus", "16", "1", "00:00:01")
                               << row("nodes", "2296", "287", "00:00:02")
                               << "cores,u1,1,8,200,SFT,COMPLETED,2023-03-01 00:00:03Z,,2023-03-01 01:00:00Z\n"
                               << row("after", "8", "1", "00:00:04");
  const RunConfig config = load_run_config(
      (source_dir() / "configs/seren.yaml").string(),
      std::vector<std::string>{"workload.trace=" + (dir / "t.csv").string(), "workload.from=", "workload.to=",
                               "outputs=jobs,summary"});
  const ClusterSpec seren = load_cluster_spec(config.cluster);
  LogCapture log;
  const RunReport report = execute_run(config, seren, read_acme_trace(config.workload_trace, {}), dir / "out", false);
  CHECK(report.conservation.ended == 5);
  const CsvTable summary = read_csv(dir / "out/summary.csv");
  CHECK(summary.rows.at(0)[*summary.column("jobs_rejected")] == "3");
  CHECK(summary.rows.at(0)[*summary.column("jobs_completed")] == "2");
  const CsvTable jobs = read_csv(dir / "out/jobs.csv");
  const std::size_t state = *jobs.column("state"), reason = *jobs.column("reject_reason");
  REQUIRE(jobs.rows.size() == 5);
  CHECK(jobs.rows[0][state] == "COMPLETED");
  CHECK(jobs.rows[1][reason] == "needs more GPUs per node than a node has");
  CHECK(jobs.rows[2][reason] == "needs more nodes than the cluster has");
  CHECK(jobs.rows[3][reason] == "needs more CPU cores per node than a node has");
  for (int i = 1; i <= 3; ++i) CHECK(jobs.rows[static_cast<std::size_t>(i)][state] == "REJECTED");
  CHECK(jobs.rows[4][state] == "COMPLETED");
  CHECK(log.text().find("warning: 1 jobs rejected: needs more nodes than the cluster has (state REJECTED in "
                        "jobs.csv)") != std::string::npos);
}

TEST_CASE("GPUs that node_num does not divide are spread as evenly as possible, with a warning", "[bad-inputs]") {
  const std::string text =
      kHeader + row("a", "8", "1", "00:00:00") +
      "b,u1,3,10,20,SFT,COMPLETED,2023-03-01 00:00:01Z,2023-03-01 00:00:01Z,2023-03-01 01:00:00Z\n" +
      "c,u1,4,2,8,SFT,COMPLETED,2023-03-01 00:00:02Z,2023-03-01 00:00:02Z,2023-03-01 01:00:00Z\n";
  LogCapture log;
  const Workload w = read_acme_trace_text(text, "t.csv", {});
  CHECK(log.text() ==
        "warning: t.csv: 2 jobs have a gpu_num that node_num does not divide (first on line 3): their GPUs are "
        "spread as evenly as possible, the first nodes one more\n");
  PlacementRecorder placements;
  Simulation sim(w, small_cluster(8), make_policy("fifo"), ReplayMode::Policy);
  sim.add_sink(placements);
  sim.run();
  sim.check_conservation();
  REQUIRE(placements.placed.size() == 3);
  auto shares = [&](JobId j) {
    std::vector<std::pair<int, int>> out;
    for (const NodeShare& s : placements.placed.at(j)) out.emplace_back(s.gpus, s.cpus);
    return out;
  };
  CHECK(shares(1) == std::vector<std::pair<int, int>>{{4, 7}, {3, 7}, {3, 6}});
  CHECK(shares(2) == std::vector<std::pair<int, int>>{{1, 2}, {1, 2}, {0, 2}, {0, 2}});
}

TEST_CASE("Rows out of submit order are released in submit order, with a warning", "[bad-inputs]") {
  const std::string text = kHeader + row("a", "8", "1", "10:00:00") + row("b", "8", "1", "09:00:00") +
                           row("c", "8", "1", "11:00:00") + row("d", "8", "1", "09:30:00");
  LogCapture log;
  const Workload w = read_acme_trace_text(text, "t.csv", {});
  CHECK(log.text() == "warning: t.csv: 2 rows are submitted before a row above them (first on line 3): jobs are "
                      "released in submit-time order all the same\n");
  PlacementRecorder facts;
  Simulation sim(w, small_cluster(8), make_policy("fifo"), ReplayMode::Policy);
  sim.add_sink(facts);
  sim.run();
  sim.check_conservation();
  CHECK(facts.queued == std::vector<JobId>{1, 3, 0, 2});
  CHECK(w.names[0] == "a");  // the workload (and so jobs.csv) stays in trace order
}

TEST_CASE("A window that selects no row leaves a run without jobs, with a warning", "[bad-inputs]") {
  TraceOptions next_year;
  next_year.from = *parse_timestamp("2024-01-01");
  LogCapture log;
  CHECK(read_acme_trace_text(render({}), "t.csv", next_year).size() == 0);
  CHECK(log.text() == "warning: t.csv: none of its 6 rows is submitted within the window: the run has no jobs\n");
}

TEST_CASE("A large trace read through a narrow window holds memory for the rows selected, not the file",
          "[bad-inputs]") {
  // 200,000 rows (about 23 MB), of which the window selects 1,000: the reader must hold neither the
  // file nor every row (about 25 MB of jobs), only its 1 MiB buffer and the jobs selected.
  const auto dir = temp_dir("bad-large");
  const fs::path path = dir / "large.csv";
  const Time base = *parse_timestamp("2023-03-01");
  {
    std::ofstream out(path);
    out << kHeader;
    for (int i = 0; i < 200'000; ++i) {
      const std::string t = format_timestamp(base + Time::seconds(10LL * i), 8 * 3600);
      out << i << ",u" << i % 97 << ",1,8,128,Eval,COMPLETED," << t << "," << t << "," << t << "\n";
    }
  }
  REQUIRE(fs::file_size(path) > 20'000'000);
  TraceOptions window;
  window.from = base + Time::seconds(10LL * 100'000);
  window.to = *window.from + Time::seconds(10LL * 1'000);
  std::ofstream("/proc/self/clear_refs") << "5";  // peak RSS := current RSS (Linux 4.0 and later)
  const std::int64_t before = status_kb("VmRSS");
  const Workload w = read_acme_trace(path.string(), window);
  const std::int64_t peak = status_kb("VmHWM");
  REQUIRE(before > 0);
  CHECK(w.size() == 1'000);
  CHECK(w.names[0] == "100000");
  INFO("peak resident memory grew by " << peak - before << " kB while reading");
#ifndef __SANITIZE_ADDRESS__  // ASan's shadow memory and its threads' fake stacks say nothing of the reader's
  CHECK(peak - before < 12 * 1024);
#endif
  fs::remove_all(dir);
}

}  // namespace acme::test
