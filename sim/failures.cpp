#include "sim/failures.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "sim/error.h"
#include "sim/random.h"
#include "sim/io/yaml_util.h"

namespace acme {
namespace {

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// exposure.gpu_demand: [[GPUs, jobs], ...], the GPU demands of the population the table counts.
std::vector<std::pair<double, double>> gpu_demand(const YamlValue& v) {
  const std::vector<std::pair<double, double>> out = v.as_pairs();
  for (const auto& [gpus, jobs] : out)
    if (!(gpus >= 1 && jobs > 0)) v.fail("expected [GPUs >= 1, jobs > 0] pairs");
  if (out.empty()) v.fail("expected at least one [GPUs, jobs] pair");
  return out;
}

// Fits a per-run reason to the population: chance c x G^beta, beta such that the struck jobs'
// mean GPUs is the table's (the mean grows with beta; bisection), c such that the expected
// count over the population is the table's.
void scale_by_gpus(FailureReason& r, const std::vector<std::pair<double, double>>& population) {
  auto moment = [&](double k) {
    double sum = 0;
    for (const auto& [gpus, jobs] : population) sum += jobs * std::pow(gpus, k);
    return sum;
  };
  double lo = -30, hi = 30;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (moment(mid + 1) / moment(mid) < r.avg_gpus ? lo : hi) = mid;
  }
  r.gpu_exponent = (lo + hi) / 2;
  r.per_run_prob = r.count / moment(r.gpu_exponent) * r.rate_fit;
}

}  // namespace

