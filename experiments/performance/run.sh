#!/usr/bin/env bash
# The performance suite (scripts/bench.sh: kernels and whole replays, each policy, 10k to 1M jobs,
# the 1,000-run sweep) with its CSVs written here (kernels.csv, replay.csv), then the README's
# table of them (table.py). About 10 minutes on the 2-core machine; arguments go to bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH_OUT=experiments/performance scripts/bench.sh "$@"
/usr/bin/python3 experiments/performance/table.py
