#include "features/stragglers.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "io/feature_registry.h"
#include "io/sinks.h"

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
                                 std::uint32_t start, int nodes, bool clean)
    : m_(&m), rng_(mix64(mix64(m.seed ^ 0x5354524147ULL) ^ job_key) ^ start) {
  nodes = std::max(nodes, 1);
  gap_mean_ = rates.node_gap_s / nodes;
  // Episodes in progress at the start: Poisson with mean n lambda E[d] = -n ln(1 - prevalence).
  const double mean = rates.in_progress * nodes;
  const double none = rates.none_of(nodes);
  if (const double u = rng_.uniform(); u >= none && !clean) {  // at least one: how many, by the Poisson's CDF
    double p = none, cdf = none;
    int k = 0;
    do {
      ++k;
      p *= mean / k;
      cdf += p;
    } while (cdf <= u && k < 100000);
    for (int i = 0; i < k; ++i) {  // each: the residual of a length-biased duration
      const double biased = m.min_episode_s + (m.max_episode_s - m.min_episode_s) * rng_.uniform();
      const double end = biased * rng_.uniform();
      slow_until_ = std::max(slow_until_, end);
      took(end);
    }
  }
  next_start_ = rng_.exponential(gap_mean_);
  absorb(m.max_episode_s);
}

double StragglerStream::duration() {
  return m_->min_episode_s * std::pow(m_->max_episode_s / m_->min_episode_s, rng_.uniform());
}

void StragglerStream::absorb(double limit) {
  while (next_start_ < slow_until_ && next_start_ < limit) {
    const double end = next_start_ + duration();
    slow_until_ = std::max(slow_until_, end);
    took(end);
    next_start_ += rng_.exponential(gap_mean_);
  }
}

void StragglerStream::advance(double t) {
  while (next_start_ <= t) {
    if (next_start_ >= slow_until_) slow_from_ = next_start_;  // a new slow stretch
    const double end = next_start_ + duration();
    slow_until_ = std::max(slow_until_, end);
    took(end);
    next_start_ += rng_.exponential(gap_mean_);
    absorb(t + m_->max_episode_s);
  }
  if (m_->evict) std::erase_if(ends_, [t](double end) { return end <= t; });
}

std::vector<double> StragglerStream::in_progress(double t) const {
  std::vector<double> out;
  for (double end : ends_)
    if (end > t) out.push_back(end);
  return out;
}

StragglerModel read_straggler_model(Params& params) {
  StragglerModel m;
  m.enabled = params.flag("enabled", false, "slow nodes: a run goes 1 + slowed_share x slowdown times slower while one of its nodes is slow");
  const std::string component = params.choice("component", "node", {"node", "gpu", "link"},
                                              "what is slow for an episode: a node, a GPU (prevalence per GPU), or a "
                                              "NIC's link (multi-node jobs; the job slows by 1 + slowed_share x comm_share x slowdown)");
  m.component = component == "gpu" ? SlowComponent::Gpu : component == "link" ? SlowComponent::Link : SlowComponent::Node;
  m.prevalence = params.number("prevalence", 0.005, 0, 0.5,
                               "long-run share of nodes (GPUs, links) slow at any time (MegaScale §5.1: about 0.5% of machines)");
  m.slowdown = params.number("slowdown", 0.10, 0, 10,
                             "a slow node computes 1 + slowdown times slower (MegaScale §6.3: about 10%)");
  m.slowed_share = params.number("slowed_share", 1, 0, 1,
                                 "share of a step's work a slow node or GPU (a link: of the communication) does "
                                 "slower: 1, all of it; MegaScale's hosts, their forward pass, about 1/3");
  m.min_episode_s = params.number("min_episode_s", 30, 1, 1.0e7,
                                  "shortest slow episode, seconds (FALCON: tens of seconds); log-uniform, an assumption");
  m.max_episode_s = params.number("max_episode_s", 36000, m.min_episode_s, 1.0e8,
                                  "longest slow episode, seconds (FALCON: nearly 10 hours)");
  m.min_nodes = static_cast<int>(params.number("min_nodes", 1, 1, 1.0e6, "GPU jobs of at least this many nodes are slowed"));
  m.seed = static_cast<std::uint64_t>(params.number("seed", 1, 0, 9.0e15, "seed of the slow episodes' draws"));
  m.evict = params.choice("mitigation", "tolerate", {"tolerate", "evict"},
                          "tolerate: a run stays slow; evict: slow for detect_s without a break, its slow nodes are "
                          "evicted (the run stops, resumes from its last checkpoint)") == "evict";
  m.detect_s = params.number("detect_s", 600, 1, 1.0e8,
                             "evict: seconds slow before the eviction (MegaScale §6.3: detection and diagnosis under 10 min)");
  m.spares = static_cast<int>(params.number("spares", 0, 0, 1.0e6,
                                            "evict: spare nodes: enough free, they replace the evicted nodes and the "
                                            "job restarts at once; else it waits for the scheduler"));
  return m;
}

