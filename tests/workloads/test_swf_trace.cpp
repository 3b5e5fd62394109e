// The Standard Workload Format (SWF 2.2, the Parallel Workloads Archive's; workloads/swf_trace.h),
// from the lines of tests/data/other_formats/sample.swf worked out by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "harness.h"
#include "sim/error.h"
#include "workloads/acme_trace_reader.h"

namespace acme::test {

TEST_CASE("An SWF log reads: processors as GPUs packed 8 to a node, parts skipped, cancelled jobs withdrawn", "[reader]") {
  std::vector<std::string> warnings;
  const std::string sample = (source_dir() / "tests/data/other_formats/sample.swf").string();
  CHECK(trace_format(sample) == TraceFormat::Swf);
  CHECK(trace_source(sample) == "SWF " + sample);
  const Workload w = read_acme_trace(sample, {}, &warnings);
  REQUIRE(w.size() == 6);
  const Time t0 = Time::seconds(1677600000);  // the header's UnixStartTime
  // Job 1: submitted at t0, waited 5 s, ran 3,600 s on 8 processors: 8 GPUs on one node; completed.
  CHECK(w.names[0] == "1");
  CHECK(w.requests[0].submit == t0);
  CHECK(*w.profiles[0].recorded_start() == t0 + Time::seconds(5));
  CHECK(w.profiles[0].run == Time::seconds(3600));
  CHECK(w.requests[0].gpu_num == 8);
  CHECK(w.requests[0].node_num == 1);
  CHECK(w.requests[0].cpu_num == 0);
  CHECK(w.requests[0].type == JobType::Other);
  CHECK(w.profiles[0].final_state == JobState::Completed);
  // Job 2: 16 processors on 2 nodes; status 0, failed; user 7.
  CHECK(w.requests[1].node_num == 2);
  CHECK(w.profiles[1].final_state == JobState::Failed);
  CHECK(w.users[w.requests[1].user] == "7");
  // Job 3: its summary line (1,000 s in all); the two lines of its parts are not jobs.
  CHECK(w.names[2] == "3");
  CHECK(w.profiles[2].run == Time::seconds(1000));
  // Job 4: cancelled before it ran (no wait, no run, no allocation): the 2 processors it asked for,
  // withdrawn at its submission.
  CHECK(w.requests[3].gpu_num == 2);
  CHECK(!w.profiles[3].recorded_start());
  CHECK(*w.profiles[3].cancel_pending_at() == t0 + Time::seconds(120));
  CHECK(w.profiles[3].final_state == JobState::Cancelled);
  // Job 5: cancelled after 50 s of running.
  CHECK(*w.profiles[4].recorded_start() == t0 + Time::seconds(210));
  CHECK(w.profiles[4].final_state == JobState::Cancelled);
  // Job 6: fractional times floored; status and user not recorded (-1): completed, user "-1".
  CHECK(w.requests[5].submit == t0 + Time::seconds(7200));
  CHECK(*w.profiles[5].recorded_start() == t0 + Time::seconds(7203));  // 7,200.7 + 2.5 = 7,203.2
  CHECK(w.profiles[5].run == Time::seconds(60));
  CHECK(w.profiles[5].final_state == JobState::Completed);
  CHECK(w.users[w.requests[5].user] == "-1");
  // Requested times (field 9) are the jobs' time limits, a cancelled job's too.
  std::vector<std::int64_t> limits;
  for (JobId j = 0; j < w.size(); ++j) limits.push_back(w.time_limit(j).sec());
  CHECK(limits == std::vector<std::int64_t>{7200, 600, 2000, 600, 100, 100});
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == ": SWF counts processors: each is read as a GPU, packed 8 to a node, with no cores");
  CHECK(warnings[1] == ": 2 lines of partial executions (status 2-4) skipped: their jobs' summary lines are read");
}

TEST_CASE("An SWF log with a bad line stops with one line naming the field", "[reader]") {
  const std::filesystem::path dir = temp_dir("swf-bad");
  const auto read = [&](const std::string& lines) {
    std::ofstream(dir / "log.swf", std::ios::trunc) << "; UnixStartTime: 0\n" << lines;
    return read_acme_trace((dir / "log.swf").string(), {});
  };
  const std::string ok = "1 0 0 10 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  CHECK(read(ok).size() == 1);
  CHECK_THROWS_WITH(read("1 0 0 10 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1\n"),
                    Catch::EndsWith("log.swf:2: expected the 18 fields of SWF, the line has 17"));
  CHECK_THROWS_WITH(read("1 0 0 ten 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"),
                    Catch::EndsWith("log.swf:2: run time: expected a number (-1: not recorded), got 'ten'"));
  CHECK_THROWS_WITH(read("1 0 0 10 8 -1 -1 8 -1 -1 1e300 1 -1 -1 -1 -1 -1 -1\n"),
                    Catch::EndsWith("log.swf:2: status: expected a number (-1: not recorded), got '1e300'"));
  CHECK_THROWS_WITH(read("1 0 0 10 8 -1 -1 8 -1 -1 7 1 -1 -1 -1 -1 -1 -1\n"),
                    Catch::EndsWith("log.swf:2: status: expected -1, 0, 1, 5, or 2-4 for a partial execution (SWF's), got '7'"));
  CHECK_THROWS_WITH(read(ok + ok), Catch::EndsWith("log.swf:3: job number: used by an earlier job"));
  CHECK_THROWS_WITH(read("1 0 0 10 2.5 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"),
                    Catch::EndsWith("log.swf:2: allocated processors: expected a whole number of processors up to a million"));
  // A model's line (no wait time, status -1): no recorded start, its run time kept.
  const Workload model = read("1 0 -1 10 8 -1 -1 8 -1 -1 -1 1 -1 -1 -1 -1 -1 -1\n");
  REQUIRE(model.size() == 1);
  CHECK(!model.profiles[0].recorded_start());
  CHECK(!model.profiles[0].cancel_pending_at());
  CHECK(model.profiles[0].run == Time::seconds(10));
  // No run time, not cancelled: skipped (a warning), as is a job of no processors.
  CHECK(read("1 0 0 -1 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n2 0 0 5 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n").size() == 0);
}

