#!/usr/bin/env bash
# The benchmark suite, one command: Google Benchmark kernels, then whole replays of AcmeTrace-schema
# traces on one core (taskset -c 0), each policy with every output and with the summary only, at
# 10k, 100k and 1M jobs on Seren (286 nodes) and 1M jobs on a 10,000-node cluster; FIFO on every
# core (case "<N>cores", beside one `awk -F,` pass over the same file); and the 1,000-run sweep. Replays parse their trace (cache.enabled=false) but the FIFO rows "+cache_cold"
# (the cache removed before each run: parse and write it) and "+cache_warm" (read from it), whose
# cache is $BENCH_DIR/cache. Prints a table and writes the numbers as CSV:
#   $BENCH_OUT/kernels.csv  Google Benchmark's CSV (name, iterations, real_time, cpu_time, ...)
#   $BENCH_OUT/replay.csv   case,policy,jobs,nodes,outputs,runs,wall_s_median,wall_s_min,peak_mib,target_s,
#                           fifo_s_median (rows with a target in x FIFO: FIFO's runs, alternated with
#                           theirs), date, machine (the day, UTC, and the machine's CPUs, cores, memory)
# Usage: scripts/bench.sh [--smoke] [--no-build] [--build-dir DIR] [--runs N] | --depth [ARGS]
#   --depth     cost against queue depth instead: experiments/performance/depth.sh ARGS (every
#               policy on a second generator's deep-queue traces, alternated with FIFO; depth.csv)
#   --smoke     10k jobs of a 3-day trace, one run each, kernels for a moment: what CI runs (ctest
#               bench_script_smoke) so that nothing rots
#   --no-build  use the build folder as it is (default build/; --build-dir another)
#   --runs N    repetitions of each replay (default 3; the median and the fastest are reported)
# Traces are generated once (acmesim gen, seed 1) and kept in $BENCH_DIR (default /tmp/acmesim-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = --depth ] && shift && exec experiments/performance/depth.sh "$@"
smoke=0 build=1 runs=3 bin_dir=build
while [ $# -gt 0 ]; do
  case $1 in
    --smoke) smoke=1; runs=1 ;;
    --no-build) build=0 ;;
    --build-dir) bin_dir=$2; build=0; shift ;;
    --runs) runs=$2; shift ;;
    *) echo "usage: scripts/bench.sh [--smoke] [--no-build] [--build-dir DIR] [--runs N]" >&2; exit 2 ;;
  esac
  shift
done
[ $build = 1 ] && scripts/build.sh >/dev/null
bin=$bin_dir/acmesim
dir=${BENCH_DIR:-/tmp/acmesim-bench}
out=${BENCH_OUT:-$dir/results}
mkdir -p "$dir" "$out"
export ACMESIM_CACHE_DIR=$dir/cache
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)

echo "== kernels (Google Benchmark) =="
min_time=0.2; [ $smoke = 1 ] && min_time=0.01
"${pin[@]}" "$bin_dir/acmesim_bench" --benchmark_min_time="$min_time" --benchmark_out="$out/kernels.csv" \
  --benchmark_out_format=csv

# Traces: the first N jobs of a six-month Seren trace of about 1M jobs (load 1.25), and 1M jobs on
# a 10,000-node cluster (the same model at 35x the load, over five days).
seren_1m=$dir/seren_6m_1M.csv
if [ $smoke = 1 ]; then
  seren_1m=$dir/seren_3d_smoke.csv  # about 17k jobs: only its first 10k are replayed
  [ -s "$seren_1m" ] || $bin gen --cluster seren --from 2023-03-01 --to 2023-03-04 --load 1.25 --seed 1 -o "$seren_1m"
fi
[ -s "$seren_1m" ] || $bin gen --cluster seren --from 2023-03-01 --to 2023-09-01 --load 1.25 --seed 1 -o "$seren_1m"
first_jobs() {  # N -> a trace of the first N jobs
  local f=$dir/$(basename "$seren_1m" .csv)_first_$1.csv
  [ -s "$f" ] || head -n $(($1 + 1)) "$seren_1m" > "$f"
  echo "$f"
}
big_cluster=$dir/cluster_10k.yaml
sed 's/^nodes: .*/nodes: 10000/; s/^name: .*/name: big10k/' configs/clusters/seren.yaml > "$big_cluster"
big_trace=$dir/big10k_1M.csv
if [ $smoke = 0 ] && [ ! -s "$big_trace" ]; then
  $bin gen --cluster seren --cluster-file "$big_cluster" --from 2023-03-01 --to 2023-03-06 --load 44 --seed 1 -o "$big_trace"
fi

