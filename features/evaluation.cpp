#include "features/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>

#include "sim/error.h"
#include "io/yaml_util.h"

namespace acme {
namespace {

// A phase whose remaining time is within this many seconds has ended: the fluid model's
// remainders are differences of doubles.
constexpr double kEps = 1e-9;

std::size_t idx(EvalPhase p) { return static_cast<std::size_t>(p); }

EvalSchedule coupled(const EvalCatalogue& c, int nodes, int gpus_per_node) {
  const int gpus = nodes * gpus_per_node;
  const int n = static_cast<int>(c.datasets.size());
  struct Slot {
    int trial = -1;
    EvalPhase phase = EvalPhase::RemoteLoad;
    double remaining = 0;  // gigabits while loading, else seconds
    double phase_start = 0, trial_start = 0;
  };
  std::vector<Slot> slots(static_cast<std::size_t>(gpus));
  EvalSchedule s;
  int next = 0;
  double t = 0;
  const double model_gbit = c.model_gb * 8;

  // Moves a slot to its next phase of non-zero length, or frees it.
  auto advance = [&](Slot& slot, EvalPhase from) {
    const EvalDataset& d = c.datasets[static_cast<std::size_t>(slot.trial)];
    const EvalPhase order[] = {EvalPhase::RemoteLoad, EvalPhase::Preprocess, EvalPhase::Infer, EvalPhase::Metric};
    const double length[] = {model_gbit, d.preprocess_s, d.infer_s, d.metric_s};
    std::size_t k = 0;
    while (order[k] != from) ++k;
    for (++k; k < 4; ++k)
      if (length[k] > 0) {
        slot.phase = order[k];
        slot.remaining = length[k];
        slot.phase_start = t;
        return;
      }
    s.gpu_held_s += t - slot.trial_start;
    slot.trial = -1;
  };
  auto fill = [&] {
    for (Slot& slot : slots) {
      if (slot.trial >= 0 || next >= n) continue;
      slot.trial = next++;
      slot.trial_start = slot.phase_start = t;
      slot.phase = EvalPhase::RemoteLoad;
      slot.remaining = model_gbit;
      if (!(model_gbit > 0)) advance(slot, EvalPhase::RemoteLoad);
    }
  };
  fill();
  for (;;) {
    int loading = 0, busy = 0;
    for (const Slot& slot : slots) {
      busy += slot.trial >= 0;
      loading += slot.trial >= 0 && slot.phase == EvalPhase::RemoteLoad;
    }
    if (busy == 0) break;
    const double load_rate = loading > 0 ? c.storage_gbps / loading : 0;  // Gb/s per loader
    auto rate = [&](const Slot& slot) { return slot.phase == EvalPhase::RemoteLoad ? load_rate : 1.0; };
    double dt = std::numeric_limits<double>::infinity();
    for (const Slot& slot : slots)
      if (slot.trial >= 0) dt = std::min(dt, slot.remaining / rate(slot));
    t += dt;
    for (std::size_t g = 0; g < slots.size(); ++g) {
      Slot& slot = slots[g];
      if (slot.trial < 0) continue;
      slot.remaining -= dt * rate(slot);
      if (slot.remaining / rate(slot) > kEps) continue;
      const int gpu = static_cast<int>(g);
      s.spans.push_back({slot.trial, 0, slot.phase, gpu, gpu / gpus_per_node, slot.phase_start, t});
      s.phase_s[idx(slot.phase)] += t - slot.phase_start;
      if (slot.phase == EvalPhase::Infer) s.gpu_infer_s += t - slot.phase_start;
      advance(slot, slot.phase);
    }
    fill();
  }
  s.makespan_s = t;
  return s;
}

EvalSchedule decoupled(const EvalCatalogue& c, int nodes, int gpus_per_node) {
  const int gpus = nodes * gpus_per_node;
  EvalSchedule s;
  // Every node fetches the model at once; equal sizes, so the fluid sharing ends them together.
  const double fetch_end = c.model_gb * 8 / (c.storage_gbps / nodes);
  for (int k = 0; k < nodes; ++k) {
    s.spans.push_back({-1, 0, EvalPhase::Fetch, -1, k, 0, fetch_end});
    s.phase_s[idx(EvalPhase::Fetch)] += fetch_end;
  }

  struct Piece {
    int dataset, piece, pieces;
    double work;  // preprocess + infer seconds
  };
  double total = 0;
  for (const EvalDataset& d : c.datasets) total += d.preprocess_s + d.infer_s;
  const double target = std::max(total / gpus, c.split_min_s);
  std::vector<Piece> pieces;
  for (std::size_t i = 0; i < c.datasets.size(); ++i) {
    const double work = c.datasets[i].preprocess_s + c.datasets[i].infer_s;
    const int k = work > target ? static_cast<int>(std::ceil(work / target - kEps)) : 1;
    for (int p = 0; p < k; ++p) pieces.push_back({static_cast<int>(i), p, k, work / k});
  }
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.work > b.work; });

