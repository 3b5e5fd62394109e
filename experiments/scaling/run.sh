#!/usr/bin/env bash
# Scaling: run time and peak memory of a FIFO replay (summary only, one core) against
#   1. the number of jobs (the first N jobs of a six-month Seren trace, N = 10k .. 1M);
#   2. the simulated time at a fixed 100k jobs (the same model spread over 1 week .. 2 years);
#   3. the cluster size at a fixed ~200k jobs (300 .. 10,000 nodes, load scaled with the nodes).
# Traces are generated once into $BENCH_DIR (default /tmp/acmesim-bench). Writes results.csv and
# scaling.png here. Takes about 10 minutes on the 2-core machine, most of it generating traces.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
bin=build/acmesim
dir=${BENCH_DIR:-/tmp/acmesim-bench}
mkdir -p "$dir"
here=experiments/scaling
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)

measure() {  # axis value trace cluster -> one CSV row (best of 3 runs)
  local axis=$1 value=$2 trace=$3 cluster=$4 best="" kb=0
  local jobs=$(($(wc -l < "$trace") - 1))
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" "${pin[@]}" $bin run configs/seren.yaml -q \
      --set cluster="$cluster" --set workload.trace="$trace" --set workload.from= --set workload.to= \
      --set outputs=summary --out "$dir/out-scaling" 2>/dev/null
    read -r wall kb < "$dir/time.txt"
    best=$(awk -v a="$wall" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  local span
  span=$(/usr/bin/python3 -c "import csv; r = next(csv.DictReader(open('$dir/out-scaling/summary.csv')));
print(round((int(r['window_end_s']) - int(r['window_start_s'])) / 86400, 1))")
  echo "$axis,$value,$jobs,$(grep -m1 '^nodes:' "$cluster" | awk '{print $2}'),$span,$best,$((kb / 1024))" >> "$here/results.csv"
  echo "  $axis=$value: $jobs jobs, ${span} days, $best s, $((kb / 1024)) MiB"
}

seren=configs/clusters/seren.yaml
full=$dir/seren_6m_1M.csv
[ -s "$full" ] || $bin gen --cluster seren --from 2023-03-01 --to 2023-09-01 --load 1.25 --seed 1 -o "$full"
echo "axis,value,jobs,nodes,simulated_days,wall_s,peak_mib" > "$here/results.csv"

echo "1. jobs"
for n in 10000 30000 100000 300000 1025054; do
  trace=$full
  if [ $n != 1025054 ]; then trace=$dir/seren_first_$n.csv; [ -s "$trace" ] || head -n $((n + 1)) "$full" > "$trace"; fi
  measure jobs $n "$trace" $seren
done

echo "2. simulated time at 100k jobs"
# Seren's model at load 1 submits about 4,500 jobs a day.
for days in 7 30 91 182 365 730; do
  trace=$dir/seren_100k_${days}d.csv
  load=$(awk -v d="$days" 'BEGIN { printf "%.4f", 100000 / (4500 * d) }')
  to=$(date -u -d "2023-03-01 + $days days" +%F)
  [ -s "$trace" ] || $bin gen --cluster seren --from 2023-03-01 --to "$to" --load "$load" --seed 1 -o "$trace" 2>/dev/null
  measure days $days "$trace" $seren
done

echo "3. cluster size at ~200k jobs"
for nodes in 300 1000 3000 10000; do
  cluster=$dir/cluster_$nodes.yaml
  sed "s/^nodes: .*/nodes: $nodes/; s/^name: .*/name: seren$nodes/" $seren > "$cluster"
  load=$(awk -v n="$nodes" 'BEGIN { printf "%.4f", 1.25 * n / 286 }')
  days=$(awk -v l="$load" 'BEGIN { printf "%d", 200000 / (4500 * l) + 1 }')
  to=$(date -u -d "2023-03-01 + $days days" +%F)
  trace=$dir/seren_nodes_$nodes.csv
  [ -s "$trace" ] || $bin gen --cluster seren --cluster-file "$cluster" --from 2023-03-01 --to "$to" --load "$load" \
    --seed 1 -o "$trace" 2>/dev/null
  measure nodes $nodes "$trace" "$cluster"
done
/usr/bin/python3 $here/plot.py $here/results.csv $here/scaling.png
