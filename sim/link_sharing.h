// Jobs sharing network links (network.contention): the load on every link from the routes of the
// running multi-node jobs, and how much each job is starved.
//
// The rule (proportional sharing, simpler than max-min fairness): a link asked for more than it
// carries scales every flow on it by the same factor, capacity / demand. A job runs at the rate
// of its most scaled link, so its starvation is
//
//   starvation = max(1, max over the links of its route of demand(link) / capacity(link))
//
// where a job adds route share x its per-node bandwidth to each link's demand. Bandwidth a job
// cannot use because another link limits it is not handed to the others (max-min would).
// Starting or stopping a job changes the demand of its links only, so only the jobs on those
// links can change; add() and remove() report the ones that did.
//
// It also keeps, per interval and per link tier, the mean load (carried / capacity, over every
// link of the tier and the interval) and the peak (the largest demand / capacity any link of the
// tier had), with the busiest link: the rows of links.csv. Cost: O(links of the job + jobs on
// them) per change; O(links of the three tiers) at each interval boundary.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/job.h"
#include "sim/time.h"
#include "sim/topology.h"

namespace acme {

// One interval's load of one link tier.
struct LinkLoadRow {
  std::int64_t time_s = 0;  // start of the interval
  LinkTier tier = LinkTier::Nic;
  int links = 0;            // links of the tier
  double mean_load = 0;     // carried / capacity, averaged over the tier's links and the interval
  double peak_load = 0;     // largest demand / capacity of any of its links during the interval
  int busiest_link = -1;    // the link of the peak (-1: none carried anything)
};

class LinkSharing {
 public:
  // Rows are kept for intervals of `interval`, from the first advance.
  LinkSharing(const Topology& topology, Time interval);
  // The same, its links taken from a topology by open() before anything else is asked of it.
  explicit LinkSharing(Time interval) : interval_(std::max<std::int64_t>(interval.sec(), 1)) {}
  void open(const Topology& topology);

  // Adds a started job's route, each share carrying `per_node_gbps`. Appends to `changed` every
  // other job whose starvation changed (in no particular order; may repeat).
  void add(JobId job, std::span<const LinkShare> route, double per_node_gbps, std::vector<JobId>& changed);
  // Removes a job's route (nothing if it has none); appends the jobs whose starvation changed.
  void remove(JobId job, std::vector<JobId>& changed);
  bool has(JobId job) const { return flows_.count(job) > 0; }
  // Two starvations equal up to rounding (sums added and taken away in another order differ in
  // the last bits, which must not move a job's end).
  static bool same(double a, double b);
  // The job's starvation, >= 1 (1 for a job without a route).
  double starvation(JobId job) const;
  // demand / capacity of a link now.
  double load(int link) const { return demand_[static_cast<std::size_t>(link)] / capacity_[static_cast<std::size_t>(link)]; }
  // No route left and no demand on any link (the end of a run).
  bool carries_nothing() const;
  // The jobs with a route, ascending.
  std::vector<JobId> jobs() const;

  // Time moves to `now` (before the changes of `now`); closes the rows of intervals that ended.
  void advance(Time now);
  // Closes the interval holding `now` (the run's end). The rows, in time then tier order, for the
  // tiers the network has (nic, leaf_uplink, and pod_uplink with pods).
  void close(Time now);
  const std::vector<LinkLoadRow>& rows() const { return rows_; }
  // The peak leaf-uplink load of the interval starting at `time_s` (0 when it has no row).
  double peak_uplink_load(std::int64_t time_s) const;

 private:
  static constexpr std::size_t kTiers = 3;  // nic, leaf_uplink, pod_uplink
  struct Flow {
    std::vector<LinkShare> route;
    double gbps = 0;
    double starvation = 1;
  };
  double compute_starvation(const Flow& f) const;
  // Changes a link's demand and the tier's running sums; notes its load for the interval's peak.
  void change_demand(int link, double delta);
  void recheck(std::span<const LinkShare> route, JobId skip, std::vector<JobId>& changed);
  void open_interval();
  void close_interval(std::int64_t end);

  std::int64_t interval_;
  std::vector<double> capacity_, demand_;
  std::vector<std::uint8_t> tier_;            // [link]: index into the tier arrays, or kTiers
  std::vector<int> tracked_;                  // the links of the three tiers
  std::vector<std::vector<JobId>> jobs_on_;   // [link]
  std::unordered_map<JobId, Flow> flows_;
  std::array<int, kTiers> tier_links_{};
  std::array<double, kTiers> carried_{};      // sum over the tier of min(1, load)
  std::array<double, kTiers> carried_area_{}; // its integral over the interval, seconds
  std::array<double, kTiers> peak_{};
  std::array<int, kTiers> busiest_{};
  bool started_ = false;
  std::int64_t row_start_ = 0, last_ = 0;
  std::vector<LinkLoadRow> rows_;
};

}  // namespace acme
