// The paper's evaluation experiment (7B model, 63 datasets) on one and four nodes, coupled and
// decoupled: prints reproduction.csv to stdout, and with --shares the coupled one-node phase
// shares and per-mode details to stderr. Usage: acmesim_eval_repro CATALOGUE [--shares]
#include <cstdio>
#include <cstring>
#include <exception>

#include "features/evaluation.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CATALOGUE [--shares] [--spans NODES MODE]\n", argv[0]);
    return 2;
  }
  try {
    const acme::EvalCatalogue c = acme::load_eval_catalogue(argv[1]);
    constexpr int kGpusPerNode = 8;
    if (argc >= 5 && std::strcmp(argv[2], "--spans") == 0) {
      const int nodes = std::atoi(argv[3]);
      const auto mode = std::strcmp(argv[4], "decoupled") == 0 ? acme::EvalMode::Decoupled : acme::EvalMode::Coupled;
      const acme::EvalSchedule s = acme::evaluate(c, nodes, kGpusPerNode, mode);
      std::printf("dataset,name,piece,phase,gpu,node,start_s,end_s\n");
      for (const acme::EvalSpan& x : s.spans)
        std::printf("%d,%s,%d,%s,%d,%d,%.3f,%.3f\n", x.dataset, x.dataset >= 0 ? c.datasets[x.dataset].name.c_str() : "",
                    x.piece, acme::kEvalPhaseNames[static_cast<int>(x.phase)], x.gpu, x.node, x.start, x.end);
      return 0;
    }
    const double paper[] = {1.3, 1.8};
    const int nodes[] = {1, 4};
    std::printf("nodes,coupled_makespan_s,decoupled_makespan_s,ratio,paper_ratio,coupled_gpu_idle_s,"
                "decoupled_gpu_idle_s,coupled_gpu_held_s,decoupled_gpu_held_s\n");
    for (int k = 0; k < 2; ++k) {
      const acme::EvalSchedule a = acme::evaluate(c, nodes[k], kGpusPerNode, acme::EvalMode::Coupled);
      const acme::EvalSchedule b = acme::evaluate(c, nodes[k], kGpusPerNode, acme::EvalMode::Decoupled);
      std::printf("%d,%.0f,%.0f,%.3f,%.1f,%.0f,%.0f,%.0f,%.0f\n", nodes[k], a.makespan_s, b.makespan_s,
                  a.makespan_s / b.makespan_s, paper[k], a.gpu_idle_s(), b.gpu_idle_s(), a.gpu_held_s, b.gpu_held_s);
    }
    if (argc >= 3 && std::strcmp(argv[2], "--shares") == 0) {
      const acme::EvalShares s = acme::shares_of(c, kGpusPerNode);
      std::fprintf(stderr,
                   "coupled one-node shares of held GPU-time: remote_load %.4f preprocess %.4f (loading+preprocessing "
                   "%.4f) metric %.4f infer %.4f; local_load %.4f\n",
                   s.remote_load, s.preprocess, s.remote_load + s.preprocess, s.metric, 1 - s.idle(), s.local_load);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
