#!/usr/bin/python3
"""The plot and table of depth.csv (depth.sh): each policy's wall time over FIFO's against the jobs
waiting in its own run, at offered loads 0.5, 1.0 and 1.5 of scripts/depth_trace.py's traces, for
each trace length measured (200k and 1M jobs by default).

Writes depth.png beside this file, and the table between the README's markers
`<!-- depth table: depth.py -->` and `<!-- end of depth table -->`, with each policy's slope: k in
wall time ~ (jobs waiting)^k, from its own wall times and depths (least squares of the logarithms
over its loads at one trace length; 0 is flat, 1 a cost that grows as the queue does).

Usage: /usr/bin/python3 experiments/performance/depth.py
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts"))
import plot_style  # noqa: E402

START, END = "<!-- depth table: depth.py -->", "<!-- end of depth table -->"


def slope(rows):
    """k in wall ~ waiting^k over the rows' loads; nan with fewer than two depths."""
    if rows.pending_mean.nunique() < 2:
        return float("nan")
    return float(np.polyfit(np.log(rows.pending_mean.clip(lower=1)), np.log(rows.wall_s_median), 1)[0])


def table(d):
    lines = ["| jobs | policy | outputs | load 0.5 | load 1.0 | load 1.5 | slope k (wall ~ waiting^k) |",
             "|---|---|---|---|---|---|---|"]
    for (jobs, policy, outputs), rows in d.groupby(["jobs", "policy", "outputs"], sort=False):
        cells = [f"{r.ratio:.2f}x ({r.wall_s_median:.2f} s; {r.pending_mean:,.0f} waiting, peak {r.pending_peak:,})"
                 for r in rows.sort_values("load").itertuples()]
        lines.append(f"| {jobs:,} | {policy} | {outputs} | " + " | ".join(cells) + f" | {slope(rows):+.3f} |")
    first = d.iloc[0]
    lines.append(f"\nMedian of {first.runs} runs each, alternated with FIFO's; measured {first.date} on {first.machine}.")
    return "\n".join(lines)


def plot(d, path):
    plot_style.apply()
    fig, ax = plot_style.plt.subplots()
    every = d[d.outputs == "every"]
    styles = dict(zip(sorted(every.jobs.unique()), ["-", "--", ":", "-."]))
    for i, (policy, by_policy) in enumerate(every.groupby("policy", sort=False)):
        for jobs, rows in by_policy.groupby("jobs"):
            rows = rows.sort_values("pending_mean")
            ax.plot(rows.pending_mean.clip(lower=1), rows.ratio, marker="o", linestyle=styles[jobs], color=f"C{i}",
                    label=f"{policy}, {jobs // 1000:,}k jobs")
    ax.axhline(1.5, color="grey", linestyle="--", linewidth=1, label="target 1.5x")
    ax.set_xscale("log")
    ax.set_xlabel("jobs waiting, mean over the run (its own queue)")
    ax.set_ylabel("wall time / FIFO's (every output)")
    ax.set_title("Cost against queue depth: depth_trace.py, Seren, loads 0.5 / 1.0 / 1.5")
    plot_style.legend_outside(ax)
    plot_style.save(fig, path)


def main():
    d = pd.read_csv(HERE / "depth.csv")
    plot(d, HERE / "depth.png")
    readme = HERE / "README.md"
    text = readme.read_text()
    if START in text:
        head, rest = text.split(START, 1)
        text = head + START + "\n" + table(d) + "\n" + END + rest.split(END, 1)[1]
        readme.write_text(text)
    print(table(d))


if __name__ == "__main__":
    main()
