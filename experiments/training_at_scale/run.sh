#!/bin/sh
# Training at scale (issue 42): one 10,000-GPU job's effective training time under interruptions,
# checkpoints and recovery phases, with slow nodes and without; Llama 3's own setting; and the same
# model on Acme's Seren month.
# Usage: experiments/training_at_scale/run.sh [BUILD_DIR]   (from anywhere; default build dir: build)
# Writes sweep.csv, llama3.csv, acme.csv, stragglers.csv, storage.csv, levels.csv, breakdown.csv, checks.md and training_at_scale.png here; raw run
# outputs go to out/training_at_scale/ (not committed). About 70 s on two cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
cd "$root"
[ -x "$build/acmesim" ] || scripts/build.sh >/dev/null
for s in sweep llama3 acme stragglers storage levels; do
  file=$here/sweep.yaml
  [ "$s" = sweep ] || file=$here/sweep_$s.yaml
  rm -rf "out/training_at_scale/$s"
  "$build/acmesim" sweep "$file" --out "out/training_at_scale/$s" 2>/dev/null
done
/usr/bin/python3 "$here/analyze.py" out/training_at_scale "$here"