today=$(date -u +%F)
machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr -d ','); $(nproc) cores; $(free -g | awk '/^Mem:/ {print $2}') GiB"
echo "case,policy,jobs,nodes,outputs,runs,wall_s_median,wall_s_min,peak_mib,target_s,fifo_s_median,date,machine" > "$out/replay.csv"
printf '\n== whole replays (one core, %s run(s) each) ==\n' "$runs"
printf '%-10s %-20s %8s %6s %-8s %9s %9s %8s %8s\n' case policy jobs nodes outputs median_s min_s peak_MiB target_s
run_once() {  # trace cluster outputs settings... -> the wall time, s; the peak in $dir/time.txt
  local trace=$1 cluster=$2 outputs=$3
  shift 3
  rm -rf "$dir/out"
  /usr/bin/time -f '%e %M' -o "$dir/time.txt" "${pin[@]}" $bin run configs/seren.yaml -q \
    --set cluster="$cluster" --set workload.trace="$trace" --set workload.from= --set workload.to= \
    --set outputs="$outputs" --out "$dir/out" --set cache.enabled=false "$@" 2>/dev/null
  cut -d' ' -f1 "$dir/time.txt"
}
median_of() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
# A row of replay.csv. Rows with a target relative to FIFO ("...xfifo") alternate their runs with
# FIFO's on the same trace and outputs, and keep FIFO's median beside theirs (fifo_s_median): the
# ratio of runs back to back, which the machine's drift over the suite does not skew.
replay() {  # case label trace cluster jobs nodes outputs target -- settings...
  local case=$1 label=$2 trace=$3 cluster=$4 jobs=$5 nodes=$6 outputs=$7 target=$8
  shift 8
  local walls=() fifo_walls=() peak=0 kb
  for _ in $(seq "$runs"); do
    [[ $target == *xfifo ]] && fifo_walls+=("$(run_once "$trace" "$cluster" "$outputs" --set policy.name=fifo)")
    [[ $label == *cache_cold ]] && rm -rf "$ACMESIM_CACHE_DIR"
    walls+=("$(run_once "$trace" "$cluster" "$outputs" "$@")")
    kb=$(cut -d' ' -f2 "$dir/time.txt")
    peak=$((kb / 1024))
  done
  local median min fifo_median=
  median=$(median_of "${walls[@]}")
  min=$(printf '%s\n' "${walls[@]}" | sort -g | head -1)
  [ ${#fifo_walls[@]} -gt 0 ] && fifo_median=$(median_of "${fifo_walls[@]}")
  local shown=summary; [ "$outputs" = summary ] || shown=every
  printf '%-10s %-20s %8s %6s %-8s %9s %9s %8s %8s %s\n' "$case" "$label" "$jobs" "$nodes" "$shown" "$median" "$min" "$peak" \
    "$target" "${fifo_median:+(FIFO beside it: $fifo_median)}"
  echo "$case,$label,$jobs,$nodes,$shown,$runs,$median,$min,$peak,$target,$fifo_median,$today,$machine" >> "$out/replay.csv"
}
every=jobs,timeseries,summary,waste,run_json
seren_cluster=configs/clusters/seren.yaml
full=$(($(wc -l < "$seren_1m") - 1))  # the whole trace: about a million jobs
sizes=(10000 100000 "$full"); [ $smoke = 1 ] && sizes=(10000)
for n in "${sizes[@]}"; do
  trace=$seren_1m; [ "$n" = "$full" ] || trace=$(first_jobs "$n")
  target_every=; target_summary=
  [ "$n" = "$full" ] && target_every=1.0 && target_summary=0.5
  replay seren fifo "$trace" $seren_cluster "$n" 286 $every "$target_every" --set policy.name=fifo
  replay seren fifo "$trace" $seren_cluster "$n" 286 summary "$target_summary" --set policy.name=fifo
done
# The trace cache on the largest trace: building it (cold), then mapping it (warm; issue 22's target
# for every output is 0.3 s).
n=${sizes[-1]}; trace=$seren_1m; [ "$n" = "$full" ] || trace=$(first_jobs "$n")
for outputs in $every summary; do
  replay seren "fifo+cache_cold" "$trace" $seren_cluster "$n" 286 $outputs "" --set policy.name=fifo --set cache.enabled=true
  target=; [ "$n" = "$full" ] && [ $outputs = $every ] && target=0.3
  replay seren "fifo+cache_warm" "$trace" $seren_cluster "$n" 286 $outputs "$target" --set policy.name=fifo --set cache.enabled=true
done
# Both cores (issue 22's targets: every output 0.5 s, the summary only 0.35 s, every output from the
# warm cache 0.3 s, and at most 2x one awk pass over the same file): FIFO unpinned, reading and
# writing on every usable core (-j's default), and the awk pass as the yardstick.
n=${sizes[-1]}; trace=$seren_1m; [ "$n" = "$full" ] || trace=$(first_jobs "$n")
both="$(nproc)cores" pinned=("${pin[@]}"); pin=()
target_every=; target_summary=; target_warm=
[ "$n" = "$full" ] && target_every=0.5 && target_summary=0.35 && target_warm=0.3
replay "$both" fifo "$trace" $seren_cluster "$n" 286 $every "$target_every" --set policy.name=fifo
replay "$both" fifo "$trace" $seren_cluster "$n" 286 summary "$target_summary" --set policy.name=fifo
replay "$both" "fifo+cache_warm" "$trace" $seren_cluster "$n" 286 $every "$target_warm" --set policy.name=fifo \
  --set cache.enabled=true
walls=()
for _ in $(seq "$runs"); do
  /usr/bin/time -f '%e %M' -o "$dir/time.txt" awk -F, '{ n += $5 } END { print n }' "$trace" >/dev/null
  read -r wall kb < "$dir/time.txt"
  walls+=("$wall")
done
median=$(median_of "${walls[@]}") min=$(printf '%s\n' "${walls[@]}" | sort -g | head -1)
printf '%-10s %-20s %8s %6s %-8s %9s %9s %8s %8s\n' "$both" "awk" "$n" "" "-" "$median" "$min" "$((kb / 1024))" ""
echo "$both,awk,$n,,-,$runs,$median,$min,$((kb / 1024)),,,$today,$machine" >> "$out/replay.csv"
pin=("${pinned[@]}")
# Every policy, evaluation decoupling and failure injection on the largest Seren trace: within 2x of FIFO.
n=${sizes[-1]}; trace=$seren_1m; [ "$n" = "$full" ] || trace=$(first_jobs "$n")
for policy in acme greedy priority quota backfill sjf srtf; do
  for outputs in $every summary; do
    replay seren "$policy" "$trace" $seren_cluster "$n" 286 $outputs 2xfifo --set policy.name=$policy
  done
done
for outputs in $every summary; do
  replay seren "fifo+eval_decoupled" "$trace" $seren_cluster "$n" 286 $outputs 2xfifo --set policy.name=fifo --set eval=decoupled
  replay seren "fifo+failures" "$trace" $seren_cluster "$n" 286 $outputs 2xfifo --set policy.name=fifo --set failures.enabled=true
  replay seren "fifo+topology" "$trace" $seren_cluster "$n" 286 $outputs 2xfifo --set policy.name=fifo --set placement=topology
  # The network slowdown by the per-node arithmetic, and with contention (target: 1.5x the former).
  replay seren "fifo+slowdown" "$trace" $seren_cluster "$n" 286 $outputs 2xfifo --set policy.name=fifo --set network.slowdown=true
  replay seren "fifo+contention" "$trace" $seren_cluster "$n" 286 $outputs 1.5xslowdown \
    --set policy.name=fifo --set network.slowdown=true --set network.contention=true
  replay seren "fifo+power" "$trace" $seren_cluster "$n" 286 $outputs 1.15xfifo --set policy.name=fifo --set power.enabled=true
  # Training at scale (issue 42: every feature on within 1.2x FIFO; instructions: features_cost.sh).
  replay seren "fifo+training" "$trace" $seren_cluster "$n" 286 $outputs 1.2xfifo --set policy.name=fifo \
    --set failures.enabled=true --set failures.checkpoint_mode=multilevel --set stragglers.enabled=true --set stragglers.mitigation=evict
done
if [ $smoke = 0 ]; then
  big_jobs=$(($(wc -l < "$big_trace") - 1))
  for policy in fifo backfill; do
    for outputs in $every summary; do
      replay big10k "$policy" "$big_trace" "$big_cluster" "$big_jobs" 10000 $outputs "" --set policy.name=$policy
    done
  done
  printf '\n== sweep: 1,000 one-month Kalos runs (configs/sweeps/kalos_1000.yaml, both cores) ==\n'
  rm -rf "$dir/sweep"
  /usr/bin/time -f '%e %M' -o "$dir/time.txt" $bin sweep configs/sweeps/kalos_1000.yaml --out "$dir/sweep" -q >/dev/null 2>&1
  read -r wall kb < "$dir/time.txt"
  printf 'sweep of 1000 runs: %s s (target 300 s)\n' "$wall"
  echo "sweep,kalos_1000,1000,302,summary,1,$wall,$wall,$((kb / 1024)),300,,$today,$machine" >> "$out/replay.csv"
fi
printf '\nCSV: %s/kernels.csv, %s/replay.csv\n' "$out" "$out"
