#include "sim/link_sharing.h"

#include <algorithm>
#include <cmath>

namespace acme {
namespace {

// The tiers that carry job traffic, as indexes of the per-tier arrays.
std::size_t tier_index(LinkTier t) {
  switch (t) {
    case LinkTier::Nic: return 0;
    case LinkTier::LeafUplink: return 1;
    case LinkTier::PodUplink: return 2;
    default: return 3;
  }
}
constexpr LinkTier kTierOf[] = {LinkTier::Nic, LinkTier::LeafUplink, LinkTier::PodUplink};

}  // namespace

bool LinkSharing::same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

LinkSharing::LinkSharing(const Topology& topology, Time interval) : LinkSharing(interval) { open(topology); }

void LinkSharing::open(const Topology& topology) {
  capacity_.assign(static_cast<std::size_t>(topology.link_count()), 0.0);
  demand_.assign(capacity_.size(), 0.0);
  tier_.assign(capacity_.size(), 0);
  jobs_on_.assign(capacity_.size(), {});
  for (int l = 0; l < topology.link_count(); ++l) {
    capacity_[static_cast<std::size_t>(l)] = topology.link_gbps(l);
    const std::size_t t = tier_index(topology.link_tier(l));
    tier_[static_cast<std::size_t>(l)] = static_cast<std::uint8_t>(t);
    if (t < kTiers) {
      ++tier_links_[t];
      tracked_.push_back(l);
    }
  }
}

double LinkSharing::compute_starvation(const Flow& f) const {
  double most = 1.0;
  for (const LinkShare& s : f.route) most = std::max(most, load(s.link));
  return most;
}

double LinkSharing::starvation(JobId job) const {
  const auto it = flows_.find(job);
  return it == flows_.end() ? 1.0 : it->second.starvation;
}

bool LinkSharing::carries_nothing() const {
  return flows_.empty() && std::all_of(demand_.begin(), demand_.end(), [](double d) { return d == 0.0; });
}

std::vector<JobId> LinkSharing::jobs() const {
  std::vector<JobId> out;
  for (const auto& [job, flow] : flows_) out.push_back(job);
  std::sort(out.begin(), out.end());
  return out;
}

void LinkSharing::change_demand(int link, double delta) {
  const auto l = static_cast<std::size_t>(link);
  const double before = load(link);
  demand_[l] = jobs_on_[l].empty() ? 0.0 : demand_[l] + delta;
  const double after = load(link);
  const std::size_t t = tier_[l];
  if (t >= kTiers) return;
  carried_[t] += std::min(1.0, after) - std::min(1.0, before);
  if (after > peak_[t]) {
    peak_[t] = after;
    busiest_[t] = link;
  }
}

void LinkSharing::recheck(std::span<const LinkShare> route, JobId skip, std::vector<JobId>& changed) {
  std::vector<JobId> near;
  for (const LinkShare& s : route)
    for (JobId other : jobs_on_[static_cast<std::size_t>(s.link)])
      if (other != skip) near.push_back(other);
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  for (JobId other : near) {
    Flow& f = flows_.at(other);
    const double now = compute_starvation(f);
    if (same(now, f.starvation)) continue;
    f.starvation = now;
    changed.push_back(other);
  }
}

void LinkSharing::add(JobId job, std::span<const LinkShare> route, double per_node_gbps, std::vector<JobId>& changed) {
  Flow& f = flows_[job];
  f.route.assign(route.begin(), route.end());
  f.gbps = per_node_gbps;
  for (const LinkShare& s : f.route) {
    jobs_on_[static_cast<std::size_t>(s.link)].push_back(job);
    change_demand(s.link, s.nodes * per_node_gbps);
  }
  f.starvation = compute_starvation(f);
  recheck(f.route, job, changed);
}

void LinkSharing::remove(JobId job, std::vector<JobId>& changed) {
  const auto it = flows_.find(job);
  if (it == flows_.end()) return;
  const Flow f = std::move(it->second);
  flows_.erase(it);
  for (const LinkShare& s : f.route) {
    auto& on = jobs_on_[static_cast<std::size_t>(s.link)];
    on.erase(std::find(on.begin(), on.end(), job));
    change_demand(s.link, -s.nodes * f.gbps);
  }
  recheck(f.route, job, changed);
}

void LinkSharing::open_interval() {
  for (std::size_t t = 0; t < kTiers; ++t) {
    peak_[t] = 0;
    busiest_[t] = -1;
    carried_area_[t] = 0;
  }
  // The loads carried over from the last interval count towards this one's peak.
  for (int l : tracked_) {
    const std::size_t t = tier_[static_cast<std::size_t>(l)];
    if (demand_[static_cast<std::size_t>(l)] <= 0.0) continue;
    if (const double x = load(l); x > peak_[t]) {
      peak_[t] = x;
      busiest_[t] = l;
    }
  }
}

void LinkSharing::close_interval(std::int64_t end) {
  for (std::size_t t = 0; t < kTiers; ++t) {
    carried_area_[t] += carried_[t] * static_cast<double>(end - last_);
    if (tier_links_[t] == 0) continue;
    rows_.push_back({row_start_, kTierOf[t], tier_links_[t],
                     carried_area_[t] / static_cast<double>(interval_) / tier_links_[t], peak_[t], busiest_[t]});
  }
  last_ = end;
}

void LinkSharing::advance(Time now) {
  const std::int64_t t = now.sec();
  if (!started_) {
    started_ = true;
    row_start_ = (t / interval_ - (t % interval_ < 0)) * interval_;
    last_ = row_start_;
    open_interval();
  }
  while (t >= row_start_ + interval_) {
    close_interval(row_start_ + interval_);
    row_start_ += interval_;
    open_interval();
  }
  for (std::size_t k = 0; k < kTiers; ++k) carried_area_[k] += carried_[k] * static_cast<double>(t - last_);
  last_ = t;
}

void LinkSharing::close(Time now) {
  if (!started_) return;
  advance(now);
  close_interval(row_start_ + interval_);
  started_ = false;
}

double LinkSharing::peak_uplink_load(std::int64_t time_s) const {
  for (auto it = std::lower_bound(rows_.begin(), rows_.end(), time_s,
                                  [](const LinkLoadRow& r, std::int64_t t) { return r.time_s < t; });
       it != rows_.end() && it->time_s == time_s; ++it)
    if (it->tier == LinkTier::LeafUplink) return it->peak_load;
  return 0.0;
}

}  // namespace acme