FailureModel::FailureModel(Params& params, const std::string& default_table) {
  enabled_ = params.flag("enabled", false, "inject failures from the failure table (configs/failures/)");
  seed_ = static_cast<std::uint64_t>(
      params.number("seed", 1, 0, 9.0e15, "seed of the failure generator, apart from the run's seed"));
  std::string table = params.path("table", "the failure model (default configs/failures/acme.yaml)");
  if (table.empty()) table = default_table;
  const std::string recovery = params.choice("recovery", "manual", {"manual", "automatic"},
                                             "detection and diagnosis before a failed job may restart");
  const std::string mode = params.choice("checkpoint_mode", "sync", {"sync", "async"},
                                         "sync saves stall the job save_time_s; async save_time_s / async_speedup");
  hold_gpus_ = params.flag("hold_gpus", true,
                           "a failed job keeps its GPUs (but those of a failed node) while it is detected and diagnosed");
  recorded_failed_complete_ =
      params.choice("recorded_failed", "keep", {"keep", "complete"},
                    "jobs the trace records as failed: keep (end FAILED at the end of the recorded run) or "
                    "complete (every failure of the run is then an injected one)") == "complete";
  const auto types = params.table("checkpoint", {{"Pretrain", 1}}, 0, 1,
                                  "1: jobs of this type checkpoint (failures.checkpoint.<Type>)");
  for (const auto& [name, on] : types) {
    const auto t = parse_job_type(name);
    if (!t) throw InputError("failures.checkpoint." + name + ": unknown job type");
    checkpoints_[static_cast<std::size_t>(*t)] = on > 0;
  }
  double gpus = 0, utilization = 0, days = 0, jobs = 0, repair = 0, interval = 0, save = 0, speedup = 1, restart = 0;
  double checkpoint_gb_per_gpu = 0;
  double detect = 0, diagnose = 0;
  std::vector<std::string> per_run;  // infrastructure reasons drawn per run, not per GPU
  std::vector<std::pair<std::string, std::vector<double>>> fits;  // fit.<reason>: [rate, time]
  std::vector<std::pair<std::string, FailureDomain>> domains;      // takes_down.<reason>
  const std::string prefix = "recovery." + recovery + ".";
  // Off, the table is not read (the keys are still known, so that they can be set and checked).
  for (const YamlValue& v : enabled_ ? read_yaml_file(table) : std::vector<YamlValue>{}) {
    const std::string& k = v.key();
    const auto dot = k.find('.');
    const std::string head = k.substr(0, dot);
    if (head == "infrastructure" || head == "framework" || head == "script") {
      const std::vector<double> row = v.as_numbers();
      if (row.size() != 4) v.fail("expected [count, avg_gpu_demand, avg_time_to_failure_min, gpu_time_share_pct]");
      FailureReason r;
      r.name = k.substr(dot + 1);
      r.category = head == "infrastructure" ? FailureCategory::Infrastructure
                   : head == "framework"    ? FailureCategory::Framework
                                            : FailureCategory::Script;
      r.count = row[0], r.avg_gpus = row[1], r.avg_ttf_min = row[2], r.gpu_time_share_pct = row[3];
      reasons_.push_back(r);
    } else if (k == "exposure.gpus") gpus = v.as_double(1, 1e9);
    else if (k == "exposure.utilization") utilization = v.as_double(1e-6, 1);
    else if (k == "exposure.days") days = v.as_double(1e-6, 1e6);
    else if (k == "exposure.jobs") jobs = v.as_double(1, 1e12);
    else if (k == "exposure.gpu_demand") population_ = gpu_demand(v);
    else if (k.rfind("per_run.", 0) == 0) {
      if (v.as_double(0, 1) > 0) per_run.push_back(k.substr(8));
    } else if (k.rfind("takes_down.", 0) == 0) {
      const std::string d = v.as_string();
      static const std::pair<const char*, FailureDomain> kDomains[] = {
          {"job", FailureDomain::Job}, {"gpu", FailureDomain::Gpu}, {"nic", FailureDomain::Nic},
          {"node", FailureDomain::Node}, {"leaf", FailureDomain::Leaf}};
      const auto it = std::find_if(std::begin(kDomains), std::end(kDomains), [&](const auto& x) { return d == x.first; });
      if (it == std::end(kDomains)) v.fail("expected job, gpu, nic, node or leaf");
      domains.emplace_back(k.substr(11), it->second);
    } else if (k.rfind("fit.", 0) == 0) {
      const std::vector<double> f = v.as_numbers();
      if (f.size() != 2 || !(f[0] > 0 && f[1] > 0)) v.fail("expected [rate factor > 0, time factor > 0]");
      fits.emplace_back(k.substr(4), f);
    } else if (k.rfind("recovery.", 0) == 0) {
      const double minutes = v.as_double(0, 1e6);
      if (k == prefix + "detection_min") detect = minutes;
      else if (k == prefix + "diagnosis_min") diagnose = minutes;
    } else if (k == "repair_s") repair = v.as_double(0, 1e9);
    else if (k == "restart_s") restart = v.as_double(0, 1e9);
    else if (k == "checkpoint_interval_s") interval = v.as_double(0, 1e9);
    else if (k == "save_time_s") save = v.as_double(0, 1e9);
    else if (k == "checkpoint_gb_per_gpu") checkpoint_gb_per_gpu = v.as_double(0, 1e6);
    else if (k == "async_speedup") speedup = v.as_double(1, 1e6);
    else v.fail("unknown key of a failure model");
  }
  if (enabled_ && (gpus * utilization * days <= 0 || jobs <= 0))
    throw InputError(table + ": exposure.gpus, utilization, days and jobs are all needed");
  const double gpu_seconds = gpus * utilization * days * 86400.0;
  // The reason a per-reason key (section.name) names; InputError if the table has none.
  auto reason = [&](const std::string& section, const std::string& name) -> FailureReason& {
    const auto r = std::find_if(reasons_.begin(), reasons_.end(), [&](const FailureReason& x) { return x.name == name; });
    if (r == reasons_.end()) throw InputError(table + ": " + section + "." + name + ": not a reason of the table");
    return *r;
  };
  for (const std::string& name : per_run) reason("per_run", name);
  for (const auto& [name, f] : fits) {
    FailureReason& r = reason("fit", name);
    r.rate_fit = f[0];
    r.ttf_fit = f[1];
  }
  for (const auto& [name, domain] : domains) reason("takes_down", name).domain = domain;
  for (FailureReason& r : reasons_) {
    r.ttf_mean_s = r.avg_ttf_min * 60.0 * r.ttf_fit;
    const bool by_run = r.category != FailureCategory::Infrastructure ||
                        std::find(per_run.begin(), per_run.end(), r.name) != per_run.end();
    if (by_run) r.domain = FailureDomain::Job;
    if (!by_run) r.per_gpu_rate = r.count / gpu_seconds * r.rate_fit;
    else if (population_.empty()) r.per_run_prob = std::min(1.0, r.count / jobs * r.rate_fit);
    else scale_by_gpus(r, population_);
    per_gpu_rate_sum_ += r.per_gpu_rate;
  }
  for (std::size_t b = 0; b < per_run_none_at_least_.size(); ++b) {
    double none = 1.0;
    for (const FailureReason& r : reasons_)
      if (r.per_gpu_rate <= 0) {
        const auto low = static_cast<std::int32_t>(std::uint32_t{1} << b);
        const auto high = static_cast<std::int32_t>(std::min<std::uint64_t>((std::uint64_t{2} << b) - 1, INT32_MAX));
        none *= 1.0 - std::max(r.per_run_chance(low), r.per_run_chance(high));
      }
    per_run_none_at_least_[b] = none;
  }
  repair = params.number("repair_s", repair, 0, 1e9,
                         "seconds an infrastructure failure keeps its node down (default: the table file's)");
  interval = params.number("checkpoint_interval_s", interval, 0, 1e9,
                           "seconds of compute between two checkpoints, 0: none (default: the table file's)");
  save = params.number("save_time_s", save, 0, 1e9,
                       "seconds of one synchronous checkpoint save; 0: checkpoint size / storage bandwidth "
                       "(default: the table file's)");
  checkpoint_gb_per_gpu_ = params.number("checkpoint_gb_per_gpu", checkpoint_gb_per_gpu, 0, 1e6,
                                         "save_time_s 0: checkpoint GB per GPU of a job (default: the table file's)");
  restart = params.number("restart_s", restart, 0, 1e9,
                          "seconds a run after a failure spends reloading before it computes (default: the table file's)");
  recovery_ = Time::seconds(std::llround((detect + diagnose) * 60.0));
  restart_ = Time::seconds(std::llround(restart));
  repair_ = Time::seconds(std::llround(repair));
  interval_ = Time::seconds(std::llround(interval));
  save_s_ = save;
  stall_factor_ = mode == "sync" ? 1.0 : 1.0 / speedup;
}

