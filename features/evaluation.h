// Evaluation of a checkpoint as trials, run coupled (as the traces record it) or decoupled (as
// Acme runs it), after the NSDI '24 paper, section "evaluation" of workloads/data/acme_workload.json.
//
// Two levels:
//  1. evaluate(): an exact, deterministic schedule of one evaluation (one trial per dataset of a
//     catalogue, configs/eval/*.yaml) on `nodes` x `gpus_per_node` GPUs, phase by phase. This is
//     what reproduces the paper's 1.3x (one node) and 1.8x (four nodes) makespan reductions
//     (experiments/eval_decoupling/).
//  2. At cluster level, for replays: coupled, every Eval GPU job is a trial as traced, its idle
//     GPU-time given by EvalShares (the shares of the catalogue's one-node coupled schedule);
//     decoupled, decouple_evaluations() packs each evaluation (a checkpoint's batch of trials,
//     group_evaluations()) into one node-sized job scheduled by evaluate(), with its metric tail
//     in a CPU-only job submitted when the GPUs are done. Either way the batches are found in the
//     workload, so the packing composes with whatever policy runs the cluster.
//
// The trial model. A trial evaluates the model on one dataset on one GPU (a 7B model fits one
// A100-80GB). Its phases:
//   load        the model's weights into GPU memory: from remote storage (coupled), at
//               storage_gbps shared equally by every GPU of the evaluation loading at that
//               instant (fluid sharing, recomputed at every phase change); or from the node's host
//               memory over PCIe at pcie_gbps per GPU (decoupled), after the node fetched the model
//               once from remote storage (the nodes fetch at once, sharing storage_gbps).
//   preprocess  dataset loading and prompt building; CPU-side, the GPU held and idle.
//   infer       GPU inference: the only phase that uses the GPU.
//   metric      metric computation (correctness tests, scoring) on CPU.
// Coupled: each trial is a job holding its GPU through load, preprocess, infer and metric; trials
// start in catalogue order on the lowest-numbered free GPU (list scheduling).
// Decoupled: each dataset's GPU work (preprocess + infer) longer than the balance target
// max(total GPU work / GPUs, split_min_s) is split into equal pieces no longer than the target;
// the pieces are packed longest first (LPT) onto the GPU with the least work (ties: lowest
// index); each GPU runs its pieces as one batch job that loads the model once from host memory
// (short datasets are thereby batched); a piece's share of its dataset's metric becomes a CPU
// task released when its inference ends, run first-come first-served by metric_workers_per_node
// workers of the piece's node, holding no GPU. The GPU jobs start when their node's fetch ends.
// The makespan is the end of the last phase of any kind.
//
// Cost: evaluate() is O(P^2 + P G) for P trials or pieces and G GPUs (microseconds for 63).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "sim/cluster_spec.h"
#include "sim/job.h"
#include "sim/outcome.h"
#include "io/params.h"