  std::vector<std::vector<const Piece*>> bins(static_cast<std::size_t>(gpus));
  std::vector<double> load(static_cast<std::size_t>(gpus), 0);
  for (const Piece& p : pieces) {
    const auto g = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    bins[g].push_back(&p);
    load[g] += p.work;
  }

  struct Task {
    double release, length;
    int dataset, piece;
  };
  std::vector<std::vector<Task>> tasks(static_cast<std::size_t>(nodes));
  const double local_load = c.model_gb * 8 / c.pcie_gbps;
  for (int g = 0; g < gpus; ++g) {
    const auto& bin = bins[static_cast<std::size_t>(g)];
    if (bin.empty()) continue;
    const int node = g / gpus_per_node;
    double t = fetch_end;
    auto phase = [&](int dataset, int piece, EvalPhase ph, double length) {
      if (!(length > 0)) return;
      s.spans.push_back({dataset, piece, ph, g, node, t, t + length});
      s.phase_s[idx(ph)] += length;
      t += length;
    };
    phase(bin.front()->dataset, bin.front()->piece, EvalPhase::LocalLoad, local_load);
    for (const Piece* p : bin) {
      const EvalDataset& d = c.datasets[static_cast<std::size_t>(p->dataset)];
      phase(p->dataset, p->piece, EvalPhase::Preprocess, d.preprocess_s / p->pieces);
      phase(p->dataset, p->piece, EvalPhase::Infer, d.infer_s / p->pieces);
      s.gpu_infer_s += d.infer_s / p->pieces;
      if (d.metric_s > 0) tasks[static_cast<std::size_t>(node)].push_back({t, d.metric_s / p->pieces, p->dataset, p->piece});
    }
    s.gpu_held_s += t - fetch_end;
    s.makespan_s = std::max(s.makespan_s, t);
  }

  for (int node = 0; node < nodes; ++node) {
    auto& q = tasks[static_cast<std::size_t>(node)];
    std::stable_sort(q.begin(), q.end(), [](const Task& a, const Task& b) { return a.release < b.release; });
    std::vector<double> free_at(static_cast<std::size_t>(c.metric_workers_per_node), 0);
    for (const Task& task : q) {
      auto w = std::min_element(free_at.begin(), free_at.end());
      const double start = std::max(*w, task.release);
      *w = start + task.length;
      s.spans.push_back({task.dataset, task.piece, EvalPhase::Metric, -1, node, start, *w});
      s.phase_s[idx(EvalPhase::Metric)] += task.length;
      s.makespan_s = std::max(s.makespan_s, *w);
    }
  }
  s.makespan_s = std::max(s.makespan_s, fetch_end);
  return s;
}

}  // namespace

EvalCatalogue load_eval_catalogue(const std::string& path) {
  EvalCatalogue c;
  for (const YamlValue& v : read_yaml_file(path)) {
    const std::string& k = v.key();
    if (k == "model.name") c.model = v.as_string();
    else if (k == "model.size_gb") c.model_gb = v.as_double(0, 1e6);
    else if (k == "storage_gbps") c.storage_gbps = v.as_double(1e-6, 1e9);
    else if (k == "pcie_gbps") c.pcie_gbps = v.as_double(1e-6, 1e9);
    else if (k == "metric_workers_per_node") c.metric_workers_per_node = static_cast<int>(v.as_int(1, 1 << 20));
    else if (k == "split_min_s") c.split_min_s = v.as_double(1, 1e9);
    else if (k.rfind("datasets.", 0) == 0) {
      const std::vector<double> x = v.as_numbers();
      if (x.size() != 3) v.fail("expected [preprocess_s, infer_s, metric_s]");
      for (double y : x)
        if (!(y >= 0) || !std::isfinite(y)) v.fail("phase lengths must be finite and >= 0");
      c.datasets.push_back({k.substr(9), x[0], x[1], x[2]});
    } else {
      v.fail("unknown key (valid keys: model.name, model.size_gb, storage_gbps, pcie_gbps, "
             "metric_workers_per_node, split_min_s, datasets.<name>)");
    }
  }
  if (c.datasets.empty()) throw InputError(path + ": datasets: the catalogue lists no dataset");
  return c;
}

