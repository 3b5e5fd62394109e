#!/usr/bin/env bash
# Power, energy and fairness (issue 25): one month of synthetic Seren and Kalos (configs/*.yaml,
# the Acme baseline policy) with the power model on. Writes out/power/... and, here, the CSVs, the
# plots and the README's tables (analyze.py). About 10 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
runs=out/power
common=(-q --set power.enabled=true --set outputs=jobs,timeseries,summary,waste,users,run_json)
run() {  # name config settings...
  local name=$1 config=$2
  shift 2
  build/acmesim run "configs/$config.yaml" "${common[@]}" "$@" --out "$runs/$name" 2>/dev/null
}
# 1. The simulated spread of GPU power against the measured one: each cluster's default month,
#    seeds 1-3, and Seren at 1.5x its arrivals (about as busy as the measured period).
for seed in 1 2 3; do
  run "fidelity/seren/load1.0/seed$seed" seren --set seed=$seed
  run "fidelity/kalos/load1.0/seed$seed" kalos --set seed=$seed
done
run fidelity/seren/load1.5/seed1 seren --set workload.load=1.5
# 2. The baseline (acme) against FIFO on Seren's month: energy, fairness and queueing.
run policy/acme seren
run policy/fifo seren --set policy.name=fifo
# 3. More nodes under Seren's measured peak power: AcmeTrace's p99 node power x 286 nodes, at the
#    wall (PSU loss counted). x% more nodes with x% more arrivals, capped, and the most uncapped.
cap_kw=$(/usr/bin/python3 -c "
import json
s = json.load(open('workloads/data/acme_workload.json'))['utilization_measured']['stats']
print(round(s['seren_gpu_node_power_W']['quantiles']['p99'] * 286 / (1 - 0.096) / 1000))")
for extra in 0 50 100 150 200 225 250; do
  nodes=$((286 * extra / 100))
  load=$(/usr/bin/python3 -c "print(1 + $extra / 100)")
  adds=(); [ "$nodes" -gt 0 ] && adds=(--set "capacity.events=add $nodes from 0s")
  run "cap/plus$extra" seren --set workload.load="$load" --set power.cap_kw="$cap_kw" "${adds[@]}"
done
run cap/plus250-uncapped seren --set workload.load=3.5 --set "capacity.events=add 715 from 0s"
/usr/bin/python3 experiments/power/analyze.py "$runs" experiments/power "$cap_kw"
