#include "features/stragglers.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "io/feature_registry.h"

namespace acme {

double StragglerModel::mean_episode_s() const {
  const double a = min_episode_s, b = max_episode_s;
  return b > a ? (b - a) / std::log(b / a) : a;
}

double StragglerModel::rate() const { return -std::log1p(-prevalence) / mean_episode_s(); }

StragglerRates::StragglerRates(const StragglerModel& m)
    : in_progress(-std::log1p(-m.prevalence)), node_gap_s(1.0 / m.rate()) {
  for (int n = 0; n <= kNodesHeld; ++n) none[n] = std::exp(-in_progress * n);
}

StragglerStream::StragglerStream(const StragglerModel& m, const StragglerRates& rates, std::uint64_t job_key,
                                 std::uint32_t start, int nodes)
    : m_(&m), rng_(mix64(mix64(m.seed ^ 0x5354524147ULL) ^ job_key) ^ start) {
  nodes = std::max(nodes, 1);
  gap_mean_ = rates.node_gap_s / nodes;
  // Episodes in progress at the start: Poisson with mean n lambda E[d] = -n ln(1 - prevalence).
  const double mean = rates.in_progress * nodes;
  const double none = rates.none_of(nodes);
  if (const double u = rng_.uniform(); u >= none) {  // at least one: how many, by the Poisson's CDF
    double p = none, cdf = none;
    int k = 0;
    do {
      ++k;
      p *= mean / k;
      cdf += p;
    } while (cdf <= u && k < 100000);
    for (int i = 0; i < k; ++i) {  // each: the residual of a length-biased duration
      const double biased = m.min_episode_s + (m.max_episode_s - m.min_episode_s) * rng_.uniform();
      slow_until_ = std::max(slow_until_, biased * rng_.uniform());
    }
  }
  next_start_ = rng_.exponential(gap_mean_);
  absorb();
}

double StragglerStream::duration() {
  return m_->min_episode_s * std::pow(m_->max_episode_s / m_->min_episode_s, rng_.uniform());
}

void StragglerStream::absorb() {
  while (next_start_ < slow_until_) {
    slow_until_ = std::max(slow_until_, next_start_ + duration());
    next_start_ += rng_.exponential(gap_mean_);
  }
}

void StragglerStream::advance(double t) {
  while (next_start_ <= t) {
    slow_until_ = std::max(slow_until_, next_start_ + duration());
    next_start_ += rng_.exponential(gap_mean_);
    absorb();
  }
}

StragglerModel read_straggler_model(Params& params) {
  StragglerModel m;
  m.enabled = params.flag("enabled", false, "slow nodes: a run computes 1 + slowdown times slower while one of its nodes is slow");
  m.prevalence = params.number("prevalence", 0.005, 0, 0.5,
                               "long-run share of nodes slow at any time (MegaScale §5.1: about 0.5% of machines)");
  m.slowdown = params.number("slowdown", 0.10, 0, 10,
                             "a slow node computes 1 + slowdown times slower (MegaScale §6.3: about 10%)");
  m.min_episode_s = params.number("min_episode_s", 30, 1, 1.0e7,
                                  "shortest slow episode, seconds (FALCON: tens of seconds); log-uniform, an assumption");
  m.max_episode_s = params.number("max_episode_s", 36000, m.min_episode_s, 1.0e8,
                                  "longest slow episode, seconds (FALCON: nearly 10 hours)");
  m.min_nodes = static_cast<int>(params.number("min_nodes", 1, 1, 1.0e6, "GPU jobs of at least this many nodes are slowed"));
  m.seed = static_cast<std::uint64_t>(params.number("seed", 1, 0, 9.0e15, "seed of the slow episodes' draws"));
  return m;
}

namespace {

// Offsets past this are never: a run longer than 30,000 years.
constexpr double kNever = 1.0e12;

Feature::Pace pace_of(const StragglerModel& m, const StragglerStream& s, double t, Time started) {
  const double next = s.next_change(t);
  return {s.slow(t) ? m.factor() : 1.0,
          next < kNever ? started + Time::seconds(static_cast<std::int64_t>(std::ceil(next))) : Time::max()};
}

// Each job's compute seconds lost to slowness, written on the simulation's thread as its runs
// stop (before it ends) and read once it has ended, perhaps on another thread: in chunks that
// never move, made for the first job of a chunk that lost any.
class LostSeconds final : public JobSlownessSource {
 public:
  ~LostSeconds() {
    for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
  }
  void add(JobId job, double s) {
    auto& chunk = chunks_.at(job >> kShift);
    float* c = chunk.load(std::memory_order_relaxed);
    if (!c) {
      c = new float[std::size_t{1} << kShift]();
      chunk.store(c, std::memory_order_release);
    }
    c[job & kMask] += static_cast<float>(s);
  }
  double lost_s(JobId job) const override {
    const float* c = (job >> kShift) < chunks_.size() ? chunks_[job >> kShift].load(std::memory_order_acquire) : nullptr;
    return c ? c[job & kMask] : 0.0;
  }

