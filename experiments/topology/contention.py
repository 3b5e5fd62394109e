#!/usr/bin/python3
"""Summarizes the runs of contention.sh: large jobs' queueing and slowdown, and link load.

Usage: contention.py RUNS_DIR OUT_DIR. Writes OUT_DIR/contention.csv, contention.md, contention.png
and the table of OUT_DIR/README.md between its "contention table" markers.
"""
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402
import readme_table  # noqa: E402

runs, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
RUNS = [  # (folder, study, what differs)
    ("busy-arithmetic", "busy month, Seren 2:1", "per-node arithmetic"),
    ("busy-contention", "busy month, Seren 2:1", "shared links"),
    ("busy-spine-down", "busy month, Seren 2:1", "shared links, spine 0 down days 8-22"),
    ("seren-on-seren", "workload x network, 800 Gb/s", "Seren workload, Seren network (1 x 200)"),
    ("seren-on-kalos-net", "workload x network, 800 Gb/s", "Seren workload, Kalos network (5 x 200)"),
    ("kalos-on-kalos", "workload x network, 800 Gb/s", "Kalos workload, Kalos network (5 x 200)"),
    ("kalos-on-seren-net", "workload x network, 800 Gb/s", "Kalos workload, Seren network (1 x 200)"),
    ("kalos-fat-failures", "fabric, Kalos 2:1, failures", "fat-tree"),
    ("kalos-rail-failures", "fabric, Kalos 2:1, failures", "rail-optimized"),
    ("kalos-fat-leaf-down", "fabric, Kalos 2:1, failures", "fat-tree, leaf 0 down days 8-11"),
    ("kalos-rail-leaf-down", "fabric, Kalos 2:1, failures", "rail-optimized, leaf 0 down days 8-11"),
]


def measure(folder):
    jobs = pd.read_csv(folder / "jobs.csv", low_memory=False)
    summary = pd.read_csv(folder / "summary.csv").iloc[0]
    started = jobs[(jobs.gpu_num > 0) & jobs.start_s.notna()]
    large = started[started.gpu_num >= 64]
    multi = started[started.node_num > 1]
    row = {
        "large_jobs": len(large),
        "large_queue_mean_s": large.queue_s.mean(),
        "large_slowdown_mean": large.slowdown.mean(),
        "multi_node_slowdown_mean": multi.slowdown.mean(),
        "gpu_util_pct": summary.gpu_util_pct,
        "jobs_failed": int((jobs.failures > 0).sum()),
    }
    links = folder / "links.csv"
    if links.exists():
        up = pd.read_csv(links)
        up = up[up.tier == "leaf_uplink"]
        row.update({"uplink_mean_load": up.mean_load.mean(), "uplink_peak_load": up.peak_load.max(),
                    "hours_uplink_over_capacity_pct": 100 * (up.peak_load > 1.0001).mean()})
    return row


data = pd.DataFrame([{"run": name, "study": study, "variant": variant, **measure(runs / name)}
                     for name, study, variant in RUNS])
data.to_csv(out / "contention.csv", index=False, float_format="%.3f")

cols = ["variant", "large_jobs", "large_queue_mean_s", "large_slowdown_mean", "multi_node_slowdown_mean",
        "uplink_mean_load", "uplink_peak_load", "hours_uplink_over_capacity_pct", "gpu_util_pct", "jobs_failed"]
with open(out / "contention.md", "w") as md:
    for study, part in data.groupby("study", sort=False):
        md.write(f"\n{study}:\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for _, r in part.iterrows():
            cells = [("" if pd.isna(r[c]) else f"{r[c]:.2f}") if isinstance(r[c], float) else str(r[c]) for c in cols]
            md.write("| " + " | ".join(cells) + " |\n")

# The README's table, between its markers.
STUDY = {"busy month, Seren 2:1": "busy month", "workload x network, 800 Gb/s": "workload x network",
         "fabric, Kalos 2:1, failures": "fabric"}


def cell(value, digits):
    return "" if pd.isna(value) else f"{value:.{digits}f}"


lines = ["| study | variant | large-job queue mean (s) | large-job slowdown | multi-node slowdown | uplink mean load "
         "| uplink peak | hours over capacity % | util % | jobs failed |", "|---|---|---|---|---|---|---|---|---|---|"]
lines += [f"| {STUDY[r.study]} | {r.variant} | {r.large_queue_mean_s:.0f} | {r.large_slowdown_mean:.2f} | "
          f"{r.multi_node_slowdown_mean:.2f} | {cell(r.uplink_mean_load, 2)} | {cell(r.uplink_peak_load, 2)} | "
          f"{cell(r.hours_uplink_over_capacity_pct, 1)} | {r.gpu_util_pct:.1f} | {r.jobs_failed} |"
          for r in data.itertuples()]
readme_table.replace_table(out / "README.md", "contention", "contention.py", lines)

plot_style.apply()
fig, axes = plt.subplots(1, 3, figsize=plot_style.figsize(3))
labels = data.run.str.replace("-", "\n", n=1)
axes[0].barh(labels, data.large_queue_mean_s / 3600)
axes[0].set_title("jobs >= 64 GPUs: queuing delay")
axes[0].set_xlabel("mean (h)")
axes[0].set_xscale("log")
axes[0].invert_yaxis()
axes[1].barh(labels, (data.large_slowdown_mean - 1) * 100)
axes[1].set_title("jobs >= 64 GPUs: slowdown")
axes[1].set_xlabel("mean slowdown - 1 (%)")
axes[1].invert_yaxis()
axes[1].set_yticklabels([])
for name, label in [("busy-contention", "all spines"), ("busy-spine-down", "spine 0 down days 8-22")]:
    ts = pd.read_csv(runs / name / "timeseries.csv")
    day = (ts.time_s - ts.time_s.iloc[0]) // 86400
    axes[2].plot(ts.groupby(day).peak_uplink_load.max(), label=label)
axes[2].set_title("busy month: peak leaf-uplink load")
axes[2].set_xlabel("day")
axes[2].set_ylabel("daily max of demand / capacity")
plot_style.legend_outside(axes[2])
plot_style.save(fig, out / "contention.png")
print((out / "contention.md").read_text())
