#!/usr/bin/env bash
# Configures and builds acmesim into build/ (Release). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
"$(dirname "$0")/setup.sh"
mpi=(); command -v mpicc >/dev/null && mpi=(-DACMESIM_MPI=ON)  # sweeps across machines
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${mpi[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)"
