"""Plots experiments/scaling/results.csv: run time per job and peak memory against jobs,
simulated time and cluster size. Usage: plot.py results.csv scaling.png"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402

plot_style.apply()
results = pd.read_csv(sys.argv[1])
results["us_per_job"] = results.wall_s / results.jobs * 1e6
axes_spec = [("jobs", "jobs in the trace", True), ("days", "simulated days (100k jobs)", True),
             ("nodes", "cluster nodes (~200k jobs)", True)]
fig, axes = plt.subplots(2, 3, figsize=plot_style.figsize(3, 2))
for col, (axis, label, log) in enumerate(axes_spec):
    rows = results[results.axis == axis].sort_values("value")
    top, bottom = axes[0][col], axes[1][col]
    top.plot(rows.value, rows.wall_s, "o-", label="wall time, s")
    top2 = top.twinx()
    top2.plot(rows.value, rows.us_per_job, "s--", color="tab:orange", label="µs per job")
    top2.set_ylim(0, max(rows.us_per_job.max() * 1.3, 1))
    top2.set_ylabel("µs per job", color="tab:orange")
    top2.grid(False)  # the left axis's grid only
    top.set_ylabel("wall time, s")
    bottom.plot(rows.value, rows.peak_mib, "o-", color="tab:green")
    bottom.set_ylabel("peak memory, MiB")
    for a in (top, bottom):
        a.set_xlabel(label)
        if log:
            a.set_xscale("log")
    if axis == "jobs":
        top.set_yscale("log")
        plot_style.log_ticks(top.yaxis)
fig.suptitle("acmesim FIFO replay, summary only, one core: cost against jobs, simulated time and cluster size")
plot_style.save(fig, sys.argv[2])
