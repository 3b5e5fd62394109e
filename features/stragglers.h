// Slow nodes, GPUs and links (stragglers), a model feature (sim/feature.h) in one module: a node
// (or a GPU, or a link) that runs slower for an episode, and a synchronous job that runs at the pace of its slowest member. Its
// keys are stragglers.* (read_straggler_model); off unless stragglers.enabled, never in a recorded
// replay (recorded run times already include the slowness the jobs met). Hooks: kPaced (a run's
// pace at its start and at each change; the core retimes it: its end moves, the work done is
// kept). Waste cause `straggler`; per job, the compute seconds lost to slowness (jobs.csv's
// `straggler_s` when on).
//
// The model, per node (defaults from ../shared/data/training_at_scale.md):
//  - `prevalence` (0.005): the long-run share of nodes slow at any time (MegaScale §5.1, "about
//    0.5%" of machines substantially slower).
//  - `slowdown` (0.10): a slow node computes 1 + slowdown times slower (MegaScale §6.3, about 10%
//    longer forward pass).
//  - `slowed_share` (1): the share of a step's work the slowness stretches: all of it (a machine
//    slow at everything), or a part (MegaScale's hosts: their forward pass, about a third of a
//    step; configs/stragglers/megascale.yaml). A run then goes 1 + slowed_share x slowdown times
//    slower while a member is slow.
//  - an episode lasts a log-uniform time between `min_episode_s` (30) and `max_episode_s` (36,000):
//    FALCON's "tens of seconds to nearly 10 hours"; the log-uniform shape is an ASSUMPTION.
//  - episodes start as a Poisson process of rate lambda = -ln(1 - prevalence) / E[duration] and may
//    overlap (an M/G/inf process): the number in progress is Poisson with mean lambda E[duration]
//    (Little's law), so a node is slow (one or more in progress) a share 1 - exp(-lambda E[d]) =
//    prevalence of the time, exactly. A run finds each of its nodes in that steady state at its
//    start: episodes in progress Poisson, each with the residual of a length-biased duration
//    (for a log-uniform duration, length-biased is uniform between the bounds; the residual a
//    uniform share of it).
//  - a run on n nodes sees the union of its nodes' episodes (episodes at rate n lambda); it runs
//    at 1 / (1 + slowed_share x slowdown) of its rate whenever at least one of its nodes is slow (a
//    synchronous job waits for its slowest member each step), else at full rate. The factor
//    multiplies the network model's slowdown and the power cap's clock.
//  - it applies to GPU jobs of at least `min_nodes` nodes (default 1: a slow machine slows any job
//    on it); CPU-only jobs are never slowed.
//
// Each run's episodes are drawn from its own generator keyed by (seed, the job's identity
// job_key, run number), never its row or the physical nodes it got: the same job meets the same
// episodes under every policy, row order and thread count. Hence two jobs on one node do not
// share its episodes, and a node does not stay slow from one job to the next (each run draws its
// nodes' state afresh from the steady state): a simplification the identity keying requires.
//
// Mitigation (`mitigation`): `tolerate` (default: every episode runs its course) or `evict`. With
// evict, a run slow for `detect_s` (600: MegaScale §6.3, detection and diagnosis under 10 min)
// without a break is stopped through its Pace (Feature::Stop): the core stops it as a failure that
// takes no node down (it keeps the compute its last safe checkpoint covers; the rest is wasted as
// `straggler`, the training ledger's `lost`; no recovery delay: detect_s was it) and its next run
// pays the restart phases. Every node slow at that instant is out (the stream keeps its episodes'
// ends: one node per episode in progress): the job's later runs draw no episode in progress at
// their start (the nodes it gets are not slow then; new episodes start on them at the usual rate),
// an ASSUMPTION for the nodes the scheduler gives it (MegaScale screens nodes before a restart).
// With `spares` (0) free for every node out, they take their place: the job keeps its placement
// and runs again at once (Stop::Replace), each spare back in the pool when the episode of the node
// it replaced ends (a node healthy again is a spare); too few free, none is used: the job gives
// back its nodes and is queued (Stop::Evict). The pool is shared by all jobs, in event order.
// jobs.csv's `evictions` counts each job's. Only jobs that save checkpoints are evicted (one that
// saves none would start over: it tolerates, as without failures.enabled), and a job whose stops
// (evictions and failures) kept no progress kMaxFailures (100) times in a row is no longer
// evicted (sim/failures.h), so that it still ends. Not modelled: evicting only some of the slow nodes, a
// detection that misses, the slow node kept out of other jobs' draws.
//
// With these defaults a 1,250-node job is slow 99.8% of the time and loses 9.1% of its GPU-time:
// a machine slow at everything it does. MegaScale's eviction of its slow hosts gave back about
// 0.7% of MFU; its hosts were slow in their forward pass, which the preset reads as slowed_share
// 1/3 (experiments/training_at_scale/ compares the two).
//
// What is slow (`component`): `node` (the above), `gpu` (prevalence per GPU: a run sees the union
// of its GPUs' episodes, and a slow GPU slows its synchronous job as a slow node does; evicted,
// the node holding it goes) or `link` (prevalence per NIC link: only multi-node jobs, whose
// traffic crosses them; a slow link carries 1 / (1 + slowdown) of its bandwidth, which the network
// model turns into 1 + comm_share x slowdown for the job: network.comm_share of its type; evicted,
// the node behind it goes). One component kind per run of the model.
//
// Left out: no slowdown distribution (every episode the same `slowdown`); no correlation between
// components (a slow switch slowing its leaf); a slow link is not a lower capacity in the
// contention model's link sharing (it slows only the jobs whose own NIC link it is); eviction only
// as above.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "io/params.h"
#include "sim/feature.h"
#include "sim/random.h"

