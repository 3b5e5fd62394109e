#!/usr/bin/env bash
# The network with contention (network.contention=true): jobs share the links of their routes over
# the topology graph. One month of synthetic workload (seed 1), FIFO, topology placement, the
# network slowdown on. Cluster variants are the shipped files with the changed keys (sed), in
# out/topology/contention/clusters/. Called by run.sh; writes out/topology/contention/...
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=out/topology/contention
mkdir -p $runs/clusters
variant() {  # name source 'key: value'... -> a cluster file with those keys replaced
  local name=$1 source=$2 file=$runs/clusters/$1.yaml
  shift 2
  cp "$source" "$file"
  sed -i "s/^name: .*/name: $name/" "$file"
  for kv in "$@"; do
    sed -i "/^${kv%%:*}:/d" "$file"
    echo "$kv" >> "$file"
  done
  echo "$file"
}
seren=configs/clusters/seren.yaml kalos=configs/clusters/kalos.yaml
seren_2to1=$(variant seren-2to1 $seren "oversubscription: 2")
seren_5nic=$(variant seren-5nic $seren "nics_per_node: 5")
kalos_1nic=$(variant kalos-1nic $kalos "nics_per_node: 1")
kalos_fat=$(variant kalos-fat-2to1 $kalos "oversubscription: 2")
kalos_rail=$(variant kalos-rail-2to1 $kalos "oversubscription: 2" "fabric: rail_optimized")
common=(-q --set outputs=jobs,timeseries,summary,run_json --set policy.name=fifo --set placement=topology
        --set network.slowdown=true)
hungry=(--set network.need_gbps.Pretrain=800 --set network.need_gbps.MLLM=800)
run() {  # name workload cluster settings...
  local name=$1 workload=$2 cluster=$3
  shift 3
  build/acmesim run "configs/$workload.yaml" "${common[@]}" --set cluster="$cluster" "$@" --out "$runs/$name" 2>/dev/null
}
# A busy month (1.25 x Seren's arrivals) on Seren's nodes with 2:1 oversubscribed leaves: the
# per-node arithmetic against shared links, and one of the 8 spines down for the middle two weeks.
run busy-arithmetic seren "$seren_2to1" --set workload.load=1.25
run busy-contention seren "$seren_2to1" --set workload.load=1.25 --set network.contention=true
run busy-spine-down seren "$seren_2to1" --set workload.load=1.25 --set network.contention=true \
  --set "network.faults=spine 0 from 8d for 14d"
# Each workload on its own network and on the other's, pretraining needing 800 Gb/s per node.
run seren-on-seren seren $seren --set network.contention=true "${hungry[@]}"
run seren-on-kalos-net seren "$seren_5nic" --set network.contention=true "${hungry[@]}"
run kalos-on-kalos kalos $kalos --set network.contention=true "${hungry[@]}"
run kalos-on-seren-net kalos "$kalos_1nic" --set network.contention=true "${hungry[@]}"
# Kalos's network as a 2:1 fat-tree and as rail-optimized, with injected failures, and with its
# first leaf switch down for three days (a fat-tree leaf's 32 nodes lose their network; in the
# rail-optimized fabric it is rail 0 of group 0, and those nodes keep their 4 other rails).
for fabric in fat:$kalos_fat rail:$kalos_rail; do
  run "kalos-${fabric%%:*}-failures" kalos "${fabric#*:}" --set network.contention=true "${hungry[@]}" \
    --set failures.enabled=true
  run "kalos-${fabric%%:*}-leaf-down" kalos "${fabric#*:}" --set network.contention=true "${hungry[@]}" \
    --set failures.enabled=true --set "network.faults=leaf 0 from 8d for 3d"
done
