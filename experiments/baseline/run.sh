#!/usr/bin/env bash
# The Acme baseline (policy acme, configs/seren.yaml and kalos.yaml) against Acme's measured
# queueing, and what produces it: one month of synthetic Seren and of synthetic Kalos,
#  - seeds 1-10 under every default (the baseline; the fitted values were fitted on seeds 1-5,
#    6-10 are held out);
#  - seed 1 with each mechanism off in turn (the ablation: reservation, type priority, the
#    evaluation cap, evaluation batches, backfill, launch latency) and with a per-user limit on;
#  - seed 1 at 0.8x, 1x, 1.25x and 1.5x the arrivals under acme, fifo, backfill and priority
#    (the what-if table), each policy at its defaults on the same reservation and launch latency;
#  - seed 1 with the fitted values moved (sensitivity).
# Writes out/baseline/ and, here, results.csv, ablation.csv, whatif.csv, sensitivity.csv,
# results.md and the plots, and the seed-1 table of this folder's README and of the top-level
# README (analyze.py). About 30 s on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
rm -rf out/baseline  # a run left from an earlier sweep of values would join the tables
mkdir -p out/baseline/models
run() {  # run CLUSTER GROUP NAME [--set k=v ...]
  local cluster=$1 group=$2 name=$3; shift 3
  build/acmesim run "configs/$cluster.yaml" -q --set outputs=jobs "$@" --out "out/baseline/$cluster/$group/$name" 2>/dev/null
}
for cluster in seren kalos; do
  # Evaluation jobs submitted one by one instead of in batches after a checkpoint.
  sed 's/share_of_eval_pct: .*/share_of_eval_pct: 0/' "configs/workloads/$cluster.yaml" >"out/baseline/models/$cluster.unbatched.yaml"
  for seed in 1 2 3 4 5; do run "$cluster" baseline "seed$seed" --set seed="$seed" & done
  wait
  for seed in 6 7 8 9 10; do run "$cluster" baseline "seed$seed" --set seed="$seed" & done  # held out of the fits
  wait
  run "$cluster" ablation "all on" &
  run "$cluster" ablation "no reservation" --set capacity.reserved_nodes=0 &
  run "$cluster" ablation "no type priority" $(for t in CPU Eval Pretrain SFT MLLM Debug Other; do echo --set "policy.type_priority.$t=1"; done) &
  run "$cluster" ablation "no evaluation cap" --set policy.type_gpu_limit.Eval=0 &
  wait
  run "$cluster" ablation "no evaluation batches" --set workload.model="$PWD/out/baseline/models/$cluster.unbatched.yaml" &
  run "$cluster" ablation "no backfill" --set policy.backfill_interval_s=86400 &
  run "$cluster" ablation "no launch latency" --set launch.enabled=false &
  run "$cluster" ablation "per-user limit 34 on" --set policy.user_gpu_limit.Eval=34 &
  wait
  for policy in acme fifo backfill priority; do
    for load in 0.8 1.0 1.25 1.5; do run "$cluster" whatif "$policy@$load" --set policy.name="$policy" --set workload.load="$load" & done
    wait
  done
done
for nodes in 221 222 224 225; do run seren sensitivity "capacity.reserved_nodes=$nodes" --set capacity.reserved_nodes="$nodes" & done
wait
for cap in 100 110 130 140; do run seren sensitivity "policy.type_gpu_limit.Eval=$cap" --set policy.type_gpu_limit.Eval="$cap" & done
wait
for interval in 5 30; do run seren sensitivity "policy.backfill_interval_s=$interval" --set policy.backfill_interval_s="$interval" & done
wait
for nodes in 280 290; do run kalos sensitivity "capacity.reserved_nodes=$nodes" --set capacity.reserved_nodes="$nodes" & done
for cap in 12 16; do run kalos sensitivity "policy.type_gpu_limit.Eval=$cap" --set policy.type_gpu_limit.Eval="$cap" & done
wait
/usr/bin/python3 experiments/baseline/analyze.py out/baseline workloads/data/acme_queue.json experiments/baseline \
  experiments/baseline/README.md README.md
