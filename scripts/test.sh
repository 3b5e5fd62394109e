#!/usr/bin/env bash
# Everything on a fresh machine: install, build with warnings as errors, run every test via ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh -DACMESIM_WERROR=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"