 private:
  static constexpr unsigned kShift = 16;
  static constexpr JobId kMask = (JobId{1} << kShift) - 1;
  static constexpr std::size_t kChunks = (std::size_t{1} << 32) >> kShift;
  std::array<std::atomic<float*>, kChunks> chunks_{};
};

class StragglerFeature final : public Feature {
 public:
  explicit StragglerFeature(const StragglerModel& model) : model_(model), rates_(model_) {}
  unsigned hooks() const override { return kPaced; }
  std::uint32_t waste_causes() const override { return cause_bit(WasteCause::Straggler); }

  Pace run_started(JobId, std::uint64_t job_key, std::uint32_t start, const JobRequest& r, Time now) override {
    if (!model_.applies(r)) return {};
    // Kept only from its first change on: most runs end before one.
    return pace_of(model_, StragglerStream(model_, rates_, job_key, start, r.node_num), 0.0, now);
  }
  Pace paced(JobId job, std::uint64_t job_key, std::uint32_t start, Time started, Time now) override {
    auto it = runs_.find(job);
    if (it == runs_.end() || it->second.start != start) {
      it = runs_.insert_or_assign(job, Running{StragglerStream(model_, rates_, job_key, start, nodes_of(job)), start}).first;
      if (job >= kept_.size()) kept_.resize(std::max<std::size_t>(job + 1, kept_.size() * 2));
      kept_[job] = true;
    }
    const auto t = static_cast<double>((now - started).sec());
    it->second.stream.advance(t);
    return pace_of(model_, it->second.stream, t, started);
  }
  void run_stopped(JobId job, double lost_s) override {
    if (job < kept_.size() && kept_[job]) {
      runs_.erase(job);
      kept_[job] = false;
    }
    if (lost_s > 0) lost_.add(job, lost_s);
  }
  const JobSlownessSource* slowness() const override { return &lost_; }
  void begin(const FeatureRun& run) override { workload_ = &run.workload; }

 private:
  int nodes_of(JobId job) const { return workload_->requests[job].node_num; }
  struct Running {
    StragglerStream stream;
    std::uint32_t start;
  };
  const StragglerModel model_;
  const StragglerRates rates_;
  const Workload* workload_ = nullptr;
  std::unordered_map<JobId, Running> runs_;  // runs past their first change
  std::vector<bool> kept_;                   // [job]: in runs_
  LostSeconds lost_;
};

std::unique_ptr<Feature> make_stragglers(Params& params, const FeatureSetup& setup) {
  const StragglerModel model = read_straggler_model(params);
  if (!model.on() || setup.replay == ReplayMode::Recorded) return nullptr;
  return straggler_feature(model);
}

const FeatureRegistrar kStragglers(
    {"stragglers", "Slow nodes (stragglers.*): a run computes slower while one of its nodes is slow", make_stragglers, 20});

}  // namespace

std::unique_ptr<Feature> straggler_feature(const StragglerModel& model) {
  return std::make_unique<StragglerFeature>(model);
}

}  // namespace acme
