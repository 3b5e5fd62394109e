#!/usr/bin/python3
"""Collects the policy runs of run.sh into one table and draws the figures.

Usage: plot.py RUNS_DIR OUT_DIR, where RUNS_DIR/<cluster>/<policy>/ hold acmesim outputs.
Writes OUT_DIR/results.csv (one row per cluster, policy and job type), OUT_DIR/results.md and
OUT_DIR/queue_by_type.png, OUT_DIR/util_waste.png.
"""
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402

runs, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
rows = []
for summary in sorted(runs.glob("*/*/summary_by_type.csv")):
    cluster, policy = summary.parent.parent.name, summary.parent.name
    by_type = pd.read_csv(summary)
    total = pd.read_csv(summary.parent / "summary.csv")
    total["type"] = "all"
    for frame in (by_type, total):
        rows.append(frame.assign(cluster=cluster, policy=policy))
data = pd.concat(rows, ignore_index=True)
cols = ["cluster", "policy", "type", "jobs", "gpu_jobs", "queue_mean_s", "queue_p50_s", "queue_p90_s",
        "queue_p99_s", "gpu_util_pct", "wasted_gpu_hours", "preemptions"]
table = data[cols].sort_values(["cluster", "type", "policy"])
table.to_csv(out / "results.csv", index=False)

order = ["acme", "fifo", "priority", "quota", "backfill", "sjf", "srtf"]


def markdown(frame):
    """A pandas frame as a Markdown table (no tabulate needed)."""
    head = [frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for index, row in frame.iterrows():
        lines.append("| " + " | ".join([str(index)] + [f"{v:g}" if isinstance(v, float) else str(v) for v in row]) + " |")
    return "\n".join(lines)


with open(out / "results.md", "w") as md:
    for cluster, part in table.groupby("cluster"):
        md.write(f"\n### {cluster}: mean queuing delay (s) by job type\n\n")
        pivot = part.pivot(index="type", columns="policy", values="queue_mean_s")
        pivot = pivot[[p for p in order if p in pivot.columns]]
        md.write(markdown(pivot.round(0)) + "\n")
        md.write(f"\n### {cluster}: whole cluster\n\n")
        whole = part[part.type == "all"].set_index("policy").reindex([p for p in order if p in set(part.policy)])
        md.write(markdown(whole[["queue_mean_s", "queue_p50_s", "queue_p90_s", "queue_p99_s", "gpu_util_pct",
                        "wasted_gpu_hours", "preemptions"]].round(1)) + "\n")

plot_style.apply()
clusters = sorted(table.cluster.unique())
fig, axes = plt.subplots(1, len(clusters), figsize=plot_style.figsize(len(clusters)), squeeze=False)
for ax, cluster in zip(axes[0], clusters):
    part = table[(table.cluster == cluster) & (table.type != "all") & (table.gpu_jobs > 0)]
    pivot = part.pivot(index="type", columns="policy", values="queue_mean_s")
    pivot = pivot[[p for p in order if p in pivot.columns]] / 3600.0
    pivot.plot.bar(ax=ax, rot=0, legend=False)
    ax.set_title(f"{cluster}: mean queuing delay by job type")
    ax.set_ylabel("hours")
    ax.set_xlabel("")
    ax.grid(False, axis="x")
plot_style.legend_outside(fig, title="policy")
plot_style.save(fig, out / "queue_by_type.png")

fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2))
whole = table[table.type == "all"]
for ax, (col, label) in zip(axes, [("gpu_util_pct", "GPU utilization in the window (%)"),
                                    ("wasted_gpu_hours", "wasted GPU-hours")]):
    pivot = whole.pivot(index="policy", columns="cluster", values=col).reindex(
        [p for p in order if p in set(whole.policy)])
    pivot.plot.bar(ax=ax, rot=0, legend=False)
    ax.set_title(label)
    ax.set_xlabel("")
    ax.grid(False, axis="x")
plot_style.legend_outside(fig, title="cluster")
plot_style.save(fig, out / "util_waste.png")
print((out / "results.md").read_text())
