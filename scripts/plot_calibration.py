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

PUBLISHED = dict(color="black", marker="o", markersize=3, linestyle="none", label="published")
TRACE = dict(color="tab:blue", linewidth=1.4, label="trace")


def durations(d, out):
    groups = list(dict.fromkeys(d["group"]))
    cols = 4
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.5 * rows), squeeze=False)
    for ax, g in zip(axes.flat, groups):
        for src, style in (("trace", TRACE), ("published", PUBLISHED)):
            s = d[(d["group"] == g) & (d["source"] == src)]
            ax.plot(s["x"], s["pct"], **style)
        ax.set_xscale("log", base=2)
        ax.set_xlim(1, 2 ** 21)
        ax.set_ylim(0, 100)
        ax.set_title("all GPU jobs" if g == "all" else g, fontsize=9)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.supxlabel("duration (s)", fontsize=9)
    fig.supylabel("CDF (%)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


def demand(d, out):
    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    for ax, (g, title) in zip(axes, (("jobs", "by jobs"), ("gpu_time", "by GPU-time"))):
        for src, style in (("trace", TRACE), ("published", dict(PUBLISHED, linestyle="-", linewidth=0.8))):
            s = d[(d["group"] == g) & (d["source"] == src)]
            ax.step(s["x"], s["pct"], where="post", **style)
        ax.set_xscale("log", base=2)
        ax.set_xlim(1, 1024)
        ax.set_ylim(0, 100)
        ax.set_title(f"GPUs per job, CDF {title}", fontsize=9)
        ax.set_xlabel("GPUs", fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    durations(pd.read_csv(root / "data" / "duration_cdf.csv"), root / "duration_cdf.png")
    demand(pd.read_csv(root / "data" / "gpu_demand.csv"), root / "gpu_demand.png")


if __name__ == "__main__":
    main()