EvalSchedule evaluate(const EvalCatalogue& c, int nodes, int gpus_per_node, EvalMode mode) {
  return mode == EvalMode::Coupled ? coupled(c, nodes, gpus_per_node) : decoupled(c, nodes, gpus_per_node);
}

EvalShares shares_of(const EvalCatalogue& c, int gpus_per_node) {
  const EvalSchedule s = coupled(c, 1, gpus_per_node);
  const double held = s.gpu_held_s;
  const double local_per_trial = c.model_gb * 8 / c.pcie_gbps;
  return {s.phase_s[idx(EvalPhase::RemoteLoad)] / held, s.phase_s[idx(EvalPhase::Preprocess)] / held,
          s.phase_s[idx(EvalPhase::Metric)] / held, local_per_trial * static_cast<double>(c.datasets.size()) / held};
}

EvaluationIndex group_evaluations(const Workload& w, Time gap) {
  EvaluationIndex index;
  index.of_job.assign(w.size(), EvaluationIndex::kNone);
  const auto grouped = [&](std::size_t i) { return w.requests[i].type == JobType::Eval && w.requests[i].gpu_num > 0; };
  Time last;  // the submit time of the job joined last, once one was
  const auto join = [&](JobId j) {
    const Time submit = w.requests[j].submit;
    if (index.trials.empty() || submit - last > gap) index.trials.push_back(0);
    last = submit;
    index.of_job[j] = static_cast<std::uint32_t>(index.trials.size() - 1);
    ++index.trials.back();
  };
  // In submit order, ties by JobId: the jobs' own order while it is that, as a trace's usually is
  // (no list of them made); else, from the start again, sorted.
  bool in_order = true;
  for (std::size_t i = 0; i < w.size() && in_order; ++i) {
    if (!grouped(i)) continue;
    in_order = index.trials.empty() || w.requests[i].submit >= last;
    if (in_order) join(static_cast<JobId>(i));
  }
  if (in_order) return index;
  index.trials.clear();  // each job joined is joined again below
  std::vector<JobId> eval;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (grouped(i)) eval.push_back(static_cast<JobId>(i));
  std::stable_sort(eval.begin(), eval.end(), [&](JobId a, JobId b) { return w.requests[a].submit < w.requests[b].submit; });
  for (const JobId j : eval) join(j);
  return index;
}

namespace {

std::int64_t ceil_s(double seconds) { return static_cast<std::int64_t>(std::ceil(seconds - kEps)); }

// The members of each evaluation, in JobId order, as one list: evaluation e's are
// jobs[begin[e], begin[e + 1]).
struct Members {
  std::vector<std::uint32_t> begin;
  std::vector<JobId> jobs;
  std::span<const JobId> of(std::size_t e) const { return {jobs.data() + begin[e], jobs.data() + begin[e + 1]}; }
};

Members members_of(const EvaluationIndex& groups) {
  Members m;
  m.begin.assign(groups.trials.size() + 1, 0);
  for (std::size_t e = 0; e < groups.trials.size(); ++e) m.begin[e + 1] = m.begin[e] + groups.trials[e];
  m.jobs.resize(m.begin.back());
  std::vector<std::uint32_t> fill(m.begin.begin(), m.begin.end() - 1);
  for (std::size_t i = 0; i < groups.of_job.size(); ++i)
    if (groups.of_job[i] != EvaluationIndex::kNone) m.jobs[fill[groups.of_job[i]]++] = static_cast<JobId>(i);
  return m;
}

bool packable(const Workload& w, JobId j) {
  return w.requests[j].gpu_num == 1 && w.profiles[j].final_state == JobState::Completed &&
         !w.profiles[j].cancel_pending_at();
}

// decouple_evaluations, one job at a time: jobs outside evaluations are copied; an evaluation's
// trials that cannot be packed stay one job each, without their remote load and metric; the
// packable ones become one packed job (and a metric job after it) at the last of them.
class Decoupler {
 public:
  Decoupler(const Workload& w, const EvaluationIndex& groups, const EvalShares& shares, const EvalPacking& packing)
      : w_(w), groups_(groups), shares_(shares), packing_(packing), members_(members_of(groups)),
        packed_at_(groups.trials.size(), kNoJob), catalogue_(packing.model),
        gpu_factor_(1 - shares.remote_load - shares.metric + shares.local_load),
        own_idle_(gpu_factor_ > 0 ? (shares.local_load + shares.preprocess) / gpu_factor_ : 0) {
    Workload& o = out_.workload;
    o.users = w.users;
    o.source = w.source;
    o.schema = w.schema;
    o.rows_skipped = w.rows_skipped;
    o.rows_outside_window = w.rows_outside_window;
    o.window_from = w.window_from;
    o.window_to = w.window_to;
    o.requests.reserve(w.size());
    o.profiles.reserve(w.size());
    out_.index.trials = groups.trials;
    // The packed job of an evaluation goes where its last packable trial was; each trial keeps
    // its evaluation's number.
    for (std::size_t e = 0; e < groups.trials.size(); ++e)
      for (JobId j : members_.of(e))
        if (packable(w, j)) packed_at_[e] = j;
    catalogue_.datasets.clear();  // an evaluation's trials as datasets, reused
  }

