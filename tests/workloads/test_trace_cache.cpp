// The parsed-trace cache (workloads/trace_cache.h): a cached read, cold or warm, is the uncached
// read field by field and warning by warning; a damaged or stale entry is rebuilt.
#include <catch2/catch.hpp>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "harness.h"
#include "workloads/registry.h"
#include "workloads/trace_cache.h"

namespace acme::test {
namespace {

namespace fs = std::filesystem;

// Rows with something for every path of the reader: never started, cancelled at its start, still
// RUNNING without an end, GPUs that the nodes do not divide, a row out of submit order, a
// malformed row and a duplicate id (skipped, lenient), rows outside the window, several users.
const std::string kTrace =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"
    "a1,ua,1,8,16,Pretrain,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 02:00:00+08:00\n"
    "a2,ub,2,12,32,SFT,FAILED,2023-03-01 00:01:00+08:00,2023-03-01 00:02:00+08:00,2023-03-01 01:00:00+08:00\n"
    "a3,ua,1,1,4,Eval,CANCELLED,2023-03-01 00:02:00+08:00,,2023-03-01 00:30:00+08:00\n"
    "a4,uc,2,3,4,Debug,CANCELLED,2023-03-01 00:03:00+08:00,2023-03-01 00:05:00+08:00,2023-03-01 00:05:00+08:00\n"
    "a5,ub,1,0,8,CPU,COMPLETED,2023-03-01 00:00:30+08:00,2023-03-01 00:00:40+08:00,2023-03-01 00:10:00+08:00\n"
    "a6,ud,1,8,16,MLLM,RUNNING,2023-03-01 00:04:00+08:00,2023-03-01 00:06:00+08:00,\n"
    "a7,ua,1,oops,16,Eval,COMPLETED,2023-03-01 00:05:00+08:00,2023-03-01 00:06:00+08:00,2023-03-01 00:07:00+08:00\n"
    "a1,ue,1,8,16,Other,COMPLETED,2023-03-01 00:06:00+08:00,2023-03-01 00:07:00+08:00,2023-03-01 00:08:00+08:00\n"
    "a8,ue,1,4,8,Eval,TIMEOUT,2023-03-02 00:00:00+08:00,2023-03-02 00:01:00+08:00,2023-03-02 05:00:00+08:00\n"
    "a9,uf,,16,8,Pretrain,COMPLETED,2023-03-03 00:00:00+08:00,2023-03-03 00:00:01+08:00,2023-03-03 09:00:00+08:00\n";

void check_same_workload(const Workload& a, const Workload& b) {
  CHECK(a.source == b.source);
  CHECK(a.rows_skipped == b.rows_skipped);
  CHECK(a.rows_outside_window == b.rows_outside_window);
  CHECK(a.window_from == b.window_from);
  CHECK(a.window_to == b.window_to);
  CHECK(a.after == b.after);
  REQUIRE(a.users.size() == b.users.size());
  for (std::uint32_t u = 0; u < a.users.size(); ++u) CHECK(a.users[u] == b.users[u]);
  check_same_jobs(a, b);
}

struct Fixture {
  fs::path dir;
  std::string trace;
  TraceCacheSettings cache;
  TraceOptions options;
  explicit Fixture(const std::string& name, const std::string& text = kTrace) : dir(temp_dir(name)) {
    trace = (dir / "t.csv").string();
    std::ofstream(trace, std::ios::binary) << text;
    cache.dir = (dir / "cache").string();
    options.lenient = true;
  }
  // A read through the cache, and the warnings it logged.
  std::pair<CachedTrace, std::string> read() const {
    LogCapture log(spdlog::level::debug);
    CachedTrace t = read_acme_trace_cached(trace, options, cache);
    return {std::move(t), log.warnings()};
  }
  Workload uncached() const {
    LogCapture quiet(spdlog::level::debug);
    return read_acme_trace(trace, options);
  }
};

}  // namespace

TEST_CASE("A cached read, cold and warm, gives the uncached read's workload and warnings", "[trace-cache]") {
  Fixture f("trace-cache-same");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"", ""}, {"2023-02-28", "2023-03-02"}}) {
    f.options.from = from.empty() ? std::nullopt : parse_timestamp(from);
    f.options.to = to.empty() ? std::nullopt : parse_timestamp(to);
    INFO("window " << from << " to " << to);
    TraceCacheSettings off = f.cache;
    off.enabled = false;
    LogCapture log(spdlog::level::debug);
    const CachedTrace uncached = read_acme_trace_cached(f.trace, f.options, off);
    const std::string uncached_warnings = log.warnings();
    CHECK(uncached.use == TraceCacheUse::Off);
    CHECK(uncached_warnings.find("malformed") == std::string::npos);  // at most 5 skipped rows: each named
    CHECK(uncached_warnings.find("gpu_num: expected a whole number") != std::string::npos);
    CHECK(uncached_warnings.find("duplicate job id") != std::string::npos);
    CHECK(uncached_warnings.find("submitted before a row above them") != std::string::npos);

    const auto [cold, cold_warnings] = f.read();
    CHECK(cold.use == TraceCacheUse::Built);
    REQUIRE(fs::exists(cold.entry));
    const auto [warm, warm_warnings] = f.read();
    CHECK(warm.use == TraceCacheUse::Hit);
    CHECK(warm.entry == cold.entry);
    check_same_workload(cold.workload, uncached.workload);
    check_same_workload(warm.workload, uncached.workload);
    CHECK(cold_warnings == uncached_warnings);
    CHECK(warm_warnings == uncached_warnings);
  }
  CHECK(std::distance(fs::directory_iterator(f.dir / "cache"), fs::directory_iterator()) == 2);  // one a window
}

