// Jobs fed to a Simulation while it runs (Simulation::set_feed), and the synthetic stream that
// feeds them (workloads/synthetic_stream.h): a fed run must see exactly the facts of a run given
// every job at the start.
#include <catch2/catch.hpp>

#include "harness.h"
#include "app/app.h"
#include "io/config.h"
#include "workloads/synthetic.h"
#include "workloads/synthetic_stream.h"

namespace acme::test {
namespace {

const SyntheticModel& seren() {
  static const SyntheticModel m = shipped_model("seren");
  return m;
}

// A workload's users and window, without its jobs.
Workload empty_like(const Workload& all) {
  Workload w;
  w.users = all.users;
  w.window_from = all.window_from;
  w.window_to = all.window_to;
  return w;
}

// Hands out a workload's jobs `step` at a time.
class Slices final : public JobFeed {
 public:
  Slices(const Workload& all, std::size_t step) : all_(all), step_(step) {}
  bool append_next(Workload& w) override {
    if (next_ == all_.size()) return false;
    for (const std::size_t end = std::min(all_.size(), next_ + step_); next_ < end; ++next_)
      w.add(all_.names[static_cast<std::uint32_t>(next_)], all_.requests[next_], all_.profiles[next_]);
    return true;
  }

 private:
  const Workload& all_;
  std::size_t step_, next_ = 0;
};

// Every fact, one line each.
class FactLog final : public Sink {
 public:
  void on_fact(const Fact& f) override {
    lines.push_back(std::to_string(static_cast<int>(f.kind)) + " " + std::to_string(f.time.sec()) + " " +
                    std::to_string(f.job) + " " + std::to_string(f.request->gpu_num));
  }
  void finish(const RunRecord&) override {}
  std::vector<std::string> lines;
};

struct Replayed {
  std::vector<std::string> facts;
  std::vector<std::string> outcomes;
  std::int64_t gpu_seconds = 0;
};

std::string render(const JobOutcome& o) {
  return std::to_string(o.start ? o.start->sec() : -1) + " " +
         std::to_string(o.end ? o.end->sec() : -1) + " " + std::to_string(o.gpu_seconds) + " " +
         std::to_string(o.wasted_gpu_seconds) + " " + std::to_string(o.preemptions) + " " +
         std::to_string(static_cast<int>(o.state)) + " " + std::to_string(static_cast<int>(o.reject));
}

// Replays `w` (every job there, or with `feed` appending the rest to it) on 16 nodes.
Replayed replay(Workload& w, JobFeed* feed, const std::string& policy, ReplayMode mode) {
  Simulation sim(w, small_cluster(16), make_policy(policy), mode);
  FactLog log;
  sim.add_sink(log);
  if (feed) sim.set_feed(*feed, w);
  sim.run();
  Replayed r;
  r.gpu_seconds = sim.check_conservation().job_gpu_seconds;
  r.facts = std::move(log.lines);
  for (const JobOutcome& o : sim.outcomes()) r.outcomes.push_back(render(o));
  return r;
}

void check_same(const Replayed& fed, const Replayed& whole) {
  REQUIRE(fed.outcomes.size() == whole.outcomes.size());
  REQUIRE(!whole.facts.empty());  // the log sees the facts (a sink gets them unless it says otherwise)
  REQUIRE(fed.facts.size() == whole.facts.size());
  for (std::size_t i = 0; i < fed.facts.size(); ++i) REQUIRE(fed.facts[i] == whole.facts[i]);
  for (std::size_t i = 0; i < fed.outcomes.size(); ++i) REQUIRE(fed.outcomes[i] == whole.outcomes[i]);
  CHECK(fed.gpu_seconds == whole.gpu_seconds);
}

}  // namespace

TEST_CASE("A fed run sees the facts of a run given every job at the start", "[feed]") {
  // Three days of Seren at 1/20 of its rate on 16 nodes: queues, preemptions (priority),
  // rejections. Submit times rounded down to the hour put dozens of jobs on one second, so that
  // slices end inside such a crowd: the jobs of that second still in the feed must be released
  // in the same step as those already given.
  Workload all = generate_workload(seren(), *parse_timestamp("2023-03-01"), *parse_timestamp("2023-03-04"), 1.0 / 20, 5, 8);
  for (std::size_t i = 0; i < all.size(); ++i) {
    all.requests[i].submit = Time::seconds(all.requests[i].submit.sec() / 3600 * 3600);
    all.profiles[i].set_recorded_start(all.requests[i].submit);
  }
  REQUIRE(all.size() > 300);
  for (const PolicyEntry& e : policy_table()) {
    if (make_policy(e.name)->reads_estimates()) continue;
    for (const ReplayMode mode : {ReplayMode::Policy, ReplayMode::Recorded}) {
      Workload copy = all;
      const Replayed whole = replay(copy, nullptr, std::string(e.name), mode);
      for (const std::size_t step : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
        INFO(e.name << ", " << name(mode) << ", slices of " << step);
        Workload fed = empty_like(all);
        Slices slices(all, step);
        check_same(replay(fed, &slices, std::string(e.name), mode), whole);
      }
    }
  }
}

TEST_CASE("A run fed by the synthetic stream replays the generated workload", "[feed][synthetic]") {
  // Five weeks: the stream hands out its jobs in several parts while the run goes.
  const Time from = *parse_timestamp("2023-03-01"), to = *parse_timestamp("2023-04-05");
  Workload whole = generate_workload(seren(), from, to, 1.0 / 20, 2, 8);
  SyntheticStream stream(seren(), from, to, 1.0 / 20, 2, 8);
  Workload fed = stream.start();
  const Replayed expected = replay(whole, nullptr, "fifo", ReplayMode::Policy);
  check_same(replay(fed, &stream, "fifo", ReplayMode::Policy), expected);
  REQUIRE(fed.size() == whole.size());
  for (std::size_t i = 0; i < fed.size(); ++i) REQUIRE(fed.names[static_cast<std::uint32_t>(i)] == whole.names[static_cast<std::uint32_t>(i)]);
}

TEST_CASE("The stream gives its jobs in submit order, each part at or after the watermark before it", "[feed][synthetic]") {
  const Time from = *parse_timestamp("2023-03-01"), to = *parse_timestamp("2023-05-01");
  SyntheticStream stream(seren(), from, to, 0.5, 3, 8);
  Workload w = stream.start();
  CHECK(w.size() == 0);
  CHECK(stream.expected_jobs() > 100000);
  std::size_t parts = 0;
  for (Time mark = from; stream.append_next(w); mark = stream.watermark()) {
    ++parts;
    // Every job given since, and none before, is submitted at or after the last watermark.
    CHECK(stream.watermark() >= mark);
    for (std::size_t i = 1; i < w.size(); ++i) REQUIRE(w.requests[i - 1].submit <= w.requests[i].submit);
  }
  CHECK(parts > 4);
  CHECK(stream.watermark() == to);
  CHECK_FALSE(stream.append_next(w));
  const Workload again = generate_workload(seren(), from, to, 0.5, 3, 8);
  REQUIRE(again.size() == w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    REQUIRE(again.requests[i].submit == w.requests[i].submit);
    REQUIRE(again.profiles[i].run == w.profiles[i].run);
    REQUIRE(again.profiles[i].final_state == w.profiles[i].final_state);
  }
}

TEST_CASE("A stream dropped before its end stops drawing", "[feed][synthetic]") {
  // Six months: the destructor must not wait for the whole window to be drawn, nor leave its
  // thread behind.
  SyntheticStream stream(seren(), *parse_timestamp("2023-03-01"), *parse_timestamp("2023-09-01"), 1.0, 1, 8);
  Workload w = stream.start();
  REQUIRE(stream.append_next(w));
  CHECK(w.size() > 0);
}

TEST_CASE("A run drawing its jobs as it goes writes what a replay of `acmesim gen`'s trace writes", "[feed][synthetic]") {
  // Three weeks of Seren (three hand-outs) with the evaluations output, whose index is made once
  // every job is there: the streamed run, then `gen` and a run of its trace, same window and seed.
  const auto dir = temp_dir("feed-gen");
  const std::string from = "2023-03-01 00:00:00+08:00", to = "2023-03-22 00:00:00+08:00";
  RunArgs run;
  run.config = (source_dir() / "configs/seren.yaml").string();
  // FIFO: the default policy, acme, reads estimates, so its runs draw every job first.
  run.overrides = {"policy.name=fifo", "workload.from=" + from, "workload.to=" + to, "workload.load=0.5", "seed=4",
                   "outputs=jobs,timeseries,evaluations"};
  run.progress = false;
  run.out_dir = (dir / "streamed").string();
  REQUIRE(run_command(run) == 0);
  GenArgs gen;
  gen.from = from;
  gen.to = to;
  gen.seed = 4;
  gen.load = 0.5;
  gen.output = (dir / "trace.csv").string();
  gen.config_file = run.config;  // ctest runs elsewhere
  gen.cluster_file = (source_dir() / "configs/clusters/seren.yaml").string();
  gen.model_file = (source_dir() / "configs/workloads/seren.yaml").string();
  REQUIRE(gen_command(gen) == 0);
  run.overrides = {"policy.name=fifo", "workload.from=" + from, "workload.to=" + to, "workload.trace=" + gen.output,
                   "outputs=jobs,timeseries,evaluations"};
  run.out_dir = (dir / "trace").string();
  REQUIRE(run_command(run) == 0);
  for (const char* f : {"jobs.csv", "timeseries.csv", "evaluations.csv"}) {
    INFO(f);
    const std::string streamed = read_file(dir / "streamed" / f);
    CHECK(lines_of(streamed).size() > 100);
    CHECK(streamed == read_file(dir / "trace" / f));
  }
}

TEST_CASE("A feed must keep to its contract", "[feed]") {
  Workload all = generate_workload(seren(), *parse_timestamp("2023-03-01"), *parse_timestamp("2023-03-03"), 1.0 / 20, 1, 8);
  REQUIRE(all.size() > 10);
  SECTION("it appends to the replayed workload") {
    Workload fed = empty_like(all), other;
    Slices slices(all, 5);
    Simulation sim(fed, small_cluster(16), make_policy("fifo"), ReplayMode::Policy);
    CHECK_THROWS_AS(sim.set_feed(slices, other), std::logic_error);
  }
  SECTION("in release order") {
    std::swap(all.requests[3].submit, all.requests[8].submit);  // job 3 now comes after job 8's time
    Workload fed = empty_like(all);
    Slices slices(all, 5);
    Simulation sim(fed, small_cluster(16), make_policy("fifo"), ReplayMode::Policy);
    CHECK_THROWS_AS((sim.set_feed(slices, fed), sim.run()), std::logic_error);
  }
  SECTION("to a workload without dependencies") {
    Workload fed = empty_like(all);
    fed.add("a", all.requests[0], all.profiles[0]);
    fed.add_after(0, "b", all.requests[1], all.profiles[1]);
    Slices slices(all, 5);
    Simulation sim(fed, small_cluster(16), make_policy("fifo"), ReplayMode::Policy);
    CHECK_THROWS_AS(sim.set_feed(slices, fed), std::logic_error);
  }
}

}  // namespace acme::test