TEST_CASE("An SWF log read leniently skips its bad lines, counts them and names the first five", "[reader]") {
  const std::filesystem::path dir = temp_dir("swf-lenient");
  std::string lines = "; UnixStartTime: 0\n1 0 0 10 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  lines += "2 1 0 ten 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";  // line 3: no number
  lines += "1 2 0 10 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";   // line 4: job 1 again
  for (int i = 0; i < 5; ++i) lines += "9 3 0 10 8 -1 -1 8\n";    // lines 5-9: too few fields
  lines += "2 4 0 10 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n";   // line 10: job 2, whose first line was skipped
  std::ofstream(dir / "log.swf") << lines;
  TraceOptions lenient;
  lenient.lenient = true;
  std::vector<std::string> warnings;
  const Workload w = read_acme_trace((dir / "log.swf").string(), lenient, &warnings);
  REQUIRE(w.size() == 2);
  CHECK(w.names[1] == "2");
  CHECK(w.requests[1].submit == Time::seconds(4));
  CHECK(w.rows_skipped == 7);
  REQUIRE(warnings.size() >= 7);
  CHECK(warnings[0] == ":3: run time: expected a number (-1: not recorded), got 'ten' (line skipped: workload.lenient is on)");
  CHECK(warnings[1] == ":4: job number: used by an earlier job (line skipped: workload.lenient is on)");
  CHECK(warnings[4] == ":7: expected the 18 fields of SWF, the line has 8 (line skipped: workload.lenient is on)");
  CHECK(warnings[5] == ": 7 malformed lines skipped in all");
  CHECK_THROWS_WITH(read_acme_trace((dir / "log.swf").string(), {}),
                    Catch::EndsWith("log.swf:3: run time: expected a number (-1: not recorded), got 'ten'"));
}

}  // namespace acme::test

namespace acme::test {

// tests/golden/feedback.swf on 1 node under fifo (its schedules: tests/golden/README.md).
TEST_CASE("An SWF log's feedback: a job is submitted its think time after its preceding job ends", "[reader][golden]") {
  const std::string log = (source_dir() / "tests/golden/feedback.swf").string();
  const Time t0 = Time::seconds(1677628800);
  const auto replay = [&](bool feedback, std::vector<std::string>& warnings) {
    TraceOptions options;
    options.feedback = feedback;
    const Workload w = read_acme_trace(log, options, &warnings);
    Params policy("policy", {}), estimate("estimate", {});
    Simulation sim(w, small_cluster(1), make_policy("fifo", policy), ReplayMode::Policy, make_estimates(w, estimate, 1));
    sim.run();
    sim.check_conservation();
    std::vector<std::string> rows;  // job, submitted, start (none: never started), end, state
    const auto after_t0 = [&](OptionalTime t) { return t ? std::to_string((*t - t0).sec()) : std::string(); };
    for (JobId j = 0; j < w.size(); ++j) {
      const JobOutcome& o = sim.outcomes()[j];
      rows.push_back(std::string(w.names[j]) + "," + after_t0(submitted(w, sim.outcomes(), j)) + "," + after_t0(o.start) +
                     "," + after_t0(o.end) + "," + std::string(name(o.state)));
    }
    return rows;
  };
  std::vector<std::string> off_warnings, on_warnings;
  CHECK(replay(false, off_warnings) ==
        std::vector<std::string>{"1,0,0,100,COMPLETED", "2,50,100,110,COMPLETED", "3,60,110,115,COMPLETED",
                                 "4,70,110,140,COMPLETED", "5,80,,95,CANCELLED"});
  CHECK(replay(true, on_warnings) ==
        std::vector<std::string>{"1,0,0,100,COMPLETED", "2,120,130,140,COMPLETED", "3,140,140,145,COMPLETED",
                                 "4,70,100,130,COMPLETED", "5,100,,115,CANCELLED"});
  CHECK(on_warnings.size() == off_warnings.size() + 1);
  CHECK(on_warnings.back() ==
        ": 1 jobs name a preceding job that is not replayed (outside the window, not replayable, or not in the log): "
        "submitted when the log says");
}

}  // namespace acme::test
