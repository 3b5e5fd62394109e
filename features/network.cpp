#include "features/network.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/feature_registry.h"
#include "io/sinks.h"
#include "io/timed_list.h"
#include "sim/error.h"
#include "sim/link_sharing.h"

namespace acme {
namespace {

void fill(std::array<double, kJobTypeCount>& out, const std::array<std::optional<double>, kJobTypeCount>& table) {
  for (std::size_t t = 0; t < kJobTypeCount; ++t) out[t] = table[t].value_or(0.0);
}

// "NAME from SPAN for SPAN; ..." into faults; an error message if it is not that.
std::optional<std::string> parse_faults(const std::string& text, std::vector<NetworkSettings::Fault>& out) {
  std::vector<TimedItem> items;
  if (auto wrong = parse_timed_list(text, items)) return wrong;
  out.clear();
  for (const TimedItem& item : items) {
    if (!item.duration)
      return "'" + item.what + "' has no duration (as in 'spine 2 from 10d for 6h'; units s, m, h, d)";
    out.push_back({item.what, item.from, *item.duration});
  }
  return std::nullopt;
}

// The network's slowdown of each run, and with contention the routes sharing the links.
class NetworkFeature final : public Feature {
 public:
  NetworkFeature(const NetworkSettings& settings, const ClusterSpec& cluster, Time link_interval)
      : model_(cluster, settings), slowdown_(settings.slowdown), contention_(settings.contention) {
    // Made now, so the outputs know from the start that there are link loads; its links at begin.
    if (slowdown_ && contention_) sharing_ = std::make_unique<LinkSharing>(link_interval);
  }
  unsigned hooks() const override {
    if (!slowdown_) return 0;
    return contention_ ? kRouted | kTimed | kStepping | kEnded : kRouted;
  }

  // The links of each of network.faults (InputError for a name the topology lacks).
  void attached(const Topology& topology) override {
    if (!sharing_) return;
    for (const NetworkSettings::Fault& f : model_.settings().faults) {
      std::vector<int> links;
      if (const auto sw = topology.find_switch(f.target)) links = topology.links_of_switch(*sw);
      else if (const auto link = topology.find_link(f.target)) links = {*link};
      else
        throw InputError("network.faults: the topology has no switch or link named '" + f.target +
                         "' (switches are named like 'leaf 0', 'spine 1', 'core 0'; links like 'leaf 0-spine 1')");
      fault_links_.push_back(std::move(links));
    }
  }
  void begin(const FeatureRun& run) override {
    control_ = &run.control;
    workload_ = &run.workload;
    if (!sharing_) return;
    const Topology& topology = control_->topology();
    sharing_->open(topology);
    health_ = topology.healthy();
    link_faults_.assign(static_cast<std::size_t>(topology.link_count()), 0);
    cut_off_.assign(static_cast<std::size_t>(control_->cluster().node_count()), 0);
    const auto& faults = model_.settings().faults;
    // From the start of the workload's window, or else of the run's first event (a fed workload's
    // first release is not known before the run); a fault over before then never happens.
    const Time now = control_->now();
    const Time origin = run.workload.window_from.value_or(now);
    for (std::size_t i = 0; i < faults.size(); ++i) {
      if (origin + faults[i].from + faults[i].duration <= now) continue;
      control_->at(std::max(now, origin + faults[i].from), static_cast<std::uint32_t>(2 * i + 1));
      control_->at(origin + faults[i].from + faults[i].duration, static_cast<std::uint32_t>(2 * i));
    }
  }
  void timed(std::uint32_t id) override { change(id / 2, id % 2 == 1); }
  void stepping(Time now) override { sharing_->advance(now); }
  void ended(Time now) override { sharing_->close(now); }

