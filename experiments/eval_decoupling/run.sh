#!/bin/sh
# Evaluation coupled vs decoupled: the paper's 7B / 63-dataset reproduction, then the cluster-level
# effect on one month of synthetic Seren (FIFO, backfill) and the replay cost on six months.
# Usage: experiments/eval_decoupling/run.sh [BUILD_DIR]   (from anywhere; default build dir: build)
# Writes reproduction.csv, reproduction_detail.csv, cluster.csv, replay_time.csv and the PNGs here;
# raw run outputs go to out/eval_decoupling/ (not committed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
cd "$root"
if [ ! -x "$build/acmesim" ] || [ ! -x "$build/acmesim_eval_repro" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target acmesim acmesim_eval_repro
fi
out=out/eval_decoupling
mkdir -p "$out"

# 1. The reproduction: exact trial schedules (features/evaluation.h) on 1 and 4 nodes of 8 GPUs.
"$build/acmesim_eval_repro" configs/eval/llm7b_63.yaml --shares >"$here/reproduction_detail.csv" 2>"$here/shares.txt"
cut -d, -f1-5 "$here/reproduction_detail.csv" >"$here/reproduction.csv"
for n in 1 4; do
  for m in coupled decoupled; do
    "$build/acmesim_eval_repro" configs/eval/llm7b_63.yaml --spans $n $m >"$out/spans_${n}_$m.csv"
  done
done

# 2. Cluster level: one month of synthetic Seren with its evaluation batches, FIFO and backfill.
echo "mode,scope,wall_s" >"$out/wall.csv"
for p in fifo backfill; do
  for m in coupled decoupled; do
    start=$(date +%s.%N)
    "$build/acmesim" run configs/seren.yaml --set eval=$m --set policy.name=$p \
      --set outputs=jobs,summary,waste,evaluations,run_json --out "$out/month_${p}_$m" 2>/dev/null
    end=$(date +%s.%N)
    [ "$p" = fifo ] && echo "$m,month,$(echo "$end - $start" | bc)" >>"$out/wall.csv"
  done
done

# 3. Replay cost: six months of synthetic Seren (about 820k jobs), coupled vs decoupled, one core.
for m in coupled decoupled; do
  start=$(date +%s.%N)
  taskset -c 0 "$build/acmesim" run configs/seren.yaml --set eval=$m --set workload.to=2023-09-01 \
    --set outputs=summary,waste --out "$out/six_$m" 2>/dev/null
  end=$(date +%s.%N)
  echo "$m,six_months,$(echo "$end - $start" | bc)" >>"$out/wall.csv"
done

/usr/bin/python3 "$here/plot.py" "$out" "$here"
cat "$here/reproduction.csv" "$here/cluster.csv" "$here/replay_time.csv"
