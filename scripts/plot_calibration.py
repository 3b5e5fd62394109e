#!/usr/bin/python3
"""Plots of a calibration report: the published CDFs overlaid with the trace's.

Usage: /usr/bin/python3 scripts/plot_calibration.py DIR
Reads DIR/data/duration_cdf.csv and DIR/data/gpu_demand.csv (written by `acmesim calibrate`) and
writes DIR/duration_cdf.png (all GPU jobs and each type) and DIR/gpu_demand.png (GPUs per job, by
jobs and by GPU-time). Needs Debian's python3-matplotlib and python3-pandas."""
import sys
from pathlib import Path

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
except ImportError as e:
    print(f"plot_calibration.py: {e}; install python3-matplotlib and python3-pandas", file=sys.stderr)
    sys.exit(3)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import plot_style  # noqa: E402

PUBLISHED = dict(color="black", marker="o", markersize=4, linestyle="none", label="published")
TRACE = dict(color="tab:blue", linewidth=1.6, label="trace")
TIME_TICKS = {1: "1 s", 60: "1 min", 3600: "1 h", 86400: "1 d", 604800: "1 wk"}


def durations(d, out):
    groups = list(dict.fromkeys(d["group"]))
    rows = (len(groups) + 3) // 4  # at most 4 panels a row, rows filled evenly
    cols = (len(groups) + rows - 1) // rows
    fig, axes = plt.subplots(rows, cols, figsize=plot_style.figsize(cols, rows), squeeze=False)
    for ax, g in zip(axes.flat, groups):
        for src, style in (("trace", TRACE), ("published", PUBLISHED)):
            s = d[(d["group"] == g) & (d["source"] == src)]
            ax.plot(s["x"], s["pct"], **style)
        ax.set_xscale("log", base=2)
        ax.set_xlim(1, 2 ** 21)
        ax.set_xticks(list(TIME_TICKS), list(TIME_TICKS.values()))
        ax.set_ylim(0, 100)
        ax.set_title("all GPU jobs" if g == "all" else g)
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    fig.supxlabel("duration (log)")
    fig.supylabel("CDF (%)")
    plot_style.legend_outside(fig)
    plot_style.save(fig, out)


def demand(d, out):
    fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2))
    for ax, (g, title) in zip(axes, (("jobs", "by jobs"), ("gpu_time", "by GPU-time"))):
        for src, style in (("trace", TRACE), ("published", dict(PUBLISHED, linestyle="-", linewidth=0.8))):
            s = d[(d["group"] == g) & (d["source"] == src)]
            ax.step(s["x"], s["pct"], where="post", **style)
        ax.set_xscale("log", base=2)
        ax.set_xlim(1, 1024)
        ax.set_xticks([1, 4, 16, 64, 256, 1024], ["1", "4", "16", "64", "256", "1024"])
        ax.set_ylim(0, 100)
        ax.set_title(f"GPUs per job, CDF {title}")
        ax.set_xlabel("GPUs (log)")
    axes[0].set_ylabel("CDF (%)")
    plot_style.legend_outside(fig)
    plot_style.save(fig, out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    plot_style.apply()
    durations(pd.read_csv(root / "data" / "duration_cdf.csv"), root / "duration_cdf.png")
    demand(pd.read_csv(root / "data" / "gpu_demand.csv"), root / "gpu_demand.png")


if __name__ == "__main__":
    main()