  void run_joined(JobId job, const JobRequest& request, int leaves_spanned) override {
    if (leaves_.size() <= job) leaves_.resize(std::max<std::size_t>(job + 1, 2 * leaves_.size()), 0);
    leaves_[job] = static_cast<std::int16_t>(leaves_spanned);
    control_->set_network_factor(job, model_.slowdown(request, leaves_spanned), false);
    if (!sharing_ || request.node_num <= 1) return;
    route_of(job);
    sharing_->add(job, route_, model_.need_gbps(request.type), changed_);
    control_->set_network_factor(job, factor(job), false);
    retime_changed();
  }
  void run_left(JobId job) override {
    if (!sharing_ || !sharing_->has(job)) return;
    sharing_->remove(job, changed_);
    retime_changed();
  }
  std::optional<std::size_t> switch_down(int sw) override {
    if (!sharing_) return std::nullopt;
    fault_links_.push_back(control_->topology().links_of_switch(sw));
    change(fault_links_.size() - 1, true);
    return fault_links_.size() - 1;
  }
  void switch_up(std::size_t fault) override { change(fault, false); }

  void check_conservation() const override {
    if (sharing_ && !sharing_->carries_nothing())
      throw std::logic_error("conservation: network links still carry jobs' traffic at the end of the run");
  }
  const LinkSharing* link_loads() const override { return sharing_.get(); }
  std::span<const FeatureColumn> columns(FeatureOutput output) const override;

 private:
  // The slowdown of a running job with contention: by its starvation on its links now.
  double factor(JobId job) const {
    return model_.slowdown_starved(workload_->requests[job], sharing_->starvation(job), leaves_[job]);
  }
  // The route of running `job` over the links up now, into route_.
  void route_of(JobId job) {
    route_nodes_.clear();
    for (const NodeShare& s : control_->placement_of(job)) route_nodes_.push_back(s.node);
    control_->topology().route(route_nodes_, health_, route_);
  }
  // The jobs whose starvation changed run at their new factor from now, in job order.
  void retime_changed() {
    std::vector<JobId> jobs;
    jobs.swap(changed_);
    std::sort(jobs.begin(), jobs.end());
    jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
    for (JobId job : jobs)
      if (sharing_->has(job)) control_->set_network_factor(job, factor(job), true);
    jobs.clear();
    changed_.swap(jobs);  // keeps the capacity
  }
  // Fault `fault` starts (down) or ends: its links flip, nodes left without a path are held down
  // (their jobs stop as on failed nodes) and those with a path again let go; every route moves to
  // what is left, and the runs whose starvation changed are retimed (rounding in the rebuilt sums
  // does not count).
  void change(std::size_t fault, bool down) {
    const Topology& topology = control_->topology();
    std::vector<int> flipped;
    for (int link : fault_links_[fault]) {
      int& holding = link_faults_[static_cast<std::size_t>(link)];
      holding += down ? 1 : -1;
      if (holding == (down ? 1 : 0)) flipped.push_back(link);
    }
    topology.set_down(health_, flipped, down);
    std::vector<std::uint8_t> cut(cut_off_.size(), 0);
    for (int node : topology.cut_off_nodes(health_)) cut[static_cast<std::size_t>(node)] = 1;
    std::vector<int> newly_cut, reconnected;
    for (std::size_t n = 0; n < cut.size(); ++n) {
      if (cut[n] && !cut_off_[n]) newly_cut.push_back(static_cast<int>(n));
      if (!cut[n] && cut_off_[n]) reconnected.push_back(static_cast<int>(n));
    }
    cut_off_ = std::move(cut);
    if (!reconnected.empty()) control_->release(reconnected);
    if (!newly_cut.empty()) control_->hold(newly_cut, FeatureControl::Vacate::Fail);
    const std::vector<JobId> moved = sharing_->jobs();
    std::vector<double> before;
    for (JobId job : moved) before.push_back(sharing_->starvation(job));
    for (JobId job : moved) sharing_->remove(job, changed_);
    for (JobId job : moved) {
      route_of(job);
      sharing_->add(job, route_, model_.need_gbps(workload_->requests[job].type), changed_);
    }
    changed_.clear();
    for (std::size_t i = 0; i < moved.size(); ++i) {
      control_->set_network_factor(moved[i], factor(moved[i]), false);  // its rate from now, read at its next change
      if (!LinkSharing::same(before[i], sharing_->starvation(moved[i]))) changed_.push_back(moved[i]);
    }
    retime_changed();
  }

