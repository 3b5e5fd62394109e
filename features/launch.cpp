#include "features/launch.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <initializer_list>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "io/feature_registry.h"
#include "sim/random.h"

namespace acme {

bool LaunchModel::enabled() const {
  return on && (gpu_median_s > 0 || cpu_median_s > 0 ||
                std::any_of(type_median_s.begin(), type_median_s.end(), [](const auto& m) { return m > 0; }));
}

namespace {

// offset + scale x exp(sigma x a normal draw), drawn again while past `limit` (a draw is kept with
// probability at least 1/2 when the median is within the limit; after 64 tries, the last).
double below_limit(Rng& rng, double offset, double scale, double sigma, double limit) {
  double s = offset + scale;
  for (int tries = 0; tries < 64; ++tries) {
    s = offset + scale * std::exp(sigma * rng.normal());
    if (s <= limit) break;
  }
  return s;
}

}  // namespace

// `s` plus a slow prolog if one of the job's nodes has one (see features/launch.h).
double LaunchModel::with_slow_prolog(double s, std::uint64_t job_key, std::uint32_t start, const JobRequest& r) const {
  Rng rng(mix64(mix64(seed ^ 0x534c4f57ULL) ^ job_key) ^ start);
  const double u = rng.uniform();
  const int nodes = std::max(r.node_num, 1);
  // No node slow: u below (1 - share)^nodes, which is at least 1 - nodes x share (Bernoulli's
  // inequality; the margin covers rounding), so most draws need no power.
  if (u < 1.0 - nodes * node_slow_share - 1e-12 || u < std::pow(1.0 - node_slow_share, nodes)) return s;
  return std::min(below_limit(rng, s, slow_median_s, slow_sigma, max_s), max_s);
}

Time LaunchModel::draw(std::uint64_t job_key, std::uint32_t start, const JobRequest& r) const {
  // A GPU job's type's own value where it has one, else the GPU jobs'.
  const auto type = static_cast<std::size_t>(r.type);
  const bool gpu = r.gpu_num > 0;
  const double median = gpu ? type_median_s[type].value_or(gpu_median_s) : cpu_median_s;
  if (median <= 0) return Time{};
  const double floor = std::min(gpu ? type_floor_s[type].value_or(gpu_floor_s) : cpu_floor_s, median);
  double s = median;
  if (sigma > 0 && median > floor) {
    Rng rng(mix64(mix64(seed ^ 0x4c41554e43ULL) ^ job_key) ^ start);
    s = below_limit(rng, floor, median - floor, sigma, max_s);  // max_s >= the median
  }
  if (node_slow_share > 0 && slow_median_s > 0) s = with_slow_prolog(s, job_key, start, r);
  return Time::seconds(std::clamp<std::int64_t>(std::llround(s), 0, std::llround(max_s)));
}

LaunchModel read_launch_model(Params& params) {
  LaunchModel m;
  m.on = params.flag("enabled", true, "false: no launch latency, whatever the medians (an ablation's switch)");
  m.max_s = params.number("max_s", 600, 1, 3600, "no launch latency exceeds this many seconds (drawn again past it)");
  m.gpu_median_s = params.number("gpu_median_s", 0, 0, m.max_s,
                                 "median seconds from placement to start of a GPU job (Slurm prolog, pod start); 0: none");
  m.cpu_median_s = params.number("cpu_median_s", 0, 0, m.max_s, "the same for a CPU-only job; 0: none");
  m.gpu_floor_s = params.number("gpu_floor_s", 0, 0, m.max_s,
                                "least seconds from placement to start of a GPU job (its fixed steps); "
                                "a floor above the median is the median");
  m.cpu_floor_s = params.number("cpu_floor_s", 0, 0, m.max_s, "the same for a CPU-only job");
  m.type_median_s = params.type_table(
      "type_median_s", {}, 0, m.max_s, "a GPU job type's own median seconds from placement to start, in place of gpu_median_s",
      true);
  m.type_floor_s = params.type_table(
      "type_floor_s", {}, 0, m.max_s, "a GPU job type's own least seconds from placement to start, in place of gpu_floor_s",
      true);
  m.sigma = params.number("sigma", 0, 0, 4, "log-normal sigma of the latency above the floor; 0: always the median");
  m.node_slow_share = params.number("node_slow_share", 0, 0, 0.999,
                                    "chance that one node's prolog is slow; a job waits for its slowest node");
  m.slow_median_s = params.number("slow_median_s", 0, 0, m.max_s, "median seconds a slow prolog adds; 0: none");
  m.slow_sigma = params.number("slow_sigma", 0, 0, 4, "log-normal sigma of a slow prolog; 0: always the median");
  m.seed = static_cast<std::uint64_t>(params.number("seed", 1, 0, 9.0e15, "seed of the launch-latency draws"));
  return m;
}

namespace {

// The latencies of the jobs' first starts (LaunchModel::draw with start 0, by Workload::keys),
// drawn ahead in JobId order on a thread of its own, so that the simulation's thread only looks
// them up: the same values. The workload may grow meanwhile (a JobFeed): the thread reads it
// holding `growth` shared, and waits for more() after the jobs there. Holds up to `capacity`
// jobs, 2 bytes each; a later job, or a latency past 65,534 s, is drawn by the caller.
class LaunchAhead {
 public:
  LaunchAhead(const LaunchModel& model, const FeatureRun& run)
      : model_(model), workload_(run.workload), growth_(run.growth), capacity_(run.expected_jobs),
        drawn_(new std::uint16_t[capacity_]) {
    thread_ = std::thread([this] { draw_all(); });
  }
  ~LaunchAhead() {
    {
      const std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  // The latency of the job's first start.
  Time first(JobId job, const JobRequest& r) const {
    if (job < ready_.load(std::memory_order_acquire) && drawn_[job] != kNotHeld) return Time::seconds(drawn_[job]);
    return model_.draw(workload_.keys[job], 0, r);
  }
  // The workload has more jobs (called after they are in, `growth` released).
  void more() {
    {
      const std::lock_guard lock(mu_);
      more_ = true;
    }
    cv_.notify_one();
  }

 private:
  static constexpr std::uint16_t kNotHeld = 0xffff;
  void draw_all() {
    std::size_t ready = 0;
    for (;;) {
      for (bool drawn = true; drawn;) {  // the jobs there now, a batch at a time while the workload cannot grow
        const std::shared_lock lock(growth_);
        const std::size_t end = std::min({capacity_, workload_.size(), ready + 1024});
        drawn = ready < end;
        for (; ready < end; ++ready) {
          const std::int64_t s = model_.draw(workload_.keys[ready], 0, workload_.requests[ready]).sec();
          drawn_[ready] = s < kNotHeld ? static_cast<std::uint16_t>(s) : kNotHeld;
        }
        ready_.store(ready, std::memory_order_release);
      }
      if (ready == capacity_) return;
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || more_; });
      if (stop_) return;
      more_ = false;
    }
  }
  const LaunchModel& model_;
  const Workload& workload_;
  std::shared_mutex& growth_;
  const std::size_t capacity_;
  std::unique_ptr<std::uint16_t[]> drawn_;
  std::atomic<std::size_t> ready_{0};  // jobs [0, ready_) are drawn
  std::mutex mu_;
  std::condition_variable cv_;
  bool more_ = false, stop_ = false;  // under mu_
  std::thread thread_;
};

class LaunchFeature final : public Feature, public FirstLaunchSource {
 public:
  LaunchFeature(const LaunchModel& model, bool draw_ahead) : model_(model), draw_ahead_(draw_ahead) {}
  unsigned hooks() const override { return kPlaced | kJobsAdded; }
  void begin(const FeatureRun& run) override {
    if (draw_ahead_) ahead_ = std::make_unique<LaunchAhead>(model_, run);
    else kept_.reserve(run.expected_jobs);
  }
  Time placed(JobId job, std::uint64_t job_key, std::uint32_t start, const JobRequest& r) override {
    if (start == 0 && ahead_) return ahead_->first(job, r);
    const Time t = model_.draw(job_key, start, r);
    if (start == 0) keep_first(job, t);
    return t;
  }
  void jobs_added() override {
    if (ahead_) ahead_->more();
  }
  const FirstLaunchSource* first_launches() const override { return this; }
  Time first(JobId job, std::uint64_t job_key, const JobRequest& r) const override {
    if (ahead_) return ahead_->first(job, r);
    if (job < kept_.size() && kept_[job] != kNotKept) return Time::seconds(kept_[job]);
    return model_.draw(job_key, 0, r);
  }
  Time most() const override { return Time::seconds(std::llround(model_.max_s)); }