TEST_CASE("A warm read maps the entry's requests and profiles, and a change to them leaves the entry as it was",
          "[trace-cache]") {
  Fixture f("trace-cache-mapped");
  const std::string entry = f.read().first.entry;
  const std::string bytes = read_file(entry);
  CachedTrace warm = f.read().first;
  REQUIRE(warm.use == TraceCacheUse::Hit);
  Workload& w = warm.workload;
  CHECK(w.requests.is_view());
  CHECK(w.profiles.is_view());
  CHECK(w.names.is_view());
  const std::int32_t gpus = std::as_const(w).requests[0].gpu_num;
  w.requests[0].gpu_num = gpus + 1;  // copied first
  w.profiles[0].run = Time::hours(99);
  CHECK_FALSE(w.requests.is_view());
  CHECK(w.requests[0].gpu_num == gpus + 1);
  CHECK(read_file(entry) == bytes);
  const CachedTrace again = f.read().first;
  CHECK(again.use == TraceCacheUse::Hit);
  CHECK(again.workload.requests[0].gpu_num == gpus);
  check_same_workload(again.workload, f.uncached());
}

TEST_CASE("A warm read says in the debug log that the trace came from the cache", "[trace-cache]") {
  Fixture f("trace-cache-log");
  f.read();
  LogCapture log(spdlog::level::debug);
  CHECK(read_acme_trace_cached(f.trace, f.options, f.cache).use == TraceCacheUse::Hit);
  CHECK(log.text().find("debug: " + f.trace + ": trace from cache " + (f.dir / "cache").string()) !=
        std::string::npos);
}

TEST_CASE("A truncated, damaged or foreign cache entry is rebuilt, never trusted", "[trace-cache]") {
  Fixture f("trace-cache-damaged");
  const Workload expected = f.uncached();
  const std::string entry = f.read().first.entry;
  const std::string good = read_file(entry);
  REQUIRE(good.size() > 100);
  auto damaged = [&](const std::string& what, const std::string& bytes) {
    INFO(what);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    const CachedTrace t = f.read().first;
    CHECK(t.use == TraceCacheUse::Built);
    check_same_workload(t.workload, expected);
    CHECK(read_file(entry) == good);  // rewritten whole
    CHECK(f.read().first.use == TraceCacheUse::Hit);
  };
  damaged("empty", "");
  damaged("not a cache file", "job_id,user\n");
  damaged("truncated", good.substr(0, good.size() / 2));
  damaged("one byte short", good.substr(0, good.size() - 1));
  damaged("one byte more", good + "x");
  for (std::size_t at = 0; at < good.size(); ++at) {  // every byte is checked (checksum, key, or zero padding)
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ (at % 2 ? 0x01 : 0x80));
    damaged("a byte changed at " + std::to_string(at), flipped);
  }
  std::string other_version = good;
  other_version[8] = static_cast<char>(kTraceCacheVersion + 1);
  damaged("another format version", other_version);
}

