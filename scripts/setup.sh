#!/usr/bin/env bash
# Installs what acmesim needs from Debian's packages. Idempotent: returns at once when all is there.
# Usage: scripts/setup.sh [--run]
#   (none)  everything: the run's packages, then the tests', benchmarks', Python module's,
#           notebooks', MPI's, Slurm's (tests/cli/test_sweep_slurm.sh) and the fuzzers' (clang)
#   --run   only what building and running build/acmesim needs (scripts/run.sh): compiler, CMake,
#           Ninja and the libraries it links
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config libboost-graph-dev nlohmann-json3-dev libyaml-cpp-dev
          libspdlog-dev libcli11-dev zlib1g-dev)
[ "${1:-}" = --run ] ||
  packages+=(catch2 libbenchmark-dev python3-matplotlib python3-pandas python3-scipy time
             openmpi-bin libopenmpi-dev jupyter-core jupyter-nbconvert jupyter-notebook python3-nbformat
             python3-ipykernel python3-dev pybind11-dev python3-pytest  # the Python module and its tests
             python3-pip python3-venv  # pip install . (tests/cli/test_pip_install.sh)
             slurm-wlm munge  # a one-node Slurm cluster for tests/cli/test_sweep_slurm.sh
             clang libclang-rt-14-dev)  # clang + its runtime: libFuzzer (scripts/fuzz.sh)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
