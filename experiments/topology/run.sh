#!/usr/bin/env bash
# Placement strategies under FIFO and quota on one month of synthetic Seren and Kalos, and the
# same Seren workload on Seren's network (1 x 200 Gb/s per node) and on Kalos's (5 x 200 Gb/s),
# with pretraining and multimodal jobs needing 200 Gb/s (the default) and 800 Gb/s per node.
# The network slowdown is on (the baseline configurations turn it off). Writes out/topology/...
# and, here, results.csv, results.md and the plots.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
common=(-q --set outputs=jobs,timeseries,summary,run_json --set network.slowdown=true)
for cluster in seren kalos; do
  for policy in fifo quota; do
    for placement in first_fit best_fit topology; do
      build/acmesim run "configs/$cluster.yaml" "${common[@]}" --set policy.name=$policy \
        --set placement=$placement --out "out/topology/placement/$cluster/$policy/$placement" 2>/dev/null
    done
  done
done
for need in 200 800; do
  for net in seren:configs/clusters/seren.yaml kalos:experiments/topology/seren_kalos_network.yaml; do
    build/acmesim run configs/seren.yaml "${common[@]}" --set policy.name=fifo --set cluster="${net#*:}" --set placement=topology \
      --set network.need_gbps.Pretrain=$need --set network.need_gbps.MLLM=$need \
      --out "out/topology/network/need$need/${net%%:*}" 2>/dev/null
  done
done
/usr/bin/python3 experiments/topology/plot.py out/topology experiments/topology
experiments/topology/contention.sh
/usr/bin/python3 experiments/topology/contention.py out/topology/contention experiments/topology
