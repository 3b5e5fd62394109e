#!/usr/bin/env bash
# The Acme baseline (policy acme, configs/seren.yaml and kalos.yaml) against Acme's measured
# queueing: one month of synthetic Seren and of synthetic Kalos, seeds 1-5, every default; then
# the sensitivity of the fitted keys around their values (seed 1). Writes out/baseline/ and, here,
# results.csv, sensitivity.csv, results.md and the plots, and the seed-1 table of this folder's
# README and of the top-level README (analyze.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
rm -rf out/baseline  # a run left from an earlier sweep of values would join the tables
run() {  # run CLUSTER NAME [--set k=v ...]
  local cluster=$1 name=$2; shift 2
  build/acmesim run "configs/$cluster.yaml" -q --set outputs=jobs,summary "$@" --out "out/baseline/$cluster/$name" 2>/dev/null
}
for cluster in seren kalos; do
  for seed in 1 2 3 4 5; do run "$cluster" "seed$seed" --set seed="$seed" & done
  wait
  for policy in fifo greedy backfill; do run "$cluster" "$policy" --set policy.name="$policy" & done
  wait
done
# Sensitivity, seed 1: the fitted keys one at a time.
for limit in 30 34 40 48; do run seren "user_gpu_limit.Eval=$limit" --set policy.user_gpu_limit.Eval="$limit" & done
wait
for limit in 100 110; do  # the alternative: one limit on all evaluation jobs together
  run seren "type_gpu_limit.Eval=$limit" --set policy.user_gpu_limit.Eval=0 --set policy.type_gpu_limit.Eval="$limit" &
done
wait
for sigma in 1.0 1.8 2.2; do run seren "launch.sigma=$sigma" --set launch.sigma="$sigma" & done
for sigma in 2.15 2.25 2.35; do run kalos "launch.sigma=$sigma" --set launch.sigma="$sigma" & done
wait
for sigma in 1.0 1.3 1.8 2.2; do run kalos "launch.large_sigma=$sigma" --set launch.large_sigma="$sigma" & done
wait
# The network slowdown on (the configurations turn it off), and Seren's large jobs admitted up to
# the whole cluster (large_jobs.max_concurrent_gpus 2288 instead of 2048).
run seren "network.slowdown=true" --set network.slowdown=true &
run kalos "network.slowdown=true" --set network.slowdown=true &
mkdir -p out/baseline
sed 's/max_concurrent_gpus: 2048/max_concurrent_gpus: 2288/' configs/workloads/seren.yaml >out/baseline/seren_2288.yaml
run seren "large_jobs.max_concurrent_gpus=2288" --set workload.model="$PWD/out/baseline/seren_2288.yaml" &
wait
for median in 8 14 20; do run kalos "launch.gpu_median_s=$median" --set launch.gpu_median_s="$median" & done
wait
/usr/bin/python3 experiments/baseline/analyze.py out/baseline workloads/data/acme_queue.json experiments/baseline \
  experiments/baseline/README.md README.md
