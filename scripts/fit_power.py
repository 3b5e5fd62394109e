#!/usr/bin/python3
"""Derives each cluster's busy GPU power table (power.busy_w.p0 .. p100) from AcmeTrace's measured
quantiles of per-GPU power (workloads/data/acme_workload.json, utilization_measured).

The measured distribution mixes idle GPUs and GPUs at work. Taking the share of samples at 0% GPU
utilization (cdf_at_0) as the idle share f, the power of GPUs at work is the measured distribution
above it: busy(u) = F^-1(f + (1 - f) u), with F^-1 the measured quantile function, linear between
the published points (p0 taken as the idle power, p100 as p99 + (p99 - p95)).

Usage: fit_power.py [--check]. Prints the tables as the power.busy_w keys; --check exits 1 unless
the defaults in sim/io/power_keys.cpp (Seren) and configs/kalos.yaml (Kalos) are these, rounded.
"""
import json
import pathlib
import re
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = json.loads((ROOT / "workloads/data/acme_workload.json").read_text())["utilization_measured"]["stats"]
IDLE_W = 60.0
SOURCES = {"seren": ("seren_gpu_power_W", "seren_gpu_util (Fig. 2b)"),
           "kalos": ("kalos_gpu_power_W", "kalos_gpu_util_fullpkl")}


def busy_table(cluster):
    power, util = (DATA[k] for k in SOURCES[cluster])
    q = power["quantiles"]
    probs = [0.0] + [float(k[1:]) / 100 for k in q] + [1.0]
    values = [IDLE_W] + list(q.values()) + [q["p99"] + (q["p99"] - q["p95"])]
    idle = util["cdf_at_0"] / 100
    return [round(float(np.interp(idle + (1 - idle) * u / 10, probs, values))) for u in range(11)]


def main():
    tables = {c: busy_table(c) for c in SOURCES}
    for cluster, table in tables.items():
        print(f"# {cluster}")
        print("\n".join(f"power.busy_w.p{10 * i}: {w}" for i, w in enumerate(table)))
    if "--check" in sys.argv:
        code = (ROOT / "sim/io/power_keys.cpp").read_text()
        seren = [int(v) for v in re.findall(r'\{"p\d+", (\d+)\}', code)]
        kalos_cfg = (ROOT / "configs/kalos.yaml").read_text()
        kalos = [int(v) for v in re.findall(r"^    p\d+: (\d+)", kalos_cfg, re.M)]
        if seren != tables["seren"] or kalos != tables["kalos"]:
            print(f"stale: code has {seren}, configs/kalos.yaml {kalos}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
