#!/usr/bin/env bash
# Whole-replay benchmark: generates a Seren-scale trace (about 1 million jobs over six months, in
# the trace_seren.csv schema) once, then replays it under FIFO on one core, three times with every
# output and three times with the summary only, printing wall time and peak memory of each run.
# Usage: scripts/bench_replay.sh [policy]   (default fifo)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
policy=${1:-fifo}
dir=${BENCH_DIR:-/tmp/acmesim-bench}
mkdir -p "$dir"
trace="$dir/seren_6m_1M.csv"
if [ ! -s "$trace" ]; then
  build/acmesim gen --cluster seren --from 2023-03-01 --to 2023-09-01 --load 1.25 --seed 1 -o "$trace"
fi
printf '%-28s %8s %10s\n' "run" "wall_s" "peak_MB"
for outputs in jobs,timeseries,summary,run_json summary; do
  for i in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" taskset -c 0 build/acmesim run configs/seren.yaml -q \
      --set workload.trace="$trace" --set workload.from= --set workload.to= \
      --set policy.name="$policy" --set outputs="$outputs" --out "$dir/out" 2>/dev/null
    read -r wall kb < "$dir/time.txt"
    label="$policy, summary only"
    [ "$outputs" = summary ] || label="$policy, every output"
    printf '%-28s %8s %10d\n' "$label" "$wall" "$((kb / 1024))"
  done
done
