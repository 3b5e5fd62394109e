#!/usr/bin/env bash
# Calibration of the synthetic workloads: six months of synthetic Seren and the Kalos window,
# default seed (1), through `acmesim calibrate` into seren/ and kalos/ here (calibration.csv and
# the plots); then seeds 2-5 of each, whose pass counts go into seeds.csv with seed 1's; then the
# README's tables (table.py). About 20 s.
# Traces go to out/calibration/ (not committed). `calibrate` exits 1 when a statistic is out of
# tolerance; that is a result here, not an error.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
here=experiments/calibration
out=out/calibration
mkdir -p "$out"
window() {  # window CLUSTER -> "FROM TO"
  case $1 in seren) echo "2023-03-01 2023-09-01" ;; kalos) echo "2023-05-17 2023-08-17" ;; esac
}
echo "cluster,seed,jobs,gpu_jobs,passed,gated,failed_statistics" >"$here/seeds.csv"
for cluster in seren kalos; do
  read -r from to < <(window "$cluster")
  for seed in 1 2 3 4 5; do
    trace="$out/${cluster}_seed$seed.csv"
    build/acmesim gen --cluster "$cluster" --from "$from" --to "$to" --seed "$seed" -o "$trace" 2>/dev/null
    dir="$out/${cluster}_seed$seed"
    build/acmesim calibrate "$trace" --cluster "$cluster" --out "$dir" >"$out/${cluster}_seed$seed.txt" 2>&1 || true
    # "N jobs, M GPU jobs: P of G statistics within tolerance"
    read -r jobs gpu_jobs passed gated < <(sed -nE 's/^([0-9]+) jobs, ([0-9]+) GPU jobs: ([0-9]+) of ([0-9]+) statistics.*/\1 \2 \3 \4/p' \
      "$out/${cluster}_seed$seed.txt")
    failed=$(awk -F, 'NR > 1 && $6 == "fail" { printf "%s%s (%s)", sep, $1, $4; sep = "; " }' "$dir/calibration.csv")
    echo "$cluster,$seed,$jobs,$gpu_jobs,$passed,$gated,\"$failed\"" >>"$here/seeds.csv"
    echo "$cluster seed $seed: $passed of $gated" >&2
    if [ "$seed" = 1 ]; then  # the default seed's table and plots are committed (not the plots' data/)
      mkdir -p "$here/$cluster"
      cp "$dir/calibration.csv" "$dir/duration_cdf.png" "$dir/gpu_demand.png" "$here/$cluster/"
    fi
  done
done
/usr/bin/python3 "$here/table.py" "$here" "$here/README.md"  # the README's tables
cat "$here/seeds.csv"
