#!/usr/bin/env bash
# Cost against queue depth: every registered policy replays traces of a second generator
# (scripts/depth_trace.py, not `acmesim gen`: another type and size mix, jobs up to a quarter of the
# cluster, bursts of up to 2,000 jobs in a second) at offered loads 0.5, 1.0 and 1.5 on Seren's
# shipped configuration, configs/seren.yaml as it is when run (223 nodes reserved for pretraining
# and debugging, 63 left to every other job, when the committed depth.csv ran on 2026-12-02), with
# every output and with the summary only, each run alternated with FIFO's on the same trace and outputs.
# Writes experiments/performance/depth.csv:
#   trace,schema,load,jobs,policy,outputs,runs,wall_s_median,fifo_s_median,ratio,pending_mean,
#   pending_peak,date,machine
# (pending_*: jobs waiting, from the run's timeseries.csv, mean over intervals and peak), then the
# plot depth.png (ratio to FIFO against mean jobs waiting, a line per policy) and a table.
# Usage: experiments/performance/depth.sh [--jobs N[,N...]] [--runs N] [--no-build]
#   (default: 200000,1000000 jobs a trace, 2 runs; about 25 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
job_counts=200000,1000000 runs=2 build=1
while [ $# -gt 0 ]; do
  case $1 in
    --jobs) job_counts=$2; shift ;;
    --runs) runs=$2; shift ;;
    --no-build) build=0 ;;
    *) echo "usage: experiments/performance/depth.sh [--jobs N[,N...]] [--runs N] [--no-build]" >&2; exit 2 ;;
  esac
  shift
done
[ $build = 1 ] && scripts/build.sh >/dev/null
bin=build/acmesim dir=${BENCH_DIR:-/tmp/acmesim-bench}/depth out=experiments/performance
mkdir -p "$dir"
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
policies=$($bin list | sed -n '/^Policies/,/^[A-Z]/{s/^  \([a-z_]*\)  .*/\1/p}')
today=$(date -u +%F)
machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr -d ','); $(nproc) cores; $(free -g | awk '/^Mem:/ {print $2}') GiB"
median_of() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
run_once() {  # trace outputs policy -> wall seconds
  rm -rf "$dir/out"
  /usr/bin/time -f '%e' -o "$dir/time.txt" "${pin[@]}" $bin run configs/seren.yaml -q --set workload.trace="$1" \
    --set outputs="$2" --set policy.name="$3" --set cache.enabled=false --out "$dir/out" 2>/dev/null
  cat "$dir/time.txt"
}
csv=$out/depth.csv
echo "trace,schema,load,jobs,policy,outputs,runs,wall_s_median,fifo_s_median,ratio,pending_mean,pending_peak,date,machine" > "$csv"
for jobs in ${job_counts//,/ }; do
  for load in 0.5 1.0 1.5; do
    trace=$dir/depth_${jobs}_$load.csv
    [ -s "$trace" ] || /usr/bin/python3 scripts/depth_trace.py --jobs "$jobs" --load "$load" --seed 1 -o "$trace"
    for policy in $policies; do
      for outputs in jobs,timeseries,summary,waste,run_json summary; do
        walls=() fifo_walls=()
        for _ in $(seq "$runs"); do
          fifo_walls+=("$(run_once "$trace" "$outputs" fifo)")
          walls+=("$(run_once "$trace" "$outputs" "$policy")")
        done
        rm -rf "$dir/out"  # the depth this policy keeps: one more run, with its timeseries
        $bin run configs/seren.yaml -q --set workload.trace="$trace" --set outputs=timeseries,summary \
          --set policy.name="$policy" --set cache.enabled=false --out "$dir/out" 2>/dev/null
        read -r pending_mean pending_peak < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "jobs_pending") c = i; next }
          { s += $c; n++; if ($c > m) m = $c } END { printf "%.0f %d\n", s / n, m }' "$dir/out/timeseries.csv")
        shown=summary; [ "$outputs" = summary ] || shown=every
        wall=$(median_of "${walls[@]}") fifo=$(median_of "${fifo_walls[@]}")
        ratio=$(awk -v a="$wall" -v b="$fifo" 'BEGIN { printf "%.2f", a / b }')
        echo "depth_trace,seren,$load,$jobs,$policy,$shown,$runs,$wall,$fifo,$ratio,$pending_mean,$pending_peak,$today,$machine" >> "$csv"
        printf '%-8s %-4s %-9s %-8s %6s s  fifo %6s s  %5sx  waiting mean %6s peak %6s\n' "$jobs" "$load" "$policy" "$shown" "$wall" \
          "$fifo" "$ratio" "$pending_mean" "$pending_peak"
      done
    done
  done
done
/usr/bin/python3 experiments/performance/depth.py
