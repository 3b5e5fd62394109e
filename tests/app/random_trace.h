// Random AcmeTrace files for tests/app/test_random_traces.cpp: one seed gives one cluster and one
// trace file, in the Seren schema (numeric job ids, +08:00 timestamps, 13 columns) or the Kalos
// one (alphanumeric ids, +00:00, 17 columns with fail_time, stop_time and memory), with shapes the
// synthetic workloads never make:
//  - jobs of every type in a random mix (some types absent), sizes in a random mix of 1-8 GPUs,
//    odd sizes (3, 5, 7), multi-node jobs, GPUs that node_num does not divide, evaluation jobs of
//    hundreds of GPUs, a job of the whole cluster, now and then a job larger than the cluster;
//  - CPU-only jobs (gpu_num 0 or empty, node_num 0, 1 or empty), a load (GPU-time asked over the
//    span of submissions and the cluster's GPUs) between 0.3 and 3, bursts of hundreds to
//    thousands of jobs in one second, zero-length and week-long jobs;
//  - every final state of the schema (RUNNING with end_time empty or not), jobs that never started
//    (start_time empty, or CANCELLED with start_time == end_time);
//  - what real files hold: empty optional fields, quoted fields (a comma inside one), the columns
//    in another order, CRLF line ends, rows a little out of submit order.
// Deterministic: the same seed gives the same bytes on every machine.
#pragma once

#include <cstdint>
#include <string>

#include "sim/cluster_spec.h"

namespace acme::test {

struct RandomTrace {
  std::string schema;    // "seren" or "kalos"
  ClusterSpec cluster;   // 2 to 72 nodes of 8 GPUs
  std::string text;      // the CSV file, header first
  std::string shape;     // one line for a failing case's message: jobs, load, burst, ...
};

RandomTrace random_trace(std::uint64_t seed);

// The same rows in a random order drawn from `seed`, keeping the relative order of rows that the
// documentation says a tie depends on (sim/README.md: jobs of one second arrive in file order):
// rows that share a submit second, or a start second (the order of a recorded replay), keep
// their order; any other two rows may swap. The header stays first; line ends are kept.
std::string shuffled_rows(const std::string& text, std::uint64_t seed);

// A cluster file (io/cluster_file.h) that load_cluster_spec reads back as `c`, for a regression
// trace kept under tests/data/regressions/.
std::string cluster_yaml(const ClusterSpec& c);

}  // namespace acme::test