// A trace of `rows` jobs in submit order, a second apart: more than one chunk of an entry.
std::string long_trace(int rows) {
  std::string text = kHeader;
  char row[200];
  for (int i = 0; i < rows; ++i) {
    const int h = i / 3600, m = i / 60 % 60, sec = i % 60;
    std::snprintf(row, sizeof row,
                  "j%d,u%d,1,%d,4,Eval,COMPLETED,2023-03-01 %02d:%02d:%02d+08:00,2023-03-01 %02d:%02d:%02d+08:00,"
                  "2023-03-02 00:00:00+08:00\n",
                  i, i % 7, i % 9, h, m, sec, h, m, sec);
    text += row;
  }
  return text;
}

TEST_CASE("A warm entry replayed as it is read gives the whole read's workload, and stops at a damaged chunk",
          "[trace-cache][feed]") {
  Fixture f("trace-cache-feed", long_trace(40000));
  f.options.lenient = false;
  const Workload whole = f.uncached();
  CHECK(f.read().first.use == TraceCacheUse::Built);
  const auto [warm, warnings] = f.read();
  CHECK(warm.use == TraceCacheUse::Hit);
  check_same_workload(warm.workload, whole);  // read whole, chunk by chunk

  const std::string good = read_file(warm.entry);
  std::string flipped = good;  // a byte of the last job names (the file ends with them and 3 checksums)
  flipped[good.size() - 40] = static_cast<char>(flipped[good.size() - 40] ^ 0x20);
  for (unsigned threads : {1u, 2u}) {  // read by append_next, or on a thread of its own
    INFO(threads << " threads");
    f.options.threads = threads;
    const TraceCacheEntry entry(f.trace, f.options, f.cache);
    Workload fed;
    std::unique_ptr<TraceCacheFeed> feed = entry.feed(fed);
    REQUIRE(feed);
    CHECK(feed->expected_jobs() == whole.size());
    int hand_outs = 0;
    while (feed->append_next(fed)) ++hand_outs;
    CHECK(hand_outs == 3);  // chunks of 16,384 jobs
    check_same_workload(fed, whole);
    CHECK(fed.requests.is_view());  // the entry's, mapped
    CHECK(fed.profiles.is_view());
    CHECK(fed.names.is_view());

    // A byte of the last chunk changed: the first chunks come, then WholeWorkloadNeeded.
    std::ofstream(warm.entry, std::ios::binary | std::ios::trunc) << flipped;
    Workload stopped;
    feed = entry.feed(stopped);
    REQUIRE(feed);
    CHECK(feed->append_next(stopped));
    CHECK(feed->append_next(stopped));
    CHECK_THROWS_AS(feed->append_next(stopped), WholeWorkloadNeeded);
    feed.reset();
    std::ofstream(warm.entry, std::ios::binary | std::ios::trunc) << good;
  }
  const TraceCacheEntry entry(f.trace, f.options, f.cache);
  // A byte of the key changed: no feed (the trace is parsed).
  flipped = good;
  flipped[50] = static_cast<char>(flipped[50] ^ 0x20);
  std::ofstream(warm.entry, std::ios::binary | std::ios::trunc) << flipped;
  Workload none;
  CHECK_FALSE(entry.feed(none));
  CHECK(f.read().first.use == TraceCacheUse::Built);
  CHECK(read_file(warm.entry) == good);

  // An entry whose jobs are out of submit order is read whole, not fed.
  Fixture unsorted("trace-cache-feed-unsorted");
  unsorted.read();
  Workload w;
  CHECK_FALSE(TraceCacheEntry(unsorted.trace, unsorted.options, unsorted.cache).feed(w));
  CHECK(unsorted.read().first.use == TraceCacheUse::Hit);
}

TEST_CASE("The time limits an SWF log records are kept, cold, warm and replayed as the entry is read",
          "[trace-cache][feed]") {
  // 40,000 jobs (3 chunks), every third with no requested time (-1).
  std::string swf = "; UnixStartTime: 1677600000\n";
  for (int j = 1; j <= 40000; ++j)
    swf += std::to_string(j) + " " + std::to_string(j) + " 0 60 8 -1 -1 8 " + (j % 3 == 0 ? "-1" : std::to_string(j)) +
           " -1 1 1 1 -1 1 -1 -1 -1\n";
  Fixture f("trace-cache-limits", swf);
  f.options.lenient = false;
  const Workload whole = f.uncached();
  REQUIRE(whole.time_limits.size() == 40000);
  CHECK(whole.time_limit(0) == Time::seconds(1));
  CHECK(whole.time_limit(2) == Time{});  // job 3 records none
  CHECK(whole.time_limit(39999) == Time::seconds(40000));
  CHECK(f.read().first.use == TraceCacheUse::Built);
  const auto [warm, warnings] = f.read();
  CHECK(warm.use == TraceCacheUse::Hit);
  check_same_workload(warm.workload, whole);
  CHECK(warm.workload.time_limits.is_view());
  for (unsigned threads : {1u, 2u}) {
    INFO(threads << " threads");
    f.options.threads = threads;
    Workload fed;
    std::unique_ptr<TraceCacheFeed> feed = TraceCacheEntry(f.trace, f.options, f.cache).feed(fed);
    REQUIRE(feed);
    while (feed->append_next(fed)) {
    }
    check_same_workload(fed, whole);
  }
}

