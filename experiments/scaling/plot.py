"""Plots experiments/scaling/results.csv: run time per job and peak memory against jobs,
simulated time and cluster size. Usage: plot.py results.csv scaling.png"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

results = pd.read_csv(sys.argv[1])
results["us_per_job"] = results.wall_s / results.jobs * 1e6
axes_spec = [("jobs", "jobs in the trace", True), ("days", "simulated days (100k jobs)", True),
             ("nodes", "cluster nodes (~200k jobs)", True)]
fig, axes = plt.subplots(2, 3, figsize=(13, 7))
for col, (axis, label, log) in enumerate(axes_spec):
    rows = results[results.axis == axis].sort_values("value")
    top, bottom = axes[0][col], axes[1][col]
    top.plot(rows.value, rows.wall_s, "o-", label="wall time, s")
    top2 = top.twinx()
    top2.plot(rows.value, rows.us_per_job, "s--", color="tab:orange", label="µs per job")
    top2.set_ylim(0, max(rows.us_per_job.max() * 1.3, 1))
    top2.set_ylabel("µs per job", color="tab:orange")
    top.set_ylabel("wall time, s")
    bottom.plot(rows.value, rows.peak_mib, "o-", color="tab:green")
    bottom.set_ylabel("peak memory, MiB")
    for a in (top, bottom):
        a.set_xlabel(label)
        if log:
            a.set_xscale("log")
        a.grid(alpha=0.3)
    if axis == "jobs":
        top.set_yscale("log")
fig.suptitle("acmesim FIFO replay, summary only, one core: cost against jobs, simulated time and cluster size")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