  EvalRewrite run() && {
    for (std::size_t i = 0; i < w_.size(); ++i) {
      const auto j = static_cast<JobId>(i);
      const std::uint32_t e = groups_.of_job.empty() ? EvaluationIndex::kNone : groups_.of_job[i];
      if (e == EvaluationIndex::kNone) add(e, w_.names[j], w_.requests[i], w_.profiles[i]);
      else if (!packable(w_, j)) write_unpacked(j, e);
      else if (packed_at_[e] == j) write_packed(j, e);
      // else: packed into the job written at its evaluation's last trial
    }
    return std::move(out_);
  }

 private:
  JobId add(std::uint32_t evaluation, std::string_view name, const JobRequest& r, const JobProfile& p,
            JobId after = kNoJob) {
    Workload& o = out_.workload;
    const JobId id = after == kNoJob ? o.add(name, r, p) : o.add_after(after, name, r, p);
    out_.index.of_job.push_back(evaluation);
    return id;
  }

  void write_unpacked(JobId j, std::uint32_t e) {
    const JobRequest& r = w_.requests[j];
    const std::string_view name = w_.names[j];
    JobProfile p = w_.profiles[j];
    const double run = static_cast<double>(p.run.sec());
    p.run = Time::seconds(ceil_s(run * gpu_factor_));
    p.idle_share = static_cast<float>(own_idle_);
    const JobId gpu_job = add(e, name, r, p);
    if (p.final_state != JobState::Completed || !(run * shares_.metric > 0)) return;
    JobRequest mr = r;
    mr.gpu_num = 0;
    mr.node_num = 1;
    mr.cpu_num = packing_.metric_cpus;
    JobProfile mp = w_.profiles[j];
    mp.run = Time::seconds(ceil_s(run * shares_.metric));
    mp.idle_share = 0;
    add(e, std::string(name) + "#metric", mr, mp, gpu_job);
  }

