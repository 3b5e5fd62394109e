#!/usr/bin/env bash
# Configures and builds acmesim into build/ (Release): installs what is missing
# (scripts/setup.sh) and builds every target, tests and benchmarks included.
# Usage: scripts/build.sh [--run] [cmake configure arguments...]
#   --run  only what a run needs (scripts/setup.sh --run) and only the acmesim target
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(); setup=()
[ "${1:-}" = --run ] && { shift; targets=(--target acmesim); setup=(--run); }
scripts/setup.sh "${setup[@]}"
mpi=(); command -v mpicc >/dev/null && mpi=(-DACMESIM_MPI=ON)  # sweeps across machines
# One configure-and-build at a time: scripts/docs_check.sh runs two experiments at once, and each
# run.sh calls this script.
mkdir -p build
exec {lock}>build/.build.lock
flock "$lock"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${mpi[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)" "${targets[@]}"
