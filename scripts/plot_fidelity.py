#!/usr/bin/python3
"""Plots of a fidelity report: queueing delay replayed against recorded, per job type, and GPU
utilization over time.

Usage: /usr/bin/python3 scripts/plot_fidelity.py DIR
Reads DIR/queue_cdf.csv and DIR/utilization.csv (written by `acmesim validate`) and writes
DIR/queue_cdf.png (one panel per group: the CDF of queueing delay, log seconds; the curve's height
at 1 s includes the jobs that did not wait) and DIR/utilization.png. Needs Debian's
python3-matplotlib and python3-pandas."""
import sys
from pathlib import Path

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt
    import pandas as pd
except ImportError as e:
    print(f"plot_fidelity.py: {e}; install python3-matplotlib and python3-pandas", file=sys.stderr)
    sys.exit(3)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import plot_style  # noqa: E402

STYLE = {
    "recorded": dict(color="black", linewidth=1.8, label="recorded (trace)", zorder=3),
    "simulated": dict(color="tab:orange", linewidth=1.4, linestyle="--", label="simulated (replay)"),
}


def cdfs(d, fidelity, out):
    """One panel per group; no group (nothing was compared): no figure."""
    groups = list(dict.fromkeys(d["group"]))
    if not groups:
        print(f"plot_fidelity.py: no queueing delay to plot; {out.name} not drawn", file=sys.stderr)
        return
    gaps = dict(zip(fidelity["group"], fidelity["cdf_gap"]))
    cols = min(4, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=plot_style.figsize(cols, rows), squeeze=False)
    for ax, g in zip(axes.flat, groups):
        for src, style in STYLE.items():
            s = d[(d["group"] == g) & (d["source"] == src) & (d["delay_s"] >= 1)]
            if not s.empty:
                ax.step(s["delay_s"], 100 * s["cdf"], where="post", **style)
        if ax.lines:  # a group of one job, or of jobs that did not wait, may have no point at 1 s or more
            ax.set_xscale("log")
        ax.set_ylim(0, 104)  # a curve at 100% stays visible above the frame's edge
        title = "all GPU jobs" if g == "GPU" else g
        ax.set_title(f"{title}  (gap {gaps.get(g, float('nan')):.3f})")
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    fig.supxlabel("queueing delay (s, log)")
    fig.supylabel("jobs with at most this delay (%)")
    plot_style.legend_outside(fig)
    plot_style.save(fig, out)


def utilization(u, out):
    fig, ax = plt.subplots(figsize=(10, 4))
    t = pd.to_datetime(u["time_s"], unit="s", utc=True)
    ax.plot(t, u["recorded_pct"], **STYLE["recorded"])
    ax.plot(t, u["simulated_pct"], **dict(STYLE["simulated"], linewidth=1.0))
    ax.set_ylim(0, 105)
    ax.set_ylabel("GPUs allocated (%)")
    ax.set_xlabel("time (UTC)")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    plot_style.legend_outside(ax)
    plot_style.save(fig, out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    plot_style.apply()
    cdfs(pd.read_csv(root / "queue_cdf.csv"), pd.read_csv(root / "fidelity.csv"), root / "queue_cdf.png")
    u = pd.read_csv(root / "utilization.csv")
    if not u.empty and u["time_s"].notna().any():
        utilization(u, root / "utilization.png")


if __name__ == "__main__":
    main()
