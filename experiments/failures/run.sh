#!/bin/sh
# Issue 6: the failure model's validation against its table, then the checkpoint/recovery sweep.
# Usage: experiments/failures/run.sh [BUILD_DIR]   (from anywhere; default build dir: build)
# Writes validation.csv, validation.txt, experiment.csv, optimum.txt and experiment.png here;
# raw run outputs go to out/failures/ (not committed). About 15 s.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
cd "$root"
if [ ! -x "$build/acmesim" ] || [ ! -x "$build/acmesim_failure_validation" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target acmesim acmesim_failure_validation
fi
# 1. Validation: 50 failure seeds on the Kalos-like population (experiments/failures/validate.cpp).
"$build/acmesim_failure_validation" "$root" 50 >"$here/validation.csv" 2>"$here/validation.txt"
# 2. Experiment: one month of synthetic Kalos, 7 intervals x sync/async x manual/automatic, FIFO.
rm -rf out/failures/sweep
"$build/acmesim" sweep "$here/sweep.yaml" --out out/failures/sweep 2>/dev/null
/usr/bin/python3 "$here/analyze.py" out/failures/sweep "$here"
cat "$here/validation.txt" "$here/experiment.csv" "$here/optimum.txt"
