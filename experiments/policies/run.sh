#!/usr/bin/env bash
# Every policy on one month of synthetic Seren and of synthetic Kalos (or on real traces:
# SEREN_TRACE=trace_seren.csv KALOS_TRACE=trace_kalos.csv experiments/policies/run.sh).
# Writes out/policies/<cluster>/<policy>/ and, here, results.csv, results.md and the plots.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
policies=(acme fifo priority quota backfill sjf srtf)
for cluster in seren kalos; do
  trace_var="${cluster^^}_TRACE"
  extra=()
  [ -n "${!trace_var:-}" ] && extra=(--set "workload.trace=${!trace_var}")
  for policy in "${policies[@]}"; do
    out="out/policies/$cluster/$policy"
    build/acmesim run "configs/$cluster.yaml" -q --set policy.name="$policy" "${extra[@]}" \
      --set outputs=summary,waste,run_json --out "$out" 2>/dev/null
    echo "$cluster $policy done" >&2
  done
done
/usr/bin/python3 experiments/policies/plot.py out/policies experiments/policies