 private:
  static constexpr std::uint16_t kNotKept = 0xffff;
  // On one thread, each job's first latency as drawn when it was placed, for the outputs' first()
  // (2 bytes a job), instead of a draw again for each output that asks.
  void keep_first(JobId job, Time t) {
    if (job >= kept_.size()) kept_.resize(std::max({std::size_t{job} + 1, 2 * kept_.size(), kept_.capacity()}), kNotKept);
    kept_[job] = t.sec() < kNotKept ? static_cast<std::uint16_t>(t.sec()) : kNotKept;
  }

  const LaunchModel model_;
  const bool draw_ahead_;
  std::unique_ptr<LaunchAhead> ahead_;  // its thread reads model_: declared after it, stopped first
  std::vector<std::uint16_t> kept_;     // [job]: without ahead_, its first latency, s; kNotKept: none
};

std::unique_ptr<Feature> make_launch(Params& params, const FeatureSetup& setup) {
  const LaunchModel model = read_launch_model(params);
  // A recorded start already includes the launch.
  if (!model.enabled() || setup.replay == ReplayMode::Recorded) return nullptr;
  return launch_feature(model, setup.threads > 1);
}

const FeatureRegistrar kRegistered(
    {"launch", "Launch latency (launch.*): from placement to start, GPUs held", make_launch, 10});

}  // namespace

std::unique_ptr<Feature> launch_feature(const LaunchModel& model, bool draw_ahead) {
  return std::make_unique<LaunchFeature>(model, draw_ahead);
}

}  // namespace acme
