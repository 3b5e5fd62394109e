#!/usr/bin/env bash
# The first command on a fresh machine: installs only what a run needs (scripts/setup.sh --run),
# builds only build/acmesim (Release), runs the default configuration (one month of synthetic
# Seren-like workload under the Acme baseline, policy acme) and prints its summary. Tests,
# benchmarks and the Python module are scripts/build.sh's. Arguments go to `acmesim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --run
build/acmesim run configs/seren.yaml --out out/seren-default "$@"
