#!/usr/bin/env bash
# Everything on a fresh machine: install, build (Release), run the default configuration
# (one month of synthetic Seren-like workload under the Acme baseline, policy acme) and print its
# summary. Arguments go to `acmesim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build/acmesim run configs/seren.yaml --out out/seren-default "$@"