  NetworkModel model_;
  const bool slowdown_;  // off: no hook, every run's factor stays 1
  const bool contention_;
  FeatureControl* control_ = nullptr;
  const Workload* workload_ = nullptr;
  std::vector<std::int16_t> leaves_;  // [job]: leaf switches its run spans
  std::unique_ptr<LinkSharing> sharing_;  // with contention
  NetworkHealth health_;
  // [fault]: the links it takes down: network.faults', then leaf switches struck by failures.
  std::vector<std::vector<int>> fault_links_;
  std::vector<int> link_faults_;       // [link]: faults holding it down now
  std::vector<std::uint8_t> cut_off_;  // [node]: no path to the network now (held down)
  std::vector<LinkShare> route_;       // scratch
  std::vector<int> route_nodes_;       // scratch
  std::vector<JobId> changed_;         // jobs whose starvation changed
};

constexpr FeatureColumn kNetworkColumns[] = {
    {"peak_uplink_load",
     "the largest demand / capacity of any leaf uplink during the interval (above 1: jobs asked for more than it "
     "carries)",
     kWithContention,
     [](const Feature& f, std::int64_t time_s) { return FeatureCell{f.link_loads()->peak_uplink_load(time_s), 3}; }},
};

std::span<const FeatureColumn> NetworkFeature::columns(FeatureOutput output) const {
  if (output != FeatureOutput::Interval || !sharing_) return {};
  return kNetworkColumns;
}

std::unique_ptr<Feature> make_network(Params& params, const FeatureSetup& setup) {
  const NetworkSettings s = read_network_settings(params, setup.replay == ReplayMode::Policy);
  return network_feature(s, setup.cluster ? *setup.cluster : ClusterSpec{}, setup.interval);
}

// First of the features: its keys are listed where they always were, after estimate.*.
const FeatureRegistrar kNetwork({"network", "Network model (network.*): how placement slows multi-node jobs",
                                 make_network, 3, {kNetworkColumns}});

}  // namespace

NetworkSettings read_network_settings(Params& params, bool slowdown) {
  NetworkSettings s;
  s.slowdown = params.flag("slowdown", slowdown,
                           "multi-node jobs slow down by placement (default: on, off in replay: recorded, whose run "
                           "times include the network)");
  fill(s.comm_share,
       params.type_table("comm_share",
                         {{"Pretrain", 0.4}, {"MLLM", 0.3}, {"SFT", 0.2}, {"Debug", 0.2}, {"Other", 0.2}, {"Eval", 0}, {"CPU", 0}},
                         0, 1, "share of a multi-node job's time spent communicating, by job type"));
  fill(s.need_gbps,
       params.type_table("need_gbps",
                         {{"Pretrain", 200}, {"MLLM", 200}, {"SFT", 200}, {"Debug", 200}, {"Other", 200}, {"Eval", 200},
                          {"CPU", 200}},
                         0, 1e6, "per-node bandwidth at which the recorded run time holds, Gb/s"));
  s.leaf_penalty = params.number("leaf_penalty", 0.05, 0, 100,
                                 "extra communication time per additional leaf switch spanned (0.05: 5%)");
  s.contention = params.flag("contention", false,
                             "bandwidth from each job's route over the topology graph, links shared by the jobs "
                             "crossing them (off: the per-node arithmetic)");
  params.text("faults", "",
              "switches or links down for a while, with contention: 'spine 2 from 10d for 6h; leaf 0-spine 1 from "
              "2h for 30m' (times after workload.from, or the first release)",
              [&](const std::string& text) { return parse_faults(text, s.faults); });
  if (s.contention && !s.slowdown)
    throw InputError("network.contention: needs network.slowdown: true (contention changes how much jobs slow down)");
  if (!s.faults.empty() && !s.contention)
    throw InputError("network.faults: needs network.contention: true (the routes that move around a fault)");
  if (!s.contention) {  // listed only when on, so the outputs of a run without it stay as they were
    params.unrecord("contention");
    params.unrecord("faults");
  }
  return s;
}

std::unique_ptr<Feature> network_feature(const NetworkSettings& settings, const ClusterSpec& cluster,
                                         Time link_interval) {
  return std::make_unique<NetworkFeature>(settings, cluster, link_interval);
}

}  // namespace acme