  void write_packed(JobId j, std::uint32_t e) {
    trials_.clear();
    catalogue_.datasets.clear();
    for (JobId t : members_.of(e))
      if (packable(w_, t)) {
        trials_.push_back(t);
        const double run = static_cast<double>(w_.profiles[t].run.sec());
        catalogue_.datasets.push_back({{}, run * shares_.preprocess, run * shares_.infer(), run * shares_.metric});
      }
    // A GPU per trial, up to packing.nodes nodes, the same number on each node it needs.
    const int wanted = std::min(static_cast<int>(trials_.size()), packing_.nodes * packing_.gpus_per_node);
    const int nodes = (wanted + packing_.gpus_per_node - 1) / packing_.gpus_per_node;
    const int per_node = wanted / nodes;
    const int gpus = nodes * per_node;
    const EvalSchedule s = evaluate(catalogue_, nodes, per_node, EvalMode::Decoupled);
    double gpus_done = 0;
    for (const EvalSpan& span : s.spans)
      if (span.gpu >= 0) gpus_done = std::max(gpus_done, span.end);
    std::int32_t cpus_per_trial = 0;
    for (JobId t : trials_) cpus_per_trial = std::max(cpus_per_trial, w_.requests[t].cpu_num);
    JobRequest pr = w_.requests[j];
    pr.gpu_num = gpus;
    pr.node_num = nodes;
    pr.cpu_num = nodes * std::min(per_node * cpus_per_trial, packing_.cpus_per_node);
    JobProfile pp = w_.profiles[j];
    pp.run = Time::seconds(std::max<std::int64_t>(1, ceil_s(gpus_done)));
    pp.idle_share = static_cast<float>(std::clamp(1 - s.gpu_infer_s / (gpus * static_cast<double>(pp.run.sec())), 0.0, 1.0));
    const std::string first(w_.names[trials_.front()]);
    const JobId packed = add(e, first + "#eval" + std::to_string(trials_.size()), pr, pp);
    // Metric work left once the GPUs are done: the tail of the metric tasks' schedule.
    int running = 0;
    for (const EvalSpan& span : s.spans) running += span.phase == EvalPhase::Metric && span.end > gpus_done + kEps;
    const std::int64_t tail = ceil_s(s.makespan_s - gpus_done);
    if (running == 0 || tail <= 0) return;
    JobRequest mr = pr;
    mr.gpu_num = 0;
    mr.node_num = 1;
    mr.cpu_num = std::min(running * packing_.metric_cpus, packing_.cpus_per_node);
    JobProfile mp = pp;
    mp.run = Time::seconds(tail);
    mp.idle_share = 0;
    add(e, first + "#metric", mr, mp, packed);
  }

  const Workload& w_;
  const EvaluationIndex& groups_;
  const EvalShares& shares_;
  const EvalPacking& packing_;
  const Members members_;
  std::vector<JobId> packed_at_;  // [evaluation]: the trial its packed job is written at
  EvalCatalogue catalogue_;
  std::vector<JobId> trials_;
  const double gpu_factor_, own_idle_;
  EvalRewrite out_;
};

}  // namespace

EvalRewrite decouple_evaluations(const Workload& w, const EvaluationIndex& groups, const EvalShares& shares,
                                 const EvalPacking& packing) {
  return Decoupler(w, groups, shares, packing).run();
}

EvalSettings read_eval_settings(Params& params, bool decoupled, const ClusterSpec& cluster,
                                const std::string& shipped_catalogue) {
  EvalSettings s;
  s.decoupled = decoupled;
  const std::string catalogue = params.path(
      "catalogue", "evaluation catalogue (configs/eval/*.yaml) for the shares and the model; empty: the shipped 7B/63");
  s.idle = params.flag("idle", true, "count GPUs held idle inside Eval jobs (loading, preprocessing, metrics) as eval_idle waste");
  s.gap = Time::seconds(static_cast<std::int64_t>(params.number(
      "group_gap_s", 10, 0, 86400, "Eval GPU jobs submitted at most this far apart are one evaluation (checkpoint)")));
  EvalPacking& packing = s.packing;
  packing.metric_cpus = static_cast<int>(params.number("metric_cpus", 8, 1, 1 << 20, "decoupled: CPU cores per metric task"));
  packing.nodes = static_cast<int>(params.number("pack_nodes", 1, 1, 1024, "decoupled: nodes an evaluation is packed onto, at most"));
  packing.gpus_per_node = cluster.gpus_per_node;
  packing.cpus_per_node = cluster.cpus_per_node;
  if (decoupled || !catalogue.empty()) packing.model = load_eval_catalogue(catalogue.empty() ? shipped_catalogue : catalogue);
  s.shares = catalogue.empty() ? kDefaultEvalShares : shares_of(packing.model, std::max(1, cluster.gpus_per_node));
  return s;
}

EvalSetup apply_evaluation(const Workload& w, const EvalSettings& s, bool index) {
  EvalSetup setup;
  if (s.idle && !s.decoupled) setup.idle_share = s.shares.idle();
  if (!s.decoupled && !index) return setup;
  EvaluationIndex groups = group_evaluations(w, s.gap);
  if (!s.decoupled || groups.trials.empty()) {  // nothing to rewrite: no copy
    setup.index = std::move(groups);
    return setup;
  }
  EvalRewrite r = decouple_evaluations(w, groups, s.shares, s.packing);
  if (!s.idle)
    for (JobProfile& p : r.workload.profiles) p.idle_share = 0;
  setup.rewritten = std::move(r.workload);
  setup.index = std::move(r.index);
  return setup;
}

}  // namespace acme