namespace acme {

// What is slow for an episode: a node, one GPU, or one network link (a NIC's link).
enum class SlowComponent : std::uint8_t { Node, Gpu, Link };

struct StragglerModel {
  bool enabled = false;
  SlowComponent component = SlowComponent::Node;
  double prevalence = 0.005;     // long-run share of components slow, in [0, 1)
  double slowdown = 0.10;        // a slow node or GPU computes, a slow link carries, 1 + slowdown times slower
  double slowed_share = 1.0;     // the share of a step's work a slow member does slower (1: all of it)
  double min_episode_s = 30;     // episode durations, log-uniform between these
  double max_episode_s = 36000;
  int min_nodes = 1;             // GPU jobs of at least this many nodes are slowed
  std::uint64_t seed = 1;
  bool evict = false;            // mitigation: evict (true) or tolerate
  double detect_s = 600;         // evict: slow this long without a break, the run's slow nodes are evicted
  int spares = 0;                // evict: spare nodes that replace evicted ones at once

  int nics_per_node = 1;         // link: a node's links to the network (the cluster's)
  // link: the share of each job type's time spent communicating (network.comm_share), which a
  // slow link stretches.
  std::array<double, kJobTypeCount> comm_share{};

  bool on() const { return enabled && prevalence > 0 && slowdown > 0; }
  // The run's components that may be slow: its nodes, its GPUs, or a multi-node job's NIC links.
  int members(const JobRequest& r) const {
    if (component == SlowComponent::Gpu) return r.gpu_num;
    if (component == SlowComponent::Link) return r.node_num > 1 ? r.node_num * nics_per_node : 0;
    return r.node_num;
  }
  bool applies(const JobRequest& r) const {
    return r.gpu_num > 0 && std::max<int>(r.node_num, 1) >= min_nodes && members(r) > 0;
  }
  double mean_episode_s() const;
  // Episodes a node starts per second.
  double rate() const;
  // How much slower a job of type `t` runs while one of its members is slow: a synchronous job
  // waits for its slowest GPU or node each step, whose work the slowness stretches by slowdown for
  // the share slowed_share of it (1 + slowed_share x slowdown); a link carrying 1 / (1 + slowdown)
  // of its bandwidth starves the job's traffic by 1 + slowdown, which by the network model's rule
  // (sim/network.h) stretches its communication: 1 + slowed_share x comm_share x slowdown.
  double factor(JobType t) const {
    const double share = component == SlowComponent::Link ? comm_share[static_cast<std::size_t>(t)] : 1.0;
    return 1.0 + slowed_share * share * slowdown;
  }
};

// What every run's draws use, computed once: a node's episodes in progress on average
// (-ln(1 - prevalence)), the mean gap between its episodes' starts, and for runs of up to
// kNodesHeld nodes the chance that none of theirs is in progress at a run's start.
struct StragglerRates {
  static constexpr int kNodesHeld = 64;
  explicit StragglerRates(const StragglerModel& m);
  double in_progress;  // per node
  double node_gap_s;   // 1 / lambda
  double none[kNodesHeld + 1];
  double none_of(int nodes) const { return nodes <= kNodesHeld ? none[nodes] : std::exp(-in_progress * nodes); }
};

// The episodes of one run on `nodes` nodes, drawn by (seed, job_key, start), as seconds since the
// run's placement. Not slow past `slow_until`; the next episode starts at `next_start`.
class StragglerStream {
 public:
  // `clean`: none of its nodes slow at its start (a run after an eviction), else the steady state.
  StragglerStream(const StragglerModel& m, const StragglerRates& rates, std::uint64_t job_key, std::uint32_t start,
                  int nodes, bool clean = false);
  StragglerStream(const StragglerModel& m, std::uint64_t job_key, std::uint32_t start, int nodes, bool clean = false)
      : StragglerStream(m, StragglerRates(m), job_key, start, nodes, clean) {}
  // Takes in the episodes started by `t` (seconds since the run's placement; not decreasing).
  void advance(double t);
  // After advance(t): whether the run is slow at t, and when that changes next (> t).
  bool slow(double t) const { return t < slow_until_; }
  double next_change(double t) const { return slow(t) ? slow_until_ : next_start_; }
  // While slow: when its current slow stretch (episodes without a break) began, 0 if at its start.
  double slow_from() const { return slow_from_; }
  // With m.evict: the ends of the episodes in progress at t (its slow nodes: one per episode).
  std::vector<double> in_progress(double t) const;

 private:
  double duration();
  // Takes in the episodes that start while the run is slow, up to `limit` seconds since its
  // placement: they only make it slow for longer. Bounded, so that a run whose components are so
  // many that it is never without a slow one (10,000 GPUs) takes them in as it goes, never all at
  // once; its next change may then be one where it stays slow (the core finds its pace unchanged).
  void absorb(double limit);
  const StragglerModel* m_;
  Rng rng_;
  double gap_mean_;          // mean seconds between its episodes' starts
  double slow_until_ = 0;    // end of the episodes taken in
  double next_start_;        // start of the next episode
  double slow_from_ = 0;     // start of the slow stretch that ends at slow_until_
  std::vector<double> ends_;  // with m.evict: the ends of the episodes taken in
  void took(double end) {
    if (m_->evict) ends_.push_back(end);
  }
};

// Reads stragglers.enabled, stragglers.prevalence, stragglers.slowdown, the episode bounds,
// stragglers.min_nodes, stragglers.seed, stragglers.mitigation, detect_s and spares, with defaults.
StragglerModel read_straggler_model(Params& params);

// The feature of `model` (on()).
std::unique_ptr<Feature> straggler_feature(const StragglerModel& model);

}  // namespace acme
