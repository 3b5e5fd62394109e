#include "workloads/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/error.h"
#include "sim/yaml_util.h"

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

double eval_idle_share(EvalMode mode, const EvalShares& shares) {
  const double gpu_factor = 1 - shares.remote_load - shares.metric + shares.local_load;
  return mode == EvalMode::Coupled ? shares.idle() : (shares.local_load + shares.preprocess) / gpu_factor;
}

Workload transform_evaluation(const Workload& w, EvalMode mode, const EvalShares& shares, int metric_cpus) {
  Workload out;
  out.users = w.users;
  out.source = w.source;
  out.rows_skipped = w.rows_skipped;
  out.window_from = w.window_from;
  out.window_to = w.window_to;
  out.requests.reserve(w.size());
  out.profiles.reserve(w.size());
  const double gpu_factor = 1 - shares.remote_load - shares.metric + shares.local_load;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    JobProfile p = w.profiles[i];
    const std::string_view name = w.names[static_cast<std::uint32_t>(i)];
    if (r.type != JobType::Eval || r.gpu_num == 0) {
      out.add(name, r, p);
      continue;
    }
    if (mode == EvalMode::Coupled) {
      out.add(name, r, p);
      continue;
    }
    const std::int64_t run = p.run.sec();
    p.run = Time::seconds(static_cast<std::int64_t>(std::ceil(static_cast<double>(run) * gpu_factor)));
    out.add(name, r, p);
    if (w.profiles[i].final_state != JobState::Completed) continue;
    const auto metric_s = static_cast<std::int64_t>(std::ceil(static_cast<double>(run) * shares.metric));
    if (metric_s <= 0) continue;
    JobRequest mr = r;
    mr.gpu_num = 0;
    mr.node_num = 1;
    mr.cpu_num = metric_cpus;
    JobProfile mp = w.profiles[i];
    mp.run = Time::seconds(metric_s);
    out.add(std::string(name) + "#metric", mr, mp);
  }
  return out;
}

EvalSetup apply_evaluation(const Workload& w, bool decoupled, Params& params, int gpus_per_node) {
  const std::string catalogue = params.path(
      "catalogue", "evaluation catalogue (configs/eval/*.yaml) for the eval shares; empty: the shipped 7B/63 shares");
  const bool idle = params.flag("idle", true, "coupled: count GPUs held during loading and metrics as eval_idle waste");
  const int metric_cpus = static_cast<int>(params.number(
      "metric_cpus", 8, 1, 1 << 20, "decoupled: CPU cores of each evaluation's metric job"));
  const EvalShares shares = catalogue.empty() ? kDefaultEvalShares
                                              : shares_of(load_eval_catalogue(catalogue), std::max(1, gpus_per_node));
  const EvalMode mode = decoupled ? EvalMode::Decoupled : EvalMode::Coupled;
  EvalSetup setup;
  if (idle) setup.idle_share = eval_idle_share(mode, shares);
  if (!decoupled) return setup;
  bool any = false;
  for (const JobRequest& r : w.requests) any |= r.type == JobType::Eval && r.gpu_num > 0;
  if (any) setup.rewritten = transform_evaluation(w, mode, shares, metric_cpus);
  return setup;
}

}  // namespace acme
