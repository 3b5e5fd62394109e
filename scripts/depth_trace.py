#!/usr/bin/env python3
"""A second trace generator, written for the benchmark at depth: not `acmesim gen`.

Writes an AcmeTrace-schema CSV (Seren's or Kalos's columns) whose jobs are unlike the calibrated
model's on purpose: another mix of job types and sizes, GPU jobs of up to a quarter of the cluster,
log-normal run times of up to a week, and bursts of hundreds to thousands of jobs submitted in the
same second. Arrivals are Poisson, with a rate set so that the GPU-time offered per second is
`--load` times the cluster's GPUs: at 1.0 and above the queue grows to tens of thousands.

Usage: scripts/depth_trace.py --jobs N --load L [--nodes 286] [--schema seren|kalos] [--seed S] -o FILE
Deterministic: the same arguments write the same bytes.
"""
import argparse
import datetime as dt
import math
import random
import sys

GPUS_PER_NODE = 8
# (type, share of jobs, GPU sizes and their weights); CPU jobs ask for no GPU.
MIX = [
    ("Eval", 0.30, [(1, 5), (2, 2), (4, 2), (8, 3), (64, 1)]),
    ("Debug", 0.20, [(1, 3), (8, 3), (16, 2), (32, 1)]),
    ("SFT", 0.15, [(8, 3), (16, 3), (32, 2), (64, 1)]),
    ("Pretrain", 0.05, [(64, 3), (128, 3), (256, 2), (512, 1)]),
    ("MLLM", 0.10, [(4, 2), (8, 3), (32, 1)]),
    ("Other", 0.05, [(1, 2), (2, 1), (8, 1)]),
    ("CPU", 0.15, [(0, 1)]),
]
STATES = [("COMPLETED", 0.6), ("FAILED", 0.25), ("CANCELLED", 0.15)]
WEEK = 7 * 86400


def weighted(rng, pairs):
    total = sum(w for _, w in pairs)
    x = rng.random() * total
    for value, w in pairs:
        x -= w
        if x < 0:
            return value
    return pairs[-1][0]


def draw_job(rng, max_gpus):
    kind = weighted(rng, [(m, m[1]) for m in MIX])
    name, _, sizes = kind
    gpus = min(weighted(rng, sizes), max_gpus)
    median = {"Pretrain": 20000, "SFT": 4000, "Eval": 300, "Debug": 120}.get(name, 600)
    duration = min(WEEK, int(rng.lognormvariate(math.log(median), 2.0)))
    if rng.random() < 0.02:
        duration = 0  # ended as it started
    nodes = max(1, math.ceil(gpus / GPUS_PER_NODE))
    cpus = max(1, gpus * 16) if gpus else rng.choice([1, 2, 4, 8, 16, 32, 64])
    return name, gpus, nodes, cpus, duration, weighted(rng, STATES)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--load", type=float, required=True)
    ap.add_argument("--nodes", type=int, default=286)
    ap.add_argument("--schema", choices=["seren", "kalos"], default="seren")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cluster_gpus = a.nodes * GPUS_PER_NODE
    jobs = [draw_job(rng, cluster_gpus // 4) for _ in range(a.jobs)]
    offered = sum(g * d for _, g, _, _, d, _ in jobs)  # GPU-seconds
    span = offered / (a.load * cluster_gpus)
    mean_gap = span / a.jobs
    zone = dt.timezone(dt.timedelta(hours=8 if a.schema == "seren" else 0))
    t0 = dt.datetime(2023, 3, 1, tzinfo=zone)
    fmt = lambda s: (t0 + dt.timedelta(seconds=s)).isoformat(sep=" ")
    if a.schema == "seren":
        header = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time"
    else:
        header = ("job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,"
                  "start_time,end_time,fail_time,stop_time,duration,queue,gpu_time")
    with open(a.out, "w") as f:
        f.write(header + "\n")
        t, burst_left = 0.0, 0
        for i, (name, gpus, nodes, cpus, duration, state) in enumerate(jobs, 1):
            if burst_left > 0:
                burst_left -= 1  # same second as the job before
            else:
                t += rng.expovariate(1.0 / mean_gap)
                if rng.random() < 0.001:
                    burst_left = rng.randint(100, 2000)
            s = int(t)
            user = f"d{rng.randrange(400):03x}"
            gpu_time = f"{gpus * duration:.1f}" if gpus else ""
            sub, end = fmt(s), fmt(s + duration)
            if a.schema == "seren":
                row = [i, user, nodes, gpus, cpus, name, state, sub, sub, end, duration, 0, gpu_time]
            else:
                fail = end if state == "FAILED" else ""
                row = [i, user, nodes, gpus, cpus, 8 * cpus, 0.0, name, state, sub, sub, end, fail, end,
                       duration, 0, gpu_time]
            f.write(",".join(map(str, row)) + "\n")
    print(f"depth_trace: {a.jobs} jobs over {span / 86400:.1f} days at load {a.load} to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
