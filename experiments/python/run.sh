#!/usr/bin/env bash
# The Python module's cost against the C++ policy and the command line (README.md here).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
/usr/bin/python3 experiments/python/measure.py build
