#!/usr/bin/env bash
# What the training-at-scale features cost (issue 42's target: every one on within 1.2x of FIFO on
# the 1M-job benchmark): instruction counts (valgrind callgrind, so that how busy the machine is does
# not count) of FIFO on scripts/bench.sh's 1M-job Seren trace, every output and the training output,
# on one thread, the parsed-trace cache warm, with the features off and with failures (multilevel
# checkpoints) and slow nodes (evicted) on. Writes features_cost.csv here: run,instructions,over_off,date,machine.
# About 10 minutes (each run about 4 under callgrind).
# Usage: experiments/performance/features_cost.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
dir=${BENCH_DIR:-/tmp/acmesim-bench}
trace=$dir/seren_6m_1M.csv
[ -s "$trace" ] || build/acmesim gen --cluster seren --from 2023-03-01 --to 2023-09-01 --load 1.25 --seed 1 -o "$trace"  # as bench.sh
replay() {  # [command prefix...] -- settings...: the replay, its parsed-trace cache warm after the first
  local prefix=()
  while [ "$1" != -- ]; do prefix+=("$1"); shift; done
  shift
  "${prefix[@]}" build/acmesim run configs/seren.yaml -q \
    --set cluster=configs/clusters/seren.yaml --set workload.trace="$trace" --set workload.from= --set workload.to= \
    --set outputs=jobs,timeseries,summary,waste,run_json,training --set policy.name=fifo -j 1 \
    --out "$dir/out-features" "$@" >/dev/null 2>&1
}
instructions() {
  replay valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" -- "$@"
  callgrind_annotate "$dir/callgrind.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
replay --  # once outside the count, so that both counted runs read the trace from a warm cache
machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr -d ','); $(nproc) cores; $(free -g | awk '/^Mem:/ {print $2}') GiB"
out=experiments/performance/features_cost.csv
off=$(instructions)
on=$(instructions --set failures.enabled=true --set failures.checkpoint_mode=multilevel \
  --set stragglers.enabled=true --set stragglers.mitigation=evict)
{
  echo "run,instructions,over_off,date,machine"
  echo "features off,$off,1.000,$(date -u +%F),$machine"
  echo "failures (multilevel) + slow nodes (evicted),$on,$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }'),$(date -u +%F),$machine"
} | tee "$out"
