#!/usr/bin/env bash
# Installs what acmesim needs from Debian's packages. Idempotent: returns at once when all is there.
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config libboost-graph-dev nlohmann-json3-dev libyaml-cpp-dev
          libspdlog-dev catch2 libbenchmark-dev libcli11-dev python3-matplotlib python3-pandas time
          openmpi-bin libopenmpi-dev jupyter-core jupyter-nbconvert jupyter-notebook python3-nbformat
          python3-ipykernel python3-dev pybind11-dev python3-pytest  # the Python module and its tests
          python3-pip python3-venv  # pip install . (tests/cli/test_pip_install.sh)
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