namespace {

// Offsets past this are never: a run longer than 30,000 years.
constexpr double kNever = 1.0e12;

Time at(Time started, double offset) { return started + Time::seconds(static_cast<std::int64_t>(std::ceil(offset))); }

// With eviction, a slow run's next change is also when it has been slow for detect_s.
Feature::Pace pace_of(const StragglerModel& m, JobType type, const StragglerStream& s, double t, Time started) {
  double next = s.next_change(t);
  if (m.evict && s.slow(t) && s.slow_from() + m.detect_s > t) next = std::min(next, s.slow_from() + m.detect_s);
  return {s.slow(t) ? m.factor(type) : 1.0, next < kNever ? at(started, next) : Time::max()};
}

// Each job's compute seconds lost to slowness and its evictions, written on the simulation's
// thread as its runs stop (before it ends) and read once it has ended, perhaps on another thread
// (jobs.csv's writer): in chunks that never move, made for the first job of a chunk that lost any.
class LostSeconds {
 public:
  LostSeconds() = default;
  LostSeconds(const LostSeconds&) = delete;
  LostSeconds& operator=(const LostSeconds&) = delete;
  ~LostSeconds() {
    for (auto* chunks : {&lost_, &evictions_})
      for (auto& c : *chunks) delete[] c.load(std::memory_order_relaxed);
  }
  void add(JobId job, double s) { add(lost_, job, s); }
  void evicted(JobId job) { add(evictions_, job, 1.0); }
  double lost_s(JobId job) const { return read(lost_, job); }
  std::uint32_t evictions(JobId job) const { return static_cast<std::uint32_t>(read(evictions_, job)); }

 private:
  static constexpr unsigned kShift = 16;
  static constexpr JobId kMask = (JobId{1} << kShift) - 1;
  static constexpr std::size_t kChunks = (std::size_t{1} << 32) >> kShift;
  using Chunks = std::array<std::atomic<float*>, kChunks>;
  static void add(Chunks& chunks, JobId job, double s) {
    auto& chunk = chunks.at(job >> kShift);
    float* c = chunk.load(std::memory_order_relaxed);
    if (!c) {
      c = new float[std::size_t{1} << kShift]();
      chunk.store(c, std::memory_order_release);
    }
    c[job & kMask] += static_cast<float>(s);
  }
  static double read(const Chunks& chunks, JobId job) {
    const float* c = (job >> kShift) < chunks.size() ? chunks[job >> kShift].load(std::memory_order_acquire) : nullptr;
    return c ? c[job & kMask] : 0.0;
  }
  Chunks lost_{};
  Chunks evictions_{};  // counts (exact in a float up to 2^24)
};

class StragglerFeature final : public Feature {
 public:
  explicit StragglerFeature(const StragglerModel& model) : model_(model), rates_(model_) {}
  unsigned hooks() const override { return kPaced; }
  std::uint32_t waste_causes() const override { return cause_bit(WasteCause::Straggler); }

