// Slow nodes (features/stragglers.h): the core's pacing of a run worked out by hand, the model's
// draws (keyed, and the long-run slow share), and a run with the feature on and off.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "features/stragglers.h"
#include "harness.h"
#include "app/app.h"
#include "features/network.h"
#include "sim/network.h"

namespace acme::test {
namespace {

// TEST ONLY: one slow episode [from, to) seconds after each run's placement, at `factor`.
class FixedEpisode final : public Feature {
 public:
  FixedEpisode(std::int64_t from, std::int64_t to, double factor) : from_(from), to_(to), factor_(factor) {}
  unsigned hooks() const override { return kPaced; }
  std::uint32_t waste_causes() const override { return cause_bit(WasteCause::Straggler); }
  Pace run_started(JobId, std::uint64_t, std::uint32_t, const JobRequest&, Time now) override {
    return pace(now, now);
  }
  Pace paced(JobId, std::uint64_t, std::uint32_t, Time started, Time now, bool) override { return pace(started, now); }
  void run_stopped(JobId, double lost_s) override { lost += lost_s; }
  double lost = 0;

 private:
  Pace pace(Time started, Time now) const {
    const std::int64_t t = (now - started).sec();
    if (t < from_) return {1.0, started + Time::seconds(from_)};
    if (t < to_) return {factor_, started + Time::seconds(to_)};
    return {};
  }
  std::int64_t from_, to_;
  double factor_;
};

StragglerModel straggler_model(double prevalence) {
  StragglerModel m;
  m.enabled = true;
  m.prevalence = prevalence;
  return m;
}

}  // namespace

// A 2-node job (16 GPUs) of 1,000 s of work, slow by 10% from 100 s to 300 s after its start:
//  - at 100 s it has done 100 s of work; the rest, 900 s at 1.1, would end at 100 + 990 = 1,090;
//  - at 300 s it has done 100 + 200 / 1.1 = 281.818 s; the rest, 718.18 s at full speed, takes
//    ceil(718.18) = 719 s: it ends at 300 + 719 = 1,019 s (19 s late: 18.18 s lost, rounded up);
//  - its slowness cost 200 x (1 - 1/1.1) = 18.18 compute seconds x 16 GPUs = 290.9 -> 291 GPU-s,
//    wasted as `straggler`; it held 16 x 1,019 GPU-s.
TEST_CASE("Stragglers: a 2-node job slow from 100 s to 300 s ends at 1,019 s and wastes 291 GPU-s", "[stragglers]") {
  const Workload w = trace_of({{2, 16, 0, 1000}}, "Pretrain");
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  auto feature = std::make_unique<FixedEpisode>(100, 300, 1.1);
  FixedEpisode* episode = feature.get();
  sim.add_feature(std::move(feature));
  sim.run();
  const Conservation c = sim.check_conservation();
  const JobOutcome& o = sim.outcomes()[0];
  CHECK(at(o.start) == 0);
  CHECK(at(o.end) == 1019);
  CHECK(o.gpu_seconds == 16 * 1019);
  CHECK(o.wasted_gpu_seconds == 291);
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::Straggler)] == 291);
  CHECK(c.listed(static_cast<std::size_t>(WasteCause::Straggler)));
  CHECK(episode->lost == Approx(200.0 * (1.0 - 1.0 / 1.1)));
  CHECK(o.slowdown == Approx(1019.0 / 1000.0).epsilon(1e-3));  // its mean rate over the run
}

