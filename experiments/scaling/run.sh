#!/usr/bin/env bash
# Scaling: run time, user time and peak memory (RSS) of a FIFO replay (summary only, one core)
# against
#   1. the number of jobs: the first N jobs (10k .. 10M) of a ten-year Seren trace of about 10
#      million jobs (Seren's model at 0.62 x its published rate), on Seren (286 nodes);
#   2. the simulated time at a fixed ~100k jobs (the same model spread over 1 week .. 2 years);
#   3. the cluster size at ~1M jobs: 300 .. 12,500 nodes (configs/clusters/seren_100k.yaml, 100,000
#      GPUs), the load scaled with the nodes (1.25 x Seren's rate per 286 nodes);
#   4. ten times the scale in both: ~10M jobs on the 12,500-node cluster (41 days);
#   and the fixed cost of each cluster size: the first 10k jobs of (1) on it.
# Traces are generated once into $BENCH_DIR (default /tmp/acmesim-bench), never into the repository;
# each generation's wall and user time and peak memory are kept beside its trace (TRACE.gen) and
# written to generation.csv. Writes results.csv, generation.csv and scaling.png here, and the tables
# of README.md (plot.py). About 2.5 minutes on the 2-core machine when the traces are generated
# (25M jobs, 3.4 GB in $BENCH_DIR), 1.5 when they are already there.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
bin=build/acmesim
dir=${BENCH_DIR:-/tmp/acmesim-bench}
mkdir -p "$dir"
here=experiments/scaling
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
timing=$dir/scaling-time.txt  # apart from scripts/bench.sh's, which may share $dir
out=$dir/scaling-out

gen() {  # trace cluster-file from to load: generates the trace unless it is there
  local trace=$1 cluster=$2 from=$3 to=$4 load=$5
  [ -s "$trace" ] && [ -s "$trace.gen" ] && return
  /usr/bin/time -f '%e %U %M' -o "$trace.gen" $bin gen --cluster seren --cluster-file "$cluster" --policy fifo \
    --from "$from" --to "$to" --load "$load" --seed 1 -o "$trace" 2>/dev/null
}
first() {  # N trace -> a trace of its first N jobs (copied by head: not timed as a generation)
  local f=${2%.csv}_first_$1.csv
  [ -s "$f" ] || head -n $(($1 + 1)) "$2" > "$f"
  echo "$f"
}
echo "trace,jobs,nodes,load,from,to,wall_s,user_s,peak_mib" > "$here/generation.csv"
record_gen() {  # trace nodes load from to
  local jobs wall user kb
  jobs=$(($(wc -l < "$1") - 1))
  read -r wall user kb < "$1.gen"
  echo "$(basename "$1"),$jobs,$2,$3,$4,$5,$wall,$user,$((kb / 1024))" >> "$here/generation.csv"
}

measure() {  # axis value trace cluster -> one CSV row: the fastest of 3 runs (wall; its user time), the peak RSS
  local axis=$1 value=$2 trace=$3 cluster=$4 best="" user="" kb=0
  local jobs=$(($(wc -l < "$trace") - 1))
  for _ in 1 2 3; do
    "${pin[@]}" /usr/bin/time -f '%e %U %M' -o "$timing" $bin run configs/seren.yaml -q --no-cache \
      --set cluster="$cluster" --set workload.trace="$trace" --set workload.from= --set workload.to= \
      --set policy.name=fifo --set outputs=summary --out "$out" 2>/dev/null
    read -r w u k < "$timing"
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$w; user=$u; fi
    [ "$k" -gt "$kb" ] && kb=$k
  done
  local span
  span=$(/usr/bin/python3 -c "import csv; r = next(csv.DictReader(open('$out/summary.csv')));
print(round((int(r['window_end_s']) - int(r['window_start_s'])) / 86400, 1))")
  local nodes; nodes=$(grep -m1 '^nodes:' "$cluster" | awk '{print $2}')
  echo "$axis,$value,$jobs,$nodes,$span,$best,$user,$kb" >> "$here/results.csv"
  echo "  $axis=$value: $jobs jobs, $nodes nodes, ${span} days, $best s (user $user s), $((kb / 1024)) MiB"
}

start=$SECONDS
seren=configs/clusters/seren.yaml
big=configs/clusters/seren_100k.yaml
echo "axis,value,jobs,nodes,simulated_days,wall_s,user_s,peak_kib" > "$here/results.csv"

echo "1. jobs, on Seren (286 nodes)"
# Seren's model at its published rate submits about 4,450 jobs a day: 0.62 x that over ten years.
full=$dir/seren_10y_10M.csv
gen "$full" $seren 2023-03-01 2033-03-01 0.62
record_gen "$full" 286 0.62 2023-03-01 2033-03-01
all=$(($(wc -l < "$full") - 1))
for n in 10000 100000 300000 1000000 3000000 "$all"; do
  trace=$full; [ "$n" = "$all" ] || trace=$(first "$n" "$full")
  measure jobs "$n" "$trace" $seren
done

echo "2. simulated time at ~100k jobs, on Seren"
for days in 7 30 91 182 365 730; do
  trace=$dir/seren_100k_${days}d.csv
  load=$(awk -v d="$days" 'BEGIN { printf "%.4f", 100000 / (4450 * d) }')
  to=$(date -u -d "2023-03-01 + $days days" +%F)
  gen "$trace" $seren 2023-03-01 "$to" "$load"
  record_gen "$trace" 286 "$load" 2023-03-01 "$to"
  measure days "$days" "$trace" $seren
done

echo "3. cluster size at ~1M jobs"
for nodes in 300 1000 3000 12500; do
  cluster=$big
  if [ $nodes != 12500 ]; then
    cluster=$dir/cluster_$nodes.yaml
    sed "s/^nodes: .*/nodes: $nodes/; s/^name: .*/name: seren$nodes/" $seren > "$cluster"
  fi
  load=$(awk -v n="$nodes" 'BEGIN { printf "%.2f", 1.25 * n / 286 }')
  days=$(awk -v l="$load" 'BEGIN { printf "%d", 1000000 / (4450 * l) + 1 }')
  to=$(date -u -d "2023-03-01 + $days days" +%F)
  trace=$dir/seren_nodes_${nodes}_1M.csv
  gen "$trace" "$cluster" 2023-03-01 "$to" "$load"
  record_gen "$trace" "$nodes" "$load" 2023-03-01 "$to"
  measure nodes "$nodes" "$trace" "$cluster"
  # The cluster's own cost (topology graph, node state): the first 10k jobs of the ten-year trace on it.
  measure fixed "$nodes" "$(first 10000 "$full")" "$cluster"
done

echo "4. ten times the scale: ~10M jobs on 12,500 nodes"
trace=$dir/seren_nodes_12500_10M.csv
gen "$trace" $big 2023-03-01 2023-04-12 54.64
record_gen "$trace" 12500 54.64 2023-03-01 2023-04-12
measure both 12500 "$trace" $big

/usr/bin/python3 $here/plot.py $here/results.csv $here/generation.csv $here/scaling.png $here/README.md
echo "done in $((SECONDS - start)) s"