  Pace run_started(JobId job, std::uint64_t job_key, std::uint32_t start, const JobRequest& r, Time now) override {
    if (!model_.applies(r)) return {};
    // Kept only from its first change on: most runs end before one.
    return pace_of(model_, r.type, StragglerStream(model_, rates_, job_key, start, model_.members(r), clean(job)), 0.0, now);
  }
  Pace paced(JobId job, std::uint64_t job_key, std::uint32_t start, Time started, Time now, bool may_stop) override {
    auto it = runs_.find(job);
    if (it == runs_.end() || it->second.start != start) {
      const StragglerStream stream(model_, rates_, job_key, start, model_.members(request(job)), clean(job));
      it = runs_.insert_or_assign(job, Running{stream, start}).first;
      if (job >= kept_.size()) kept_.resize(std::max<std::size_t>(job + 1, kept_.size() * 2));
      kept_[job] = true;
    }
    const auto t = static_cast<double>((now - started).sec());
    StragglerStream& stream = it->second.stream;
    stream.advance(t);
    if (may_stop && model_.evict && stream.slow(t) && t >= stream.slow_from() + model_.detect_s)
      return evict(job, stream, t, started, now);
    return pace_of(model_, request(job).type, stream, t, started);
  }
  void run_stopped(JobId job, double lost_s) override {
    if (job < kept_.size() && kept_[job]) {
      runs_.erase(job);
      kept_[job] = false;
    }
    if (lost_s > 0) lost_.add(job, lost_s);
  }
  void begin(const FeatureRun& run) override { workload_ = &run.workload; }
  std::span<const FeatureColumn> columns(FeatureOutput output) const override;
  bool evicts() const override { return model_.evict; }
  const LostSeconds& lost() const { return lost_; }

 private:
  const JobRequest& request(JobId job) const { return workload_->requests[job]; }
  // Its runs after its first eviction start on nodes none of which is slow.
  bool clean(JobId job) const { return model_.evict && lost_.evictions(job) > 0; }
  // The run's slow nodes (one per episode in progress) are out: spares take their place if
  // enough are free (each back when its node's episode ends), else the job waits to be placed.
  Pace evict(JobId job, const StragglerStream& stream, double t, Time started, Time now) {
    while (!back_.empty() && back_.top() <= now) {
      ++spares_free_;
      back_.pop();
    }
    lost_.evicted(job);
    const std::vector<double> out = stream.in_progress(t);
    if (out.empty() || static_cast<std::size_t>(spares_free_) < out.size()) return {1.0, Time::max(), Stop::Evict};
    spares_free_ -= static_cast<int>(out.size());
    for (double end : out)
      if (end < kNever) back_.push(at(started, end));
    return {1.0, Time::max(), Stop::Replace};
  }
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
  int spares_free_ = model_.spares;
  std::priority_queue<Time, std::vector<Time>, std::greater<>> back_;  // when spares in use come back
};

const LostSeconds& lost_of(const Feature& f) { return static_cast<const StragglerFeature&>(f).lost(); }

constexpr FeatureColumn kStragglerJobColumns[] = {
    {"straggler_s",
     "compute seconds its runs lost to slow nodes (`features/stragglers.h`): over each slow stretch, its length x "
     "(1 - 1/(1 + `stragglers.slowed_share` x `slowdown`)); after a failure only the part its checkpoint kept",
     kWithStragglers,
     [](const Feature& f, std::int64_t job) { return FeatureCell{lost_of(f).lost_s(static_cast<JobId>(job)), 1}; }},
    {"evictions",
     "runs of the job stopped to evict their slow nodes (`features/stragglers.h`, `stragglers.mitigation: evict`)",
     kWithEviction, [](const Feature& f, std::int64_t job) {
       return FeatureCell{static_cast<double>(lost_of(f).evictions(static_cast<JobId>(job)))};
     }},
};

// straggler_s, and with eviction evictions.
std::span<const FeatureColumn> StragglerFeature::columns(FeatureOutput output) const {
  if (output != FeatureOutput::Job) return {};
  return std::span<const FeatureColumn>(kStragglerJobColumns).first(model_.evict ? 2 : 1);
}

std::unique_ptr<Feature> make_stragglers(Params& params, const FeatureSetup& setup) {
  StragglerModel model = read_straggler_model(params);
  if (setup.cluster) model.nics_per_node = setup.cluster->nics_per_node;
  if (setup.network) model.comm_share = setup.network->comm_share;
  if (!model.on() || setup.replay == ReplayMode::Recorded) return nullptr;
  return straggler_feature(model);
}

const FeatureRegistrar kStragglers({"stragglers",
                                    "Slow nodes (stragglers.*): a run computes slower while one of its nodes is slow",
                                    make_stragglers, 20, {std::span<const FeatureColumn>{}, kStragglerJobColumns}});

}  // namespace

std::unique_ptr<Feature> straggler_feature(const StragglerModel& model) {
  return std::make_unique<StragglerFeature>(model);
}

}  // namespace acme