TEST_CASE("A touched or rewritten trace invalidates its entry", "[trace-cache]") {
  Fixture f("trace-cache-stale");
  CHECK(f.read().first.use == TraceCacheUse::Built);
  const auto touched = fs::last_write_time(f.trace) + std::chrono::seconds(5);
  fs::last_write_time(f.trace, touched);
  CHECK(f.read().first.use == TraceCacheUse::Built);
  CHECK(f.read().first.use == TraceCacheUse::Hit);

  // The same size and modification time, another job: the hash of the head says so.
  std::string text = kTrace;
  text.replace(text.find("a2,ub,2,12,32"), 13, "a2,ub,2,16,32");
  std::ofstream(f.trace, std::ios::binary | std::ios::trunc) << text;
  fs::last_write_time(f.trace, touched);
  const auto [t, warnings] = f.read();
  CHECK(t.use == TraceCacheUse::Built);
  check_same_workload(t.workload, f.uncached());
  CHECK(t.workload.requests[1].gpu_num == 16);
}

TEST_CASE("A trace with an error is not cached, and fails the same way every time", "[trace-cache]") {
  Fixture f("trace-cache-error", kTrace);
  f.options.lenient = false;
  const std::string expected = error_of([&] { f.uncached(); });
  CHECK(expected.find("t.csv:8: gpu_num: expected a whole number") != std::string::npos);
  CHECK(error_of([&] { f.read(); }) == expected);
  CHECK(error_of([&] { f.read(); }) == expected);
  CHECK_FALSE(fs::exists(f.dir / "cache"));
}

TEST_CASE("An unwritable cache folder reads the trace uncached and never fails the read", "[trace-cache]") {
  Fixture f("trace-cache-unwritable");
  f.cache.dir = (fs::path(f.trace) / "cache").string();  // under a file: cannot be made
  LogCapture log(spdlog::level::debug);
  for (int i = 0; i < 2; ++i) {
    const CachedTrace t = read_acme_trace_cached(f.trace, f.options, f.cache);
    CHECK(t.use == TraceCacheUse::Uncached);
    check_same_workload(t.workload, f.uncached());
  }
  std::size_t said = 0;  // at most once a process: an earlier test may have said it already
  for (std::size_t at = 0; (at = log.text().find("trace cache: cannot write", at)) != std::string::npos; ++at) ++said;
  CHECK(said <= 1);
}

TEST_CASE("Readers building one entry at once all get the workload, and the entry is whole", "[trace-cache]") {
  Fixture f("trace-cache-race");
  const Workload expected = f.uncached();
  std::vector<CachedTrace> got(4);
  {
    LogCapture quiet(spdlog::level::debug);
    std::vector<std::thread> readers;
    for (CachedTrace& t : got) readers.emplace_back([&] { t = read_acme_trace_cached(f.trace, f.options, f.cache); });
    for (std::thread& r : readers) r.join();
  }
  for (const CachedTrace& t : got) {
    CHECK(t.use != TraceCacheUse::Uncached);
    check_same_workload(t.workload, expected);
  }
  CHECK(f.read().first.use == TraceCacheUse::Hit);
  for (const auto& e : fs::directory_iterator(f.dir / "cache"))  // no temporary file left
    CHECK(e.path().extension() == ".acmecache");
}

