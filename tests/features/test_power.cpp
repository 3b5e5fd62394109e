// Power and energy (features/power.h): the model and the energy accounting, on one node worked
// out by hand.
#include <catch2/catch.hpp>

#include "features/power.h"
#include "harness.h"
#include "io/sinks.h"

namespace acme::test {
namespace {

PowerSettings power_settings(std::vector<std::string> sets) {
  std::vector<YamlValue> values;
  for (const std::string& s : sets) values.push_back(yaml_override(s));
  Params p("power", values);
  return read_power_settings(p, 1);
}

// One node of 8 GPUs (node_w 100 W, no PSU loss, held GPUs at 90 W, every job running at 300 W)
// and `more` settings.
PowerSettings one_node_power(std::vector<std::string> more) {
  std::vector<std::string> sets = {"power.enabled=true", "power.node_w=100", "power.psu_loss=0", "power.held_w=90"};
  for (int p = 0; p <= 100; p += 10) sets.push_back("power.job_w.p" + std::to_string(p) + "=300");
  sets.insert(sets.end(), more.begin(), more.end());
  return power_settings(sets);
}

// The run's energy: its power feature's meter.
const PowerMeter& meter_of(const Simulation& sim) {
  for (const auto& f : sim.features())
    if (const PowerMeter* m = f->power_meter()) return *m;
  throw std::logic_error("no power feature");
}

// Runs `w` on one node with the power feature of `settings`. REQUIRES: `w` outlives the result.
std::unique_ptr<Simulation> run_one_job(const PowerSettings& settings, const Workload& w) {
  auto sim = std::make_unique<Simulation>(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
  sim->add_feature(power_feature(settings, Time::hours(1)));
  sim->run();
  sim->check_conservation();  // energy included
  return sim;
}

}  // namespace

TEST_CASE("Energy adds up to the integral of cluster power: jobs, idle GPUs and nodes", "[power]") {
  // One node of 8 GPUs (node_w 100 W), one SFT job of 4 GPUs for 1000 s from 0, running power 300 W
  // for every job, no PSU loss:
  //   job   4 x 300 W x 1000 s = 1,200,000 J = 0.3333 kWh
  //   idle  4 x  60 W x 1000 s =   240,000 J = 0.0667 kWh
  //   node      100 W x 1000 s =   100,000 J = 0.0278 kWh   total 0.4278 kWh
  // GPU-time: 4,000 GPU-s at 60 W and 4,000 at 300 W: p25 and p50 60 W, p75 300 W.
  const Workload w = trace_of({{1, 4, 0, 1000}}, "SFT");
  const auto sim = run_one_job(one_node_power({}), w);
  const PowerMeter& m = meter_of(*sim);
  CHECK(m.job_kwh(0) == Approx(1.2e6 / 3.6e6));
  CHECK(m.idle_kwh() == Approx(240000 / 3.6e6));
  CHECK(m.nodes_kwh() == Approx(100000 / 3.6e6));
  CHECK(m.total_kwh() == Approx(1.54e6 / 3.6e6));
  CHECK(m.gpu_power_quantile(0.25) == 60);
  CHECK(m.gpu_power_quantile(0.5) == 60);
  CHECK(m.gpu_power_quantile(0.75) == 300);
  // A PSU that loses 10% asks for 1/0.9 of it all.
  const auto again = run_one_job(one_node_power({"power.psu_loss=0.1"}), w);
  CHECK(meter_of(*again).total_kwh() == Approx(1.54e6 / 3.6e6 / 0.9));
}

TEST_CASE("A power cap throttles running jobs to the clock that keeps the cluster under it", "[power]") {
  // The job above under a 1 kW cap. Uncapped: idle 4 x 60 + node 100 + held 4 x 90 = 700 W that
  // does not scale, and 4 x (300 - 90) = 840 W that scales as clock^3: 1,540 W. Under 1,000 W:
  // clock = cbrt(300 / 840) = 0.70946, so the job runs ceil(1000 / 0.70946) = 1410 s at exactly
  // 1 kW: 1,410,000 J; its nominal energy 4 x 300 x 1410 = 1,692,000 J, saved (1540 - 1000) x 1410.
  // (clock_step 0: the clock that fits exactly.)
  const Workload w = trace_of({{1, 4, 0, 1000}}, "SFT");
  const auto sim = run_one_job(one_node_power({"power.cap_kw=1", "power.clock_step=0"}), w);
  const JobOutcome& o = sim->outcomes()[0];
  CHECK((*o.end - *o.start).sec() == 1410);
  const PowerMeter& m = meter_of(*sim);
  CHECK(m.total_kwh() == Approx(1.41e6 / 3.6e6));
  CHECK(m.job_kwh(0) == Approx(1.692e6 / 3.6e6));
  CHECK(m.saved_kwh() == Approx(540.0 * 1410 / 3.6e6));
  CHECK(m.capped_hours() == Approx(1410 / 3600.0));
  CHECK(m.clock_mean() == Approx(0.70946).epsilon(1e-4));
}

TEST_CASE("A cap keeps clock_step of headroom and raises the clock only with room for two steps", "[power]") {
  // The same job and cap with the default step, 0.02: clock 0.70946 - 0.02 = 0.68946, so the job
  // runs ceil(1000 / 0.68946) = 1451 s at 700 + 840 x 0.68946^3 = 975.3 W.
  const PowerSettings settings = one_node_power({"power.cap_kw=1"});
  const auto sim = run_one_job(settings, trace_of({{1, 4, 0, 1000}}, "SFT"));
  const JobOutcome& o = sim->outcomes()[0];
  CHECK((*o.end - *o.start).sec() == 1451);
  CHECK(meter_of(*sim).total_kwh() == Approx(975.3 * 1451 / 3.6e6).epsilon(1e-4));
  // From that clock, 840 W that scales and a base of: 690 W fits c = cbrt(310 / 840) = 0.7172,
  // short of 0.68946 + 2 x 0.02, so the clock stays; 600 W fits 0.7810: raised to 0.7610; 0 W
  // fits more than 1: back to 1.
  const PowerModel model(settings);
  const double c = model.clock_for(700, 840, 1.0);
  CHECK(c == Approx(0.68946).epsilon(1e-4));
  CHECK(model.clock_for(690, 840, c) == c);
  CHECK(model.clock_for(600, 840, c) == Approx(0.7610).epsilon(1e-3));
  CHECK(model.clock_for(0, 840, c) == 1.0);
}

TEST_CASE("Bad power values are refused with the key named", "[power]") {
  CHECK(error_of([] { power_settings({"power.idle_w=-5"}); }).find("power.idle_w") != std::string::npos);
  CHECK(error_of([] { power_settings({"power.job_w.p50=10"}); }) ==
        "power.job_w.p50: quantiles must not fall (10 W after 84 W)");
  CHECK(error_of([] { power_settings({"power.job_w.p55=300"}); }) ==
        "power.job_w.p55: not a quantile (valid: p0, p10, ..., p100)");
}

TEST_CASE("timeseries.csv's power_kw is the cluster's mean draw over each interval, quiet ones included",
          "[power]") {
  // Two jobs of 4 GPUs, 0-1000 s and 2500-3000 s, on the node above, rows of 600 s. Draw: 1,540 W
  // with a job running (4 x 300 + 4 x 60 + 100), 580 W idle (8 x 60 + 100). Rows:
  //   [0, 600)      1,540 W
  //   [600, 1200)   (400 x 1540 + 200 x 580) / 600 = 1,220 W
  //   [1200, 1800)    580 W   no event inside: the sink writes it at 2500 s, the meter must have
  //   [1800, 2400)    580 W   closed it by then though the power level did not change
  //   [2400, 3000)  (100 x 580 + 500 x 1540) / 600 = 1,380 W
  //   [3000, 3600)      0 W   the run is over at 3000 s (the sink writes the row holding its end)
  const Workload w = trace_of({{1, 4, 0, 1000}, {1, 4, 2500, 500}}, "SFT");
  Simulation sim(w, small_cluster(1), make_policy("fifo"), ReplayMode::Policy);
  sim.add_feature(power_feature(one_node_power({}), Time::seconds(600)));
  const auto dir = temp_dir("power-ts");
  SinkSettings settings{dir, Time::seconds(600), 8, 1, 8};
  settings.features = {sim.features().front().get()};  // its power_kw column
  auto sink = make_sink("timeseries", settings);
  sim.add_sink(*sink);
  sim.run();
  const Conservation c = sim.check_conservation();
  sink->finish(RunRecord{w, small_cluster(1), ReplayMode::Policy, sim.outcomes(), {}, c, sim.window_gpu_seconds()});
  REQUIRE(kGoldenBase.sec() % 600 == 0);
  std::vector<std::string> power_kw;
  for (const std::string& row : lines_of(read_file(dir / "timeseries.csv"))) power_kw.push_back(row.substr(row.rfind(',') + 1));
  CHECK(power_kw == std::vector<std::string>{"power_kw", "1.5", "1.2", "0.6", "0.6", "1.4", "0.0"});
  CHECK(meter_of(sim).total_kwh() == Approx((1540.0 * 1500 + 580.0 * 1500) / 3.6e6));
}

}  // namespace acme::test