namespace acme {

// One benchmark dataset: seconds of each phase of its trial on one GPU (load excluded: it
// depends on where the model comes from and on contention).
struct EvalDataset {
  std::string name;
  double preprocess_s = 0;
  double infer_s = 0;
  double metric_s = 0;
};

// A model and the datasets it is evaluated on (configs/eval/*.yaml). Every field states its
// default; experiments/eval_decoupling/README.md derives the shipped catalogue.
struct EvalCatalogue {
  std::string model = "7B";
  double model_gb = 14;               // weights, GB (7B parameters in fp16)
  double storage_gbps = 10;           // remote storage bandwidth for the evaluation, Gb/s, shared
  double pcie_gbps = 128;             // host memory to one GPU, Gb/s (PCIe 4.0 x16, effective)
  int metric_workers_per_node = 16;   // decoupled: CPU metric tasks at once per node
  double split_min_s = 600;           // decoupled: never split a dataset into pieces shorter
  std::vector<EvalDataset> datasets;  // in submission order
};

// Reads and checks a catalogue; InputError names file, line and key.
EvalCatalogue load_eval_catalogue(const std::string& path);

enum class EvalMode : std::uint8_t { Coupled, Decoupled };
enum class EvalPhase : std::uint8_t { Fetch, RemoteLoad, LocalLoad, Preprocess, Infer, Metric };
inline constexpr const char* kEvalPhaseNames[] = {"fetch", "remote_load", "local_load", "preprocess", "infer",
                                                  "metric"};

// One phase of one trial (or piece) in a schedule. gpu is -1 for work that holds no GPU (a
// node's fetch, a decoupled metric task).
struct EvalSpan {
  int dataset = -1;  // index into the catalogue; -1 for a node's fetch
  int piece = 0;     // piece of a split dataset, 0-based
  EvalPhase phase = EvalPhase::Infer;
  int gpu = -1;      // global GPU index, node = gpu / gpus_per_node
  int node = 0;
  double start = 0, end = 0;  // seconds from the start of the evaluation
};

struct EvalSchedule {
  std::vector<EvalSpan> spans;  // coupled: as phases end (ties: GPU order); decoupled: fetches,
                                // then GPU by GPU, then metric tasks node by node
  double makespan_s = 0;
  double gpu_held_s = 0;        // GPU-seconds held by the evaluation's GPU jobs
  double gpu_infer_s = 0;       // of which inferring
  double gpu_idle_s() const { return gpu_held_s - gpu_infer_s; }
  double phase_s[6] = {};       // seconds summed by phase (EvalPhase order), held or not
};

// The schedule of one evaluation of every dataset of `c`.
// REQUIRES: nodes >= 1, gpus_per_node >= 1, c.datasets not empty, bandwidths > 0.
EvalSchedule evaluate(const EvalCatalogue& c, int nodes, int gpus_per_node, EvalMode mode);

// Shares of a coupled Eval job's run time, for the cluster-level transformation.
struct EvalShares {
  double remote_load = 0.0;  // loading the model from remote storage
  double preprocess = 0.0;
  double metric = 0.0;
  double local_load = 0.0;   // what loading from host memory would take instead
  // The share of a coupled Eval GPU job's run with its GPUs idle (loading, preprocessing and
  // metric computation), counted as wasted, cause eval_idle.
  double idle() const { return remote_load + preprocess + metric; }
  double infer() const { return 1.0 - idle(); }
};

// The shares of c's coupled schedule on one node: phase GPU-seconds over held GPU-seconds.
EvalShares shares_of(const EvalCatalogue& c, int gpus_per_node);

// The shares of the shipped catalogue (configs/eval/llm7b_63.yaml) on 8-GPU nodes, rounded to
// 4 decimals, for coupled runs (which need no catalogue file); a test keeps them equal to
// shares_of() of that file.
inline constexpr EvalShares kDefaultEvalShares{0.0310, 0.2680, 0.1843, 0.0006};

// Groups the Eval jobs that ask for GPUs into evaluations, one per checkpoint: in submit order
// (ties: JobId), a job submitted at most `gap` after the previous such job joins its evaluation.
// The synthetic workload submits a checkpoint's batch 2 s apart; a real trace's batches look the
// same, and unrelated Eval jobs that happen to come that close are counted as one evaluation.
// Cost: O(n); when they are not in submit order, O(e log e) and a list of them, for e Eval GPU jobs.
EvaluationIndex group_evaluations(const Workload& w, Time gap);

// How decoupled evaluations are run on the cluster (the catalogue gives the model's size, the
// bandwidths, the metric workers and split_min_s; its datasets are not used).
struct EvalPacking {
  EvalCatalogue model;
  int nodes = 1;           // nodes of a packed evaluation job, at most (each fetches the model once)
  int gpus_per_node = 8;
  int metric_cpus = 8;     // cores per metric task
  int cpus_per_node = 128; // no job asks for more cores
};

// The workload with every evaluation of `groups` run decoupled, and its evaluation index.
// Each evaluation's COMPLETED one-GPU trials become:
//   - one packed GPU job with a GPU per trial, up to packing.nodes whole nodes (the same number
//     on each node it needs, rounded down), as many cores per GPU as the hungriest trial, submitted with
//     the evaluation's last trial, named "<first trial>#eval<trials>": a trial of recorded run r
//     is preprocess r x shares.preprocess, inference r x shares.infer() and metric
//     r x shares.metric; evaluate() schedules them decoupled on those GPUs (each node fetches
//     once, loads from host memory, splits and LPT-packs by known run times); the job runs until its last
//     GPU is done; its own idle share (JobProfile::idle_share) is 1 - inference / GPU-seconds held;
//   - when metric work is left once the GPUs are done, a CPU-only job "<first trial>#metric"
//     that waits for the packed job (Workload::after) and runs what is left, on metric_cpus cores
//     per metric task still running then (at most cpus_per_node); it holds no GPU.
// Every other Eval GPU job (failed or cancelled, or of more than one GPU) stays one job, run
// shortened by the remote load and the metric (x (1 - remote_load - metric + local_load)), its
// idle share (local load and preprocess) its own; a COMPLETED one is followed by a metric job
// of run x metric seconds on metric_cpus cores that waits for it. Other jobs are unchanged.
// Cost: O(n) plus evaluate() per evaluation, and one copy of the workload.
struct EvalRewrite {
  Workload workload;
  EvaluationIndex index;  // of `workload`
};
EvalRewrite decouple_evaluations(const Workload& w, const EvaluationIndex& groups, const EvalShares& shares,
                                 const EvalPacking& packing);

// The run's evaluation model, from eval.* read through `params`: eval.catalogue (the shares and
// the model; default kDefaultEvalShares and, decoupled, the model of `shipped_catalogue`),
// eval.idle (count eval_idle waste), eval.group_gap_s, eval.metric_cpus and eval.pack_nodes.
// InputError for a bad catalogue.
struct EvalSettings {
  bool decoupled = false;  // the run's `eval` key
  bool idle = true;
  Time gap;
  EvalShares shares;
  EvalPacking packing;  // its model loaded when decoupled or given a catalogue
};
EvalSettings read_eval_settings(Params& params, bool decoupled, const ClusterSpec& cluster,
                                const std::string& shipped_catalogue);

// What the model does to a run of `w`. Decoupled, the workload is rewritten into a copy (unless it
// has no Eval GPU job); coupled, it stays as it is and costs no copy. The index is made when
// `index` is set or the run is decoupled.
struct EvalSetup {
  std::optional<Workload> rewritten;  // decoupled: the workload to run instead
  std::optional<EvaluationIndex> index;
  double idle_share = 0;              // of an Eval job's compute, wasted as eval_idle (coupled)
};
EvalSetup apply_evaluation(const Workload& w, const EvalSettings& settings, bool index);

}  // namespace acme