TEST_CASE("Past cache.max_mb the least recently used entries are removed, never the one just written",
          "[trace-cache]") {
  Fixture f("trace-cache-trim");
  auto window = [&](const char* from, const char* to) {
    f.options.from = parse_timestamp(from);
    f.options.to = parse_timestamp(to);
    return f.read().first;
  };
  // Three entries (one a window), each marked used a minute after the one before.
  const auto minute = std::chrono::minutes(1);
  const auto t0 = fs::file_time_type::clock::now() - 10 * minute;
  const CachedTrace a = window("2023-02-28", "2023-03-02");
  const CachedTrace b = window("2023-02-28", "2023-03-03");
  const CachedTrace c = window("2023-02-28", "2023-03-04");
  REQUIRE((a.use == TraceCacheUse::Built && b.use == TraceCacheUse::Built && c.use == TraceCacheUse::Built));
  fs::last_write_time(a.entry, t0);
  fs::last_write_time(b.entry, t0 + minute);
  fs::last_write_time(c.entry, t0 + 2 * minute);
  // Reading a marks it used: b is now the least recently used.
  CHECK(window("2023-02-28", "2023-03-02").use == TraceCacheUse::Hit);
  // Room for three entries of this size but not four: the fourth removes b alone.
  const double bytes = static_cast<double>(fs::file_size(c.entry));
  f.cache.max_mb = 3.5 * bytes / 1e6;
  const CachedTrace d = window("2023-02-28", "2023-03-05");
  CHECK(d.use == TraceCacheUse::Built);
  CHECK(fs::exists(a.entry));
  CHECK_FALSE(fs::exists(b.entry));
  CHECK(fs::exists(c.entry));
  CHECK(fs::exists(d.entry));
  // A limit below one entry keeps only the entry just written.
  f.cache.max_mb = 1e-6;
  const CachedTrace e = window("2023-02-28", "2023-03-06");
  CHECK(std::distance(fs::directory_iterator(f.dir / "cache"), fs::directory_iterator()) == 1);
  CHECK(fs::exists(e.entry));
}

TEST_CASE("cache.* keys set the cache, and an unknown one is an error", "[trace-cache][config]") {
  const std::vector<std::string> base = {"cluster=" + (source_dir() / "configs/clusters/seren.yaml").string(),
                                         "workload.trace=" + (source_dir() / "tests/golden/six_jobs.csv").string()};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return load_run_config("", more);
  };
  const TraceCacheSettings defaults = trace_cache_settings(with({}));
  CHECK(defaults.enabled);
  CHECK(defaults.dir.empty());
  const TraceCacheSettings set = trace_cache_settings(with({"cache.enabled=false", "cache.dir=/tmp/x"}));
  CHECK_FALSE(set.enabled);
  CHECK(set.dir == "/tmp/x");
  CHECK(error_of([&] { trace_cache_settings(with({"cache.size=1"})); }).find("cache.size") != std::string::npos);
}

}  // namespace acme::test

namespace acme::test {

// An SWF log read with workload.feedback: jobs that wait for their preceding job, with think
// times (Workload::after, think_s), kept by the cache; an entry of its own beside the read
// without feedback, whose jobs wait for none.
TEST_CASE("A cached read of an SWF log with feedback keeps each job's preceding job and think time", "[trace-cache]") {
  std::string log = "; UnixStartTime: 1677628800\n";
  for (int j = 1; j <= 3000; ++j)  // every third job waits for the one before, 0 to 99 s after it ends
    log += std::to_string(j) + " " + std::to_string(j * 10) + " 0 50 4 -1 -1 4 100 -1 1 " + std::to_string(j % 7) +
           " 1 -1 1 -1 " + (j % 3 == 0 ? std::to_string(j - 1) + " " + std::to_string(j % 100) : std::string("-1 -1")) +
           "\n";
  Fixture f("trace-cache-feedback", log);
  f.trace = (f.dir / "t.swf").string();
  std::ofstream(f.trace, std::ios::binary) << log;
  f.options.feedback = true;
  const Workload uncached = f.uncached();
  REQUIRE(uncached.size() == 3000);
  CHECK(uncached.waits(2));
  CHECK(uncached.after[2] == 1);
  CHECK(uncached.think_time(2) == Time::seconds(3));
  CHECK_FALSE(uncached.waits(3));
  const auto [cold, cold_warnings] = f.read();
  const auto [warm, warm_warnings] = f.read();
  CHECK(cold.use == TraceCacheUse::Built);
  CHECK(warm.use == TraceCacheUse::Hit);
  check_same_workload(cold.workload, uncached);
  check_same_workload(warm.workload, uncached);
  f.options.feedback = false;
  const auto [open_loop, open_warnings] = f.read();
  CHECK(open_loop.use == TraceCacheUse::Built);  // another entry
  CHECK(open_loop.workload.after.empty());
  check_same_workload(open_loop.workload, f.uncached());
}

}  // namespace acme::test
