// The AcmeTrace reader on several threads gives what it gives on one: the same jobs, users, ids,
// counts, warnings and first error, whatever the number of threads and where the parts are cut;
// and so does AcmeTraceFeed, the trace read as it is replayed, chunk by chunk.
#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "sim/error.h"

namespace acme::test {
namespace {

std::string time_text(const OptionalTime& t) { return t ? std::to_string(t->sec()) : "-"; }

// Every field of a workload, one line per job, users in their id order: equal texts, equal workloads.
std::string dump(const Workload& w) {
  std::string out = w.source + "|" + std::to_string(w.rows_skipped) + "|" + std::to_string(w.rows_outside_window) +
                    "|" + time_text(w.window_from) + "|" + time_text(w.window_to) + "|after " +
                    std::to_string(w.after.size()) + "\nusers:";
  for (std::uint32_t u = 0; u < w.users.size(); ++u) out += " " + std::string(w.users[u]);
  out += "\n";
  for (std::size_t j = 0; j < w.size(); ++j) {
    const JobRequest& r = w.requests[j];
    const JobProfile& p = w.profiles[j];
    out += std::string(w.names[static_cast<std::uint32_t>(j)]) + "," + std::to_string(r.submit.sec()) + "," +
           std::to_string(r.gpu_num) + "," + std::to_string(r.node_num) + "," + std::to_string(r.cpu_num) + "," +
           std::string(name(r.type)) + "," + std::to_string(r.user) + "," + std::to_string(p.run.sec()) + "," +
           std::string(name(p.final_state)) + "," + std::to_string(p.idle_share) + "," +
           time_text(p.recorded_start()) + "," + time_text(p.cancel_pending_at()) + "\n";
  }
  return out;
}

// What one read gives: the workload's dump or the error, and the log.
struct Read {
  std::string result, log;
  bool operator==(const Read&) const = default;
};

Read read_text(const std::string& text, TraceOptions opt, unsigned threads) {
  opt.threads = threads;
  LogCapture log;
  Read r;
  try {
    r.result = dump(read_acme_trace_text(text, "t.csv", opt));
  } catch (const InputError& e) {
    r.result = std::string("error: ") + e.what();
  }
  r.log = log.text();
  return r;
}

// The same read on 2, 3 and 7 threads as on one; returns the one-thread read.
Read same_on_every_thread_count(const std::string& text, const TraceOptions& opt = {}) {
  const Read one = read_text(text, opt, 1);
  for (unsigned threads : {2u, 3u, 7u}) {
    INFO(threads << " threads");
    const Read many = read_text(text, opt, threads);
    CHECK(many.result == one.result);
    CHECK(many.log == one.log);
  }
  return one;
}


std::string stamp(std::int64_t s) { return format_timestamp(*parse_timestamp("2023-03-01") + Time::seconds(s), 8 * 3600); }

// `rows` rows of a random but fixed trace: users first named all along the file, some rows out of
// submit order, some with a gpu_num their node_num does not divide, RUNNING rows without an end,
// jobs that never started, blank lines and quoted fields; `ordered`: none out of submit order.
std::string random_rows(int rows, std::uint32_t seed, int first_id = 0, bool ordered = false) {
  std::mt19937 rng(seed);
  auto pick = [&](std::uint32_t n) { return static_cast<int>(rng() % n); };
  std::string out;
  std::int64_t t = 0;
  for (int i = 0; i < rows; ++i) {
    t += pick(60);
    const std::int64_t submit = pick(20) == 0 && !ordered ? t - pick(3600) : t;
    const int nodes = 1 + pick(3);
    const int gpus = pick(10) == 0 ? nodes * 8 - 1 : nodes * 8;
    const std::string user = "u" + std::to_string(pick(5) == 0 ? i : pick(40));
    const int kind = pick(12);
    const std::string state = kind == 0 ? "RUNNING" : kind == 1 ? "CANCELLED" : kind == 2 ? "FAILED" : "COMPLETED";
    const std::string start = kind == 1 && pick(2) == 0 ? "" : stamp(submit + pick(100));
    const std::string end = kind == 0 ? "" : stamp(submit + 100 + pick(5000));
    const std::string id = std::to_string(first_id + i);
    out += (pick(7) == 0 ? "\"" + id + "\"" : id) + "," + user + "," + std::to_string(nodes) + "," +
           std::to_string(gpus) + ",16," + (pick(3) == 0 ? "Eval" : "SFT") + "," + state + "," + stamp(submit) + "," +
           start + "," + end + "\n";
    if (pick(50) == 0) out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("A trace read on 2, 3 or 7 threads gives the workload and warnings of one thread", "[reader][threads]") {
  const std::string text = kHeader + random_rows(3000, 1);
  const Read one = same_on_every_thread_count(text);
  CHECK(one.result.find("error") == std::string::npos);
  // The trace has what is worth checking: warnings with counts and first lines, users all along.
  CHECK(one.log.find("rows are submitted before a row above them") != std::string::npos);
  CHECK(one.log.find("gpu_num that node_num does not divide") != std::string::npos);
  // CRLF, no final line break, a window, a window that selects nothing.
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  same_on_every_thread_count(crlf.substr(0, crlf.size() - 2));
  TraceOptions window;
  window.from = *parse_timestamp("2023-03-01 10:00:00+08:00");
  window.to = *parse_timestamp("2023-03-01 20:00:00+08:00");
  same_on_every_thread_count(text, window);
  window.from = *parse_timestamp("2024-01-01");
  window.to = std::nullopt;
  CHECK(same_on_every_thread_count(text, window).log.find("none of its") != std::string::npos);
}

TEST_CASE("Traces too small to cut in parts read the same on 7 threads", "[reader][threads]") {
  for (const std::string& text : {kHeader + random_rows(1, 2), kHeader + random_rows(3, 3), kHeader,
                                  kHeader + "\n\n", std::string(), kHeader.substr(0, kHeader.size() - 1),
                                  kHeader + random_rows(2, 4).substr(0, 40)}) {
    INFO(text);
    same_on_every_thread_count(text);
  }
}

TEST_CASE("A lenient read on several threads skips and reports the rows one thread does, in order",
          "[reader][threads]") {
  std::string text = kHeader;
  for (int part = 0; part < 8; ++part) {
    text += random_rows(400, 10 + part, part * 1000);
    text += part % 2 ? "bad" + std::to_string(part) + ",u1,1,x,16,SFT,COMPLETED," + stamp(9) + ",,\n"
                     : "dup,u1,1,8,16,SFT,COMPLETED," + stamp(5) + "," + stamp(6) + "," + stamp(7) + "\n";
  }
  text += "1500," + random_rows(1, 99).substr(2);  // an id of an earlier part
  TraceOptions lenient;
  lenient.lenient = true;
  const Read one = same_on_every_thread_count(text, lenient);
  CHECK(one.log.find("malformed rows skipped in all") != std::string::npos);
  CHECK(one.log.find("duplicate job id 'dup'") != std::string::npos);
  // Strict, the first problem in the file stops it: a bad row, or else the first duplicate.
  CHECK(same_on_every_thread_count(text).result.find("error: t.csv:") == 0);
  std::string dups_only = kHeader + random_rows(2000, 20) + random_rows(10, 21, 1990) + random_rows(2000, 22, 5000);
  CHECK(same_on_every_thread_count(dups_only).result.find("duplicate job id '1990'") != std::string::npos);
}

TEST_CASE("On several threads the first error in the file is the one reported, with its line and column",
          "[reader][threads]") {
  const std::string a = random_rows(1500, 30), b = random_rows(1500, 31, 5000);
  const std::string bad_gpus = "x1,u1,1,eight,16,SFT,COMPLETED," + stamp(1) + "," + stamp(2) + "," + stamp(3) + "\n";
  const std::string bad_end = "x2,u1,1,8,16,SFT,COMPLETED," + stamp(5) + "," + stamp(6) + "," + stamp(4) + "\n";
  const std::string long_line = std::string(1 << 20, 'a') + "\n";
  for (const std::string& text :
       {kHeader + a + b + bad_gpus, kHeader + a + bad_end + b + bad_gpus, kHeader + bad_gpus + a + b + bad_end,
        kHeader + a + long_line + b, kHeader + a + b + long_line.substr(0, (1 << 20) - 1),
        kHeader + a + b + long_line.substr(0, 1 << 20), kHeader + a + "x3,u1,1\n" + b,
        kHeader + a + std::string("x4,u1,1,8,16,SFT,COMPLETED,\0,,\n", 31) + b,
        long_line + a, std::string("job_id,user\n") + a}) {
    const Read one = same_on_every_thread_count(text);
    CHECK(one.result.substr(0, 12) == "error: t.csv");
  }
  TraceOptions lenient;
  lenient.lenient = true;
  // Lenient, rows skipped before a line too long are reported, then the line stops reading.
  const Read stopped = same_on_every_thread_count(kHeader + a + bad_gpus + b + bad_end + long_line + a, lenient);
  CHECK(stopped.result.find("line longer than 1 MiB") != std::string::npos);
  CHECK(stopped.log.find("end_time: before start_time (row skipped") != std::string::npos);
}

TEST_CASE("A trace file read on two threads gives the workload of one thread", "[reader][threads]") {
  // Large enough (about 2.5 MB) that each part gives pages of the mapped file back as it reads.
  const auto dir = temp_dir("reader-threads");
  const std::string path = (dir / "t.csv").string();
  std::ofstream(path) << kHeader << random_rows(25000, 40);
  std::string dumps[2];
  for (unsigned threads : {1u, 2u}) {
    TraceOptions opt;
    opt.threads = threads;
    dumps[threads - 1] = dump(read_acme_trace(path, opt));
  }
  CHECK(dumps[0].size() > 1'000'000);
  CHECK(dumps[1] == dumps[0]);
  std::filesystem::remove_all(dir);
}

namespace {

// A read of the file through AcmeTraceFeed on `workers` threads, every chunk taken, as a run
// takes them; "whole needed" for a trace it cannot give in submit order. With `warnings`, what
// on_whole was given.
Read feed_file(const std::string& path, const TraceOptions& opt, unsigned workers,
               std::vector<std::string>* warnings = nullptr) {
  LogCapture log;
  Read r;
  try {
    Workload w;
    int whole_calls = 0;
    {
      TraceOptions with_workers = opt;
      with_workers.threads = workers + 1;
      std::unique_ptr<AcmeTraceFeed> feed = AcmeTraceFeed::open(path, with_workers, w);
      REQUIRE(feed);
      feed->on_whole = [&](const Workload& whole, const std::vector<std::string>& kept) {
        CHECK(&whole == &w);
        ++whole_calls;
        if (warnings) *warnings = kept;
      };
      std::size_t hand_outs = 0;
      while (feed->append_next(w)) {
        ++hand_outs;
      }
      CHECK(hand_outs >= 1);
      feed->finish();
    }  // on_whole has been called once the feed is gone
    CHECK(whole_calls == 1);
    r.result = dump(w);
  } catch (const InputError& e) {
    r.result = std::string("error: ") + e.what();
  } catch (const WholeWorkloadNeeded&) {
    r.result = "whole needed";
  }
  r.log = log.text();
  return r;
}

Read read_file_whole(const std::string& path, const TraceOptions& opt, std::vector<std::string>* warnings = nullptr) {
  LogCapture log;
  Read r;
  try {
    TraceOptions one = opt;
    one.threads = 1;
    r.result = dump(read_acme_trace(path, one, warnings));
  } catch (const InputError& e) {
    r.result = std::string("error: ") + e.what();
  }
  r.log = log.text();
  return r;
}

// The feed on 0 (append_next reads), 1 and 3 workers gives what one reader gives; returns that.
Read same_fed(const std::string& path, const TraceOptions& opt = {}) {
  std::vector<std::string> whole_warnings;
  const Read whole = read_file_whole(path, opt, &whole_warnings);
  for (unsigned workers : {0u, 1u, 3u}) {
    INFO(workers << " workers");
    std::vector<std::string> fed_warnings;
    const Read fed = feed_file(path, opt, workers, &fed_warnings);
    CHECK(fed.result == whole.result);
    CHECK(fed.log == whole.log);
    if (whole.result.rfind("error", 0) != 0) CHECK(fed_warnings == whole_warnings);
  }
  return whole;
}

}  // namespace

TEST_CASE("A trace fed chunk by chunk gives the workload, warnings and errors of one reader", "[reader][feed]") {
  // About 9 MB: five chunks, RUNNING rows without an end all along (whose horizon is the file's
  // latest time), users named all along, blank lines, quoted ids, gpu_num that node_num does not divide.
  const auto dir = temp_dir("reader-feed");
  const std::string path = (dir / "t.csv").string();
  const std::string rows = random_rows(90000, 50, 0, true);
  std::ofstream(path) << kHeader << rows;
  const Read whole = same_fed(path);
  CHECK(whole.result.size() > 5'000'000);
  CHECK(whole.log.find("gpu_num that node_num does not divide") != std::string::npos);
  TraceOptions window;  // RUNNING rows run to the window's end
  window.from = *parse_timestamp("2023-03-05 10:00:00+08:00");
  window.to = *parse_timestamp("2023-03-20 20:00:00+08:00");
  same_fed(path, window);
  window.from = *parse_timestamp("2024-01-01");
  window.to = std::nullopt;
  CHECK(same_fed(path, window).log.find("none of its") != std::string::npos);
  // Errors: a bad row in the fourth chunk, no rows; a duplicate id at the end asks for the whole read.
  const std::string bad = "x1,u1,1,eight,16,SFT,COMPLETED," + stamp(1) + "," + stamp(2) + "," + stamp(3) + "\n";
  const std::size_t cut = rows.find('\n', 7'000'000) + 1;
  std::ofstream(path) << kHeader << rows.substr(0, cut) << bad << rows.substr(cut);
  CHECK(same_fed(path).result.find("gpu_num: expected a whole number") != std::string::npos);
  std::ofstream(path) << kHeader << rows << "7,u1,1,8,16,SFT,COMPLETED," + stamp(9'000'000) + "," + stamp(9'000'001) + "," +
                                                stamp(9'000'002) + "\n";
  CHECK(read_file_whole(path, {}).result.find("duplicate job id '7'") != std::string::npos);
  CHECK(feed_file(path, {}, 1).result == "whole needed");  // whose error names the lines
  std::ofstream(path) << kHeader;
  CHECK(same_fed(path).result.find("no job rows after the header") != std::string::npos);
  // Rows out of submit order: the feed cannot go on, the run reads the trace whole.
  std::ofstream(path) << kHeader << random_rows(30000, 52);
  CHECK(feed_file(path, {}, 1).result == "whole needed");
  // Lenient reads, and files that cannot be mapped, are read whole.
  TraceOptions lenient;
  lenient.lenient = true;
  Workload w;
  CHECK(!AcmeTraceFeed::open(path, lenient, w));
  CHECK(!AcmeTraceFeed::open((dir / "missing.csv").string(), {}, w));
  std::filesystem::remove_all(dir);
}

}  // namespace acme::test