void FailureModel::use_cluster(const ClusterSpec& cluster) {
  node_gbps_ = cluster.nics_per_node * cluster.nic_gbps;
  storage_gbps_ = cluster.spines * cluster.storage_gbps;
}

Time FailureModel::checkpoint_stall(const JobRequest& r) const {
  double save = save_s_;
  if (!(save > 0)) {  // the job's checkpoint through the narrower of its NICs and the storage links
    const double gbps = std::min(r.node_num * node_gbps_, storage_gbps_);
    save = checkpoint_gb_per_gpu_ * r.gpu_num * 8.0 / gbps;
  }
  const double stall = save * stall_factor_;
  return Time::seconds(stall > 0 ? std::max<std::int64_t>(1, std::llround(stall)) : 0);
}

double FailureModel::strike_probability(const FailureReason& r, std::int32_t gpus, double horizon_s) {
  if (r.per_gpu_rate <= 0) return r.per_run_chance(gpus);
  return -std::expm1(-r.per_gpu_rate * gpus * horizon_s);  // 1 when the horizon is infinite
}

std::uint64_t FailureModel::run_key(JobId job, std::uint32_t run) const { return mix(mix(seed_ ^ mix(job)) ^ run); }

double FailureModel::where(JobId job, std::uint32_t run) const { return Rng(mix(run_key(job, run) ^ 0x5745u)).uniform(); }

std::optional<FailureDraw> FailureModel::draw(JobId job, std::uint32_t run, std::int32_t gpus, Time horizon) const {
  if (!enabled_ || gpus <= 0 || reasons_.empty()) return std::nullopt;
  Rng rng(run_key(job, run));
  const double h = horizon == Time::max() ? std::numeric_limits<double>::infinity() : static_cast<double>(horizon.sec());
  // Most runs meet no failure: one uniform against a lower bound of the chance that none strikes
  // settles them, the exact chance the rest.
  const double u = rng.uniform();
  const auto bucket = static_cast<std::size_t>(std::bit_width(static_cast<std::uint32_t>(gpus)) - 1);
  if (u < per_run_none_at_least_[bucket] * std::exp(-per_gpu_rate_sum_ * gpus * h)) return std::nullopt;
  // Some reason strikes. Each, in table order, strikes with its chance given that none before it
  // did and that it or a later one does (exact for independent reasons); after the first, with
  // its plain chance. Then each struck reason picks its moment, and the earliest wins.
  std::vector<double> q(reasons_.size());                    // [i]: reason i strikes
  std::vector<double> later_none(reasons_.size() + 1, 1.0);  // [i]: no reason from i on strikes
  for (std::size_t i = reasons_.size(); i-- > 0;) {
    q[i] = strike_probability(reasons_[i], gpus, h);
    later_none[i] = later_none[i + 1] * (1.0 - q[i]);
  }
  if (u < later_none[0]) return std::nullopt;
  bool struck = false;
  double best = std::numeric_limits<double>::infinity();
  std::optional<FailureDraw> out;
  for (std::size_t i = 0; i < reasons_.size(); ++i) {
    const FailureReason& r = reasons_[i];
    const double chance = struck ? q[i] : q[i] / std::max(1.0 - later_none[i], 1e-300);
    if (!(rng.uniform() < chance)) continue;
    struck = true;
    // An exponential time, truncated to the run's horizon, by inverse CDF.
    const double mean = r.ttf_mean_s;
    const double v = rng.uniform();
    const double t = h / mean > 700 ? -mean * std::log1p(-v) : -mean * std::log1p(-v * -std::expm1(-h / mean));
    if (t < best) {
      best = t;
      const auto whole = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(t)));
      out = FailureDraw{Time::seconds(whole), i, r.domain, r.category, r.per_gpu_rate <= 0};
    }
  }
  if (!out || out->after >= horizon) return std::nullopt;
  return out;
}

}  // namespace acme