// The same episode under a network slowdown of 1.2 (a 2-node job across leaves): the rates
// multiply. At 1.2 the job's 1,000 s take 1,200 s; at 100 s it has done 100 / 1.2 = 83.33 s of
// work; from 100 to 300 s at 1.2 x 1.1 = 1.32 it does 200 / 1.32 = 151.52 s more; the rest,
// 765.15 s at 1.2, takes ceil(918.18) = 919 s: it ends at 1,219 s. Its slowness cost
// 200 x (1 - 1/1.1) = 18.18 s x 16 GPUs = 291 GPU-s, as without the network.
TEST_CASE("Stragglers: the slowness multiplies the network's slowdown", "[stragglers]") {
  const Workload w = trace_of({{2, 16, 0, 1000}}, "Pretrain");
  ClusterSpec spec = small_cluster(4);
  spec.nodes_per_leaf = 1;  // the job spans two leaves
  // All of a Pretrain job's time communicating, never short of bandwidth, 20% more per extra leaf.
  std::vector<YamlValue> values{yaml_override("network.comm_share.Pretrain=1"), yaml_override("network.leaf_penalty=0.2"),
                                yaml_override("network.need_gbps.Pretrain=0")};
  Params p("network", values);
  Simulation sim(w, spec, make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(network_feature(read_network_settings(p, true), spec, Time::hours(1)));
  sim.add_feature(std::make_unique<FixedEpisode>(100, 300, 1.1));
  sim.run();
  const Conservation c = sim.check_conservation();
  const JobOutcome& o = sim.outcomes()[0];
  CHECK(o.leaves_spanned == 2);
  CHECK(at(o.end) == 1219);
  CHECK(c.wasted_by_cause[static_cast<std::size_t>(WasteCause::Straggler)] == 291);
}

// A run that ends before its episode starts, and one that starts slow, each by hand.
TEST_CASE("Stragglers: a run that ends before its episode is unchanged, one slow from its start ends later",
          "[stragglers]") {
  const Workload w = trace_of({{1, 8, 0, 50}, {1, 8, 0, 1000}}, "Pretrain");
  Simulation sim(w, small_cluster(2), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(std::make_unique<FixedEpisode>(0, 110, 2.0));  // half speed over its first 110 s
  sim.run();
  sim.check_conservation();
  // Job 1: 50 s of work at half speed: 100 s, inside the episode. Its slowness cost 50 s x 8.
  CHECK(at(sim.outcomes()[0].end) == 100);
  CHECK(sim.outcomes()[0].wasted_gpu_seconds == 400);
  // Job 2: 55 s of work by 110 s; the other 945 s at full speed: ends at 1,055 s; lost 55 s x 8.
  CHECK(at(sim.outcomes()[1].end) == 1055);
  CHECK(sim.outcomes()[1].wasted_gpu_seconds == 440);
}

// The real model: a job on a healthy node runs as without the feature; a job whose draws make it
// slow runs longer by what its episodes say.
TEST_CASE("Stragglers: a 1-node job whose node stays healthy is unchanged, the slow ones end later", "[stragglers]") {
  const StragglerModel m = straggler_model(0.05);
  std::vector<std::tuple<int, int, int, int>> jobs;
  for (int i = 0; i < 400; ++i) jobs.push_back({1, 8, i, 2000});
  const Workload w = trace_of(jobs, "Pretrain");
  Simulation sim(w, small_cluster(400), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(straggler_feature(m));
  sim.run();
  sim.check_conservation();
  int healthy = 0, slow = 0;
  for (JobId j = 0; j < w.size(); ++j) {
    StragglerStream s(m, w.keys[j], 0, 1);
    s.advance(0);
    const bool met = s.slow(0) || s.next_change(0) < 2000;
    const std::int64_t run = (*sim.outcomes()[j].end - *sim.outcomes()[j].start).sec();
    if (!met) {
      ++healthy;
      CHECK(run == 2000);
      CHECK(sim.outcomes()[j].wasted_gpu_seconds == 0);
    } else {
      ++slow;
      CHECK(run > 2000);
      CHECK(run <= 2200);  // at most 10% slower
      CHECK(sim.outcomes()[j].wasted_gpu_seconds > 0);
    }
  }
  CHECK(healthy > 300);
  CHECK(slow > 10);
}

// Every draw is keyed by (seed, the job's identity, run number): the same jobs under another
// policy and in the reverse row order meet the same episodes and end at the same times.
TEST_CASE("Stragglers: the same job meets the same episodes under any policy and row order", "[stragglers]") {
  const StragglerModel m = straggler_model(0.2);
  std::vector<std::tuple<int, int, int, int>> jobs;
  for (int i = 0; i < 300; ++i) jobs.push_back({1 + i % 3, 8 * (1 + i % 3), 10 * i, 3000 + 37 * i});
  auto ends = [&](bool reversed, const std::string& policy) {
    auto list = jobs;
    if (reversed) std::reverse(list.begin(), list.end());
    Workload w = trace_of(list, "Pretrain");
    if (reversed) {  // the same names as in the forward trace
      std::vector<std::string> names;
      for (std::size_t i = 0; i < w.size(); ++i) names.push_back("j" + std::to_string(w.size() - i));
      w = read_acme_trace_text([&] {
        std::string text = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
        for (std::size_t i = 0; i < list.size(); ++i) {
          const auto [nodes, gpus, submit, duration] = list[i];
          const Time from = kGoldenBase + Time::seconds(submit);
          text += names[i] + ",u," + std::to_string(nodes) + "," + std::to_string(gpus) + ",0,Pretrain,COMPLETED," +
                  format_timestamp(from) + "," + format_timestamp(from) + "," +
                  format_timestamp(from + Time::seconds(duration)) + "," + std::to_string(duration) + ",0," +
                  std::to_string(gpus * duration) + "\n";
        }
        return text;
      }(), "t.csv", {});
    }
    Simulation sim(w, small_cluster(1000), make_policy(policy), ReplayMode::Policy);
    sim.add_feature(straggler_feature(m));
    sim.run();
    sim.check_conservation();
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;
    for (JobId j = 0; j < w.size(); ++j)
      out[std::string(w.names[j])] = {at(sim.outcomes()[j].end), sim.outcomes()[j].wasted_gpu_seconds};
    return out;
  };
  const auto forward = ends(false, "fifo");
  CHECK(forward == ends(true, "fifo"));
  CHECK(forward == ends(false, "sjf"));
  int slowed = 0;
  for (const auto& [name, e] : forward) slowed += e.second > 0;
  CHECK(slowed > 50);
}

// The steady state: over a million runs on one node, a share `prevalence` start slow (and
// 1 - (1 - p)^8 of 8-node runs); over a million episodes of one node, it is slow that share of
// the time (by Little's law for its overlapping episodes), within 2%.
TEST_CASE("Stragglers: the long-run share of slow nodes is the prevalence", "[stragglers]") {
  const StragglerModel m = straggler_model(0.005);
  int slow1 = 0, slow8 = 0;
  for (std::uint64_t k = 0; k < 1'000'000; ++k) {
    slow1 += StragglerStream(m, k, 0, 1).slow(0);
    slow8 += StragglerStream(m, k, 1, 8).slow(0);
  }
  CHECK(slow1 / 1e6 == Approx(0.005).margin(0.0003));
  CHECK(slow8 / 1e6 == Approx(1 - std::pow(0.995, 8)).margin(0.0008));

  // E[d] = (36000 - 30) / ln(1200) = 5,073.6 s; a node starts lambda = -ln(0.995) / E[d] per
  // second: a million episodes in 1e6 / lambda = 1.01e12 s.
  CHECK(m.mean_episode_s() == Approx(5073.6).epsilon(1e-4));
  const double horizon = 1e6 / m.rate();
  StragglerStream s(m, 42, 0, 1);
  double t = 0, covered = 0;
  while (t < horizon) {
    s.advance(t);
    const double next = std::min(s.next_change(t), horizon);
    if (s.slow(t)) covered += next - t;
    t = next;
  }
  CHECK(covered / horizon == Approx(0.005).epsilon(0.02));
}

// What may be slow: a job's nodes, its GPUs, or a multi-node job's NIC links. A slow GPU or node
// slows a synchronous job by 1 + slowdown; a slow link by 1 + comm_share x slowdown (Pretrain's
// 0.4 by default: 1.04). 10,000 GPUs at 0.5% are never all healthy: the stream takes their
// episodes in as it goes (before, its first draw looked for a break that never comes).
TEST_CASE("Stragglers: slow GPUs and slow links, and a run that is never without a slow one", "[stragglers]") {
  StragglerModel m = straggler_model(0.005);
  m.nics_per_node = 4;
  Params none("network", {});
  m.comm_share = read_network_settings(none, true).comm_share;
  JobRequest r;
  r.type = JobType::Pretrain;
  r.gpu_num = 16;
  r.node_num = 2;
  CHECK(m.members(r) == 2);
  CHECK(m.factor(r.type) == Approx(1.1));
  m.component = SlowComponent::Gpu;
  CHECK(m.members(r) == 16);
  CHECK(m.factor(r.type) == Approx(1.1));
  m.component = SlowComponent::Link;
  CHECK(m.members(r) == 8);
  CHECK(m.factor(r.type) == Approx(1.0 + 0.1 * m.comm_share[static_cast<std::size_t>(JobType::Pretrain)]));
  CHECK(m.factor(r.type) < 1.1);
  // A slow member stretching a third of the step (MegaScale's forward pass): 1 + 0.1 / 3, and of a
  // slow link, a third of the communication.
  m.slowed_share = 1.0 / 3;
  CHECK(m.factor(r.type) == Approx(1.0 + 0.1 * m.comm_share[static_cast<std::size_t>(JobType::Pretrain)] / 3));
  m.component = SlowComponent::Node;
  CHECK(m.factor(r.type) == Approx(1.0 + 0.1 / 3));
  m.component = SlowComponent::Link;
  m.slowed_share = 1;
  r.node_num = 1;
  r.gpu_num = 8;
  CHECK_FALSE(m.applies(r));  // one node talks over NVLink only
  m.component = SlowComponent::Gpu;
  CHECK(m.applies(r));
  // The long-run share holds per GPU: a run of 8 GPUs is slow at its start 1 - 0.995^8 of the time.
  int slow8 = 0;
  for (std::uint64_t k = 0; k < 200'000; ++k) slow8 += StragglerStream(m, k, 0, m.members(r)).slow(0);
  CHECK(slow8 / 2e5 == Approx(1 - std::pow(0.995, 8)).margin(0.002));
  StragglerStream dense(m, 7, 0, 10000);
  double t = 0;
  int changes = 0;
  while (t < 30 * 86400.0) {  // a month: slow throughout, its changes a few per longest episode
    dense.advance(t);
    CHECK(dense.slow(t));
    t = dense.next_change(t);
    ++changes;
  }
  CHECK(changes < 30 * 86400 / 3600);
}

// Off (the default, or enabled: false) a run writes what it wrote before the feature existed; on,
// the `straggler` cause and jobs.csv's `straggler_s` appear and the jobs' lost seconds add up to
// the cause's GPU-time.
TEST_CASE("Stragglers: off changes no output byte, on adds its cause and column", "[stragglers]") {
  const auto dir = temp_dir("stragglers-feature");
  auto run = [&](const std::string& name, std::vector<std::string> settings) {
    RunArgs args;
    args.config = (source_dir() / "configs/kalos.yaml").string();
    args.overrides = {"policy.name=fifo", "workload.from=2023-06-01", "workload.to=2023-06-02",
                      "outputs=jobs,summary,waste,run_json"};
    args.overrides.insert(args.overrides.end(), settings.begin(), settings.end());
    args.out_dir = (dir / name).string();
    args.progress = false;
    REQUIRE(run_command(args) == 0);
  };
  run("default", {});
  run("off", {"stragglers.enabled=false", "stragglers.prevalence=0.2"});
  run("on", {"stragglers.enabled=true", "stragglers.prevalence=0.05"});
  for (const char* f : {"jobs.csv", "wasted_by_cause.csv"}) CHECK(read_file(dir / "default" / f) == read_file(dir / "off" / f));
  CHECK(read_file(dir / "off" / "wasted_by_cause.csv").find("straggler") == std::string::npos);
  CHECK(read_file(dir / "off" / "run.json").find("\"straggler\"") == std::string::npos);
  const std::string waste = read_file(dir / "on" / "wasted_by_cause.csv");
  REQUIRE(waste.find("\nstraggler,") != std::string::npos);
  CHECK(read_file(dir / "on" / "run.json").find("\"straggler\"") != std::string::npos);
  CHECK(read_file(dir / "on" / "summary.csv").find("stragglers.prevalence") != std::string::npos);
  const auto lines = lines_of(read_file(dir / "on" / "jobs.csv"));
  REQUIRE(lines.front().ends_with(",straggler_s"));
  int lost = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) lost += lines[i].substr(lines[i].rfind(',') + 1) != "0.0";
  CHECK(lost > 0);
  const double gpu_hours = std::stod(waste.substr(waste.find("\nstraggler,") + 11));
  CHECK(gpu_hours > 0);
}

}  // namespace acme::test
