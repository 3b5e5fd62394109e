#!/usr/bin/python3
"""Derives each cluster's busy GPU power table (power.job_w.p0 .. p100) from AcmeTrace's measured
quantiles of per-GPU power (workloads/data/acme_workload.json, utilization_measured).

The measured samples are read as samples of GPUs that jobs hold (sim/README.md, "Power and
energy", says why), so the table is the measured quantile function F^-1 at p0, p10, ..., p100,
linear between the published points (p0 taken as the idle power, p100 as p99 + (p99 - p95)).

Usage: fit_power.py [--check]. Prints the tables as the power.job_w keys; --check exits 1 unless
the defaults in features/power.cpp (Seren) and configs/kalos.yaml (Kalos) are these, rounded.
"""
import json
import pathlib
import re
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = json.loads((ROOT / "workloads/data/acme_workload.json").read_text())["utilization_measured"]["stats"]
IDLE_W = 60.0
SOURCES = {"seren": "seren_gpu_power_W", "kalos": "kalos_gpu_power_W"}


def busy_table(cluster):
    q = DATA[SOURCES[cluster]]["quantiles"]
    probs = [0.0] + [float(k[1:]) / 100 for k in q] + [1.0]
    values = [IDLE_W] + list(q.values()) + [q["p99"] + (q["p99"] - q["p95"])]
    return [round(float(np.interp(u / 10, probs, values))) for u in range(11)]


def main():
    tables = {c: busy_table(c) for c in SOURCES}
    for cluster, table in tables.items():
        print(f"# {cluster}")
        print("\n".join(f"power.job_w.p{10 * i}: {w}" for i, w in enumerate(table)))
    if "--check" in sys.argv:
        code = (ROOT / "features/power.cpp").read_text()
        seren = [int(v) for v in re.findall(r'\{"p\d+", (\d+)\}', code)]
        kalos_cfg = (ROOT / "configs/kalos.yaml").read_text()
        kalos = [int(v) for v in re.findall(r"^    p\d+: (\d+)", kalos_cfg, re.M)]
        if seren != tables["seren"] or kalos != tables["kalos"]:
            print(f"stale: code has {seren}, configs/kalos.yaml {kalos}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
