#include "features/failures.h"

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "io/feature_registry.h"
#include "io/yaml_util.h"
#include "sim/error.h"

namespace acme {
namespace {

// A failure table file as written, before its per-reason keys are checked against its rows.
struct TableFile {
  std::string recovery_prefix;  // "recovery.<failures.recovery>."
  double gpus = 0, utilization = 0, days = 0, jobs = 0;
  double repair = 0, interval = 0, save = 0, speedup = 1, checkpoint_gb_per_gpu = 0, bytes_per_param = 12;
  double host_gbps = 200, lazy_overlap = 0, ssd_gbps = 0, comm_init = 0, load = 0, warmup = 0;
  double detect = 0, diagnose = 0;  // minutes
  std::vector<FailureReason> reasons;
  std::vector<std::pair<double, double>> population;
  std::vector<std::string> per_run;  // infrastructure reasons drawn per run, not per GPU
  std::vector<std::pair<std::string, std::vector<double>>> fits;  // fit.<reason>: [rate, time]
  std::vector<std::pair<std::string, FailureDomain>> domains;      // takes_down.<reason>
};

// exposure.gpu_demand: [[GPUs, jobs], ...], the GPU demands of the population the table counts.
std::vector<std::pair<double, double>> gpu_demand(const YamlValue& v) {
  const std::vector<std::pair<double, double>> out = v.as_pairs();
  for (const auto& [gpus, jobs] : out)
    if (!(gpus >= 1 && jobs > 0)) v.fail("expected [GPUs >= 1, jobs > 0] pairs");
  if (out.empty()) v.fail("expected at least one [GPUs, jobs] pair");
  return out;
}

void add_reason(TableFile& t, const YamlValue& v, FailureCategory category, std::string name) {
  const std::vector<double> row = v.as_numbers();
  if (row.size() != 4) v.fail("expected [count, avg_gpu_demand, avg_time_to_failure_min, gpu_time_share_pct]");
  FailureReason r;
  r.name = std::move(name);
  r.category = category;
  r.count = row[0], r.avg_gpus = row[1], r.avg_ttf_min = row[2], r.gpu_time_share_pct = row[3];
  t.reasons.push_back(r);
}

FailureDomain domain_of(const YamlValue& v) {
  const std::string d = v.as_string();
  static const std::pair<const char*, FailureDomain> kDomains[] = {
      {"job", FailureDomain::Job}, {"gpu", FailureDomain::Gpu}, {"nic", FailureDomain::Nic},
      {"node", FailureDomain::Node}, {"leaf", FailureDomain::Leaf}};
  const auto it = std::find_if(std::begin(kDomains), std::end(kDomains), [&](const auto& x) { return d == x.first; });
  if (it == std::end(kDomains)) v.fail("expected job, gpu, nic, node or leaf");
  return it->second;
}

// A key of a table file: exactly `key`; or, ending in '.', every key under that prefix; or, a
// section of reasons (Head), every key whose part before the first '.' is `key`. `set` gets the
// rest of the key after the prefix (after the first '.' for a section).
struct TableKey {
  enum Match { Exact, Prefix, Head };
  std::string_view key;
  std::function<void(TableFile&, const YamlValue&, const std::string& rest)> set;
  Match match = key.back() == '.' ? Prefix : Exact;
};

template <double TableFile::*member>
TableKey number_key(std::string_view key, double min, double max) {
  return {key, [min, max](TableFile& t, const YamlValue& v, const std::string&) { t.*member = v.as_double(min, max); }};
}

std::span<const TableKey> table_keys() {
  static const std::array<TableKey, 24> kKeys = {{
      {"infrastructure", [](TableFile& t, const YamlValue& v, const std::string& name) {
         add_reason(t, v, FailureCategory::Infrastructure, name); }, TableKey::Head},
      {"framework", [](TableFile& t, const YamlValue& v, const std::string& name) {
         add_reason(t, v, FailureCategory::Framework, name); }, TableKey::Head},
      {"script", [](TableFile& t, const YamlValue& v, const std::string& name) {
         add_reason(t, v, FailureCategory::Script, name); }, TableKey::Head},
      number_key<&TableFile::gpus>("exposure.gpus", 1, 1e9),
      number_key<&TableFile::utilization>("exposure.utilization", 1e-6, 1),
      number_key<&TableFile::days>("exposure.days", 1e-6, 1e6),
      number_key<&TableFile::jobs>("exposure.jobs", 1, 1e12),
      {"exposure.gpu_demand", [](TableFile& t, const YamlValue& v, const std::string&) { t.population = gpu_demand(v); }},
      {"per_run.", [](TableFile& t, const YamlValue& v, const std::string& name) {
         if (v.as_double(0, 1) > 0) t.per_run.push_back(name); }},
      {"takes_down.", [](TableFile& t, const YamlValue& v, const std::string& name) {
         t.domains.emplace_back(name, domain_of(v)); }},
      {"fit.", [](TableFile& t, const YamlValue& v, const std::string& name) {
         const std::vector<double> f = v.as_numbers();
         if (f.size() != 2 || !(f[0] > 0 && f[1] > 0)) v.fail("expected [rate factor > 0, time factor > 0]");
         t.fits.emplace_back(name, f); }},
      {"recovery.", [](TableFile& t, const YamlValue& v, const std::string&) {
         const double minutes = v.as_double(0, 1e6);
         if (v.key() == t.recovery_prefix + "detection_min") t.detect = minutes;
         else if (v.key() == t.recovery_prefix + "diagnosis_min") t.diagnose = minutes; }},
      number_key<&TableFile::repair>("repair_s", 0, 1e9),
      number_key<&TableFile::comm_init>("comm_init_s", 0, 1e9),
      number_key<&TableFile::load>("load_s", 0, 1e9),
      number_key<&TableFile::warmup>("warmup_s", 0, 1e9),
      number_key<&TableFile::interval>("checkpoint_interval_s", 0, 1e9),
      number_key<&TableFile::save>("save_time_s", 0, 1e9),
      number_key<&TableFile::checkpoint_gb_per_gpu>("checkpoint_gb_per_gpu", 0, 1e6),
      number_key<&TableFile::speedup>("async_speedup", 1, 1e6),
      number_key<&TableFile::bytes_per_param>("bytes_per_param", 0, 1e3),
      number_key<&TableFile::host_gbps>("host_gbps", 1e-3, 1e9),
      number_key<&TableFile::lazy_overlap>("lazy_overlap_s", 0, 1e9),
      number_key<&TableFile::ssd_gbps>("ssd_gbps", 0, 1e9),
  }};
  return kKeys;
}

void apply_table_key(TableFile& t, const YamlValue& v) {
  const std::string& k = v.key();
  const auto dot = k.find('.');
  for (const TableKey& key : table_keys()) {
    if (key.match == TableKey::Head && k.substr(0, dot) == key.key) return key.set(t, v, k.substr(dot + 1));
    if (key.match == TableKey::Prefix && k.rfind(key.key, 0) == 0) return key.set(t, v, k.substr(key.key.size()));
    if (key.match == TableKey::Exact && k == key.key) return key.set(t, v, "");
  }
  v.fail("unknown key of a failure model");
}

// Reads the table file and checks its per-reason keys against its rows.
TableFile read_table(const std::string& table, const std::string& recovery) {
  TableFile t;
  t.recovery_prefix = "recovery." + recovery + ".";
  for (const YamlValue& v : read_yaml_file(table)) apply_table_key(t, v);
  if (t.gpus * t.utilization * t.days <= 0 || t.jobs <= 0)
    throw InputError(table + ": exposure.gpus, utilization, days and jobs are all needed");
  // The reason a per-reason key (section.name) names; InputError if the table has none.
  auto reason = [&](const std::string& section, const std::string& name) -> FailureReason& {
    const auto r = std::find_if(t.reasons.begin(), t.reasons.end(), [&](const FailureReason& x) { return x.name == name; });
    if (r == t.reasons.end()) throw InputError(table + ": " + section + "." + name + ": not a reason of the table");
    return *r;
  };
  for (const std::string& name : t.per_run) reason("per_run", name);
  for (const auto& [name, f] : t.fits) {
    FailureReason& r = reason("fit", name);
    r.rate_fit = f[0];
    r.ttf_fit = f[1];
  }
  for (const auto& [name, domain] : t.domains) reason("takes_down", name).domain = domain;
  return t;
}

CheckpointSettings read_checkpoint_settings(Params& params, const TableFile& t, const std::string& mode) {
  CheckpointSettings c;
  c.mode = mode == "sync" ? CheckpointMode::Sync : mode == "async" ? CheckpointMode::Async : CheckpointMode::MultiLevel;
  c.async_speedup = t.speedup;
  c.interval_s = params.number("checkpoint_interval_s", t.interval, 0, 1e9,
                               "seconds of compute between two checkpoints, 0: none (default: the table file's)");
  c.save_s = params.number("save_time_s", t.save, 0, 1e9,
                           "seconds of one checkpoint write to shared storage; 0: checkpoint size / the job's storage "
                           "bandwidth (default: the table file's)");
  c.gb_per_gpu = params.number("checkpoint_gb_per_gpu", t.checkpoint_gb_per_gpu, 0, 1e6,
                               "checkpoint GB per GPU of a job, without model_params (default: the table file's)");
  c.model_params = params.number("model_params", 0, 0, 1e15,
                                 "parameters of every checkpointing job (checkpoint: model_params x bytes_per_param); "
                                 "0: from checkpoint_gb_per_gpu");
  c.bytes_per_param = params.number("bytes_per_param", t.bytes_per_param, 0, 1e3,
                                    "checkpoint bytes per parameter, with model_params (default: the table file's)");
  c.host_gbps = params.number("host_gbps", t.host_gbps, 1e-3, 1e9,
                              "a GPU's copy to and from host memory, Gb/s: the async stall with save_time_s 0, and "
                              "multilevel's restore from host memory (default: the table file's)");
  c.lazy_overlap_s = params.number("lazy_overlap_s", t.lazy_overlap, 0, 1e9,
                                   "multilevel: seconds of an iteration's forward and backward passes that the copy "
                                   "to host memory overlaps, stalling only for the rest (default: the table file's)");
  c.ssd_gbps = params.number("ssd_gbps", t.ssd_gbps, 0, 1e9,
                             "multilevel: a node's local SSD write and read, Gb/s, for the SSD level (each node's "
                             "shard and a partner's): saves safe from a failure of one node once there, and "
                             "restored from there; 0: no SSD level (default: the table file's)");
  c.shared_storage = params.flag("shared_storage", false,
                                 "checkpoint writes share the storage links' bandwidth with the writes in flight "
                                 "(each is scaled by capacity / demand, as network links are) instead of each "
                                 "seeing the whole of it; a run's saves are then events");
  c.comm_init_s = params.number("comm_init_s", t.comm_init, 0, 1e9,
                                "restart phase 1: seconds setting up the communicators (default: the table file's)");
  c.load_s = params.number("load_s", t.load, 0, 1e9,
                           "restart phase 2: seconds loading the checkpoint; 0: its size through the job's storage "
                           "bandwidth (host memory for multilevel when its nodes survived) (default: the table file's)");
  c.warmup_s = params.number("warmup_s", t.warmup, 0, 1e9,
                             "restart phase 3: seconds until the job trains at full speed again (default: the table file's)");
  return c;
}

}  // namespace

FailureSettings read_failure_settings(Params& params, const std::string& default_table, bool table_when_off) {
  FailureSettings s;
  s.enabled = params.flag("enabled", false, "inject failures from the failure table (configs/failures/)");
  s.seed = static_cast<std::uint64_t>(
      params.number("seed", 1, 0, 9.0e15, "seed of the failure generator, apart from the run's seed"));
  std::string table = params.path("table", "the failure model", "configs/failures/acme.yaml");
  if (table.empty()) table = default_table;
  const std::string recovery = params.choice("recovery", "manual", {"manual", "automatic"},
                                             "detection and diagnosis before a failed job may restart");
  const std::string mode = params.choice("checkpoint_mode", "sync", {"sync", "async", "multilevel"},
                                         "sync saves stall the whole write; async the copy to host memory, the write "
                                         "going on behind; multilevel as async, and the copy in host memory survives "
                                         "failures that take none of the job's nodes");
  s.hold_gpus = params.flag("hold_gpus", true,
                            "a failed job keeps its GPUs (but those of a failed node) while it is detected and diagnosed");
  s.recorded_failed_complete =
      params.choice("recorded_failed", "keep", {"keep", "complete"},
                    "jobs the trace records as failed: keep (end FAILED at the end of the recorded run) or "
                    "complete (every failure of the run is then an injected one)") == "complete";
  const auto types = params.type_table("checkpoint", {{"Pretrain", 1}}, 0, 1,
                                       "1: jobs of this type checkpoint (failures.checkpoint.<Type>)");
  for (std::size_t t = 0; t < kJobTypeCount; ++t) s.checkpoints[t] = types[t].value_or(0.0) > 0;
  // Its values are the defaults of the keys below. Off, it is not read (the keys are still known,
  // so that they can be set and checked; a run with failures off records none of them).
  TableFile t = s.enabled || table_when_off ? read_table(table, recovery) : TableFile{};
  s.reasons = std::move(t.reasons);
  s.per_run = std::move(t.per_run);
  s.population = std::move(t.population);
  s.exposure_gpu_seconds = t.gpus * t.utilization * t.days * 86400.0;
  s.exposure_jobs = t.jobs;
  s.detect_s = params.number("detect_s", t.detect * 60.0, 0, 1e9,
                             "seconds until a failure is detected (default: the table file's, failures.recovery)");
  s.diagnose_s = params.number("diagnose_s", t.diagnose * 60.0, 0, 1e9,
                               "seconds diagnosing a detected failure (default: the table file's, failures.recovery)");
  s.repair_s = params.number("repair_s", t.repair, 0, 1e9,
                             "seconds an infrastructure failure keeps its node down (default: the table file's)");
  s.checkpoint = read_checkpoint_settings(params, t, mode);
  return s;
}

namespace {

// The failures feature: the core reads its model (Feature::failure_model) and tells it where its
// training jobs' time goes (kTrained), kept in its ledger.
class FailuresFeature final : public Feature {
 public:
  explicit FailuresFeature(FailureModel model) : model_(std::move(model)) {}
  unsigned hooks() const override { return kTrained; }
  const FailureModel* failure_model() const override { return &model_; }
  void run_trained(JobId job, const TrainingTimes& parts) override { ledger_.add(job, parts); }
  void training_step(JobId job, TrainingStep step, Time now) override {
    ledger_.step(job, step, now, model_.detection());
  }
  const TrainingLedger& ledger() const { return ledger_; }

 private:
  FailureModel model_;
  TrainingLedger ledger_;
};

}  // namespace

const TrainingLedger* training_ledger(std::span<const Feature* const> features) {
  for (const Feature* f : features)
    if (const auto* failures = dynamic_cast<const FailuresFeature*>(f)) return &failures->ledger();
  return nullptr;
}

namespace {

// Listing its keys (no cluster), the table is read so that the defaults listed are those a run
// with failures on uses.
std::unique_ptr<Feature> make_failures(Params& params, const FeatureSetup& setup) {
  const std::string table = (setup.configs / "failures" / "acme.yaml").string();
  FailureModel model(read_failure_settings(params, table, !setup.cluster));
  if (!setup.cluster) return nullptr;
  model.use_cluster(*setup.cluster);
  return failures_feature(std::move(model));  // none when off
}

// Its keys after the slow nodes' (20) and before capacity's (30), where run.json has listed them.
const FeatureRegistrar kFailures({"failures", "Injected failures (failures.*)", make_failures, 25});

}  // namespace

std::unique_ptr<Feature> failures_feature(FailureModel model) {
  if (!model.enabled()) return nullptr;
  return std::make_unique<FailuresFeature>(std::move(model));
}

}  // namespace acme
