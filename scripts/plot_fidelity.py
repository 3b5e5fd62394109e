#!/usr/bin/python3
"""Plots of a fidelity report: queueing delay replayed against recorded, per job type, and GPU
utilization over time.

Usage: /usr/bin/python3 scripts/plot_fidelity.py DIR
Reads DIR/queue_cdf.csv and DIR/utilization.csv (written by `acmesim validate`), and the trace and
policy from DIR/run/run.json when there, and writes DIR/queue_cdf.png (one panel per group: the
CDF of queueing delay on a symlog axis, linear below 1 s, so the jobs that did not wait are the
curve's height at 0) and DIR/utilization.png, each titled (also in the PNG's Title) with the
trace and the policy. The
simulated curve is drawn dashed on top of the recorded one, so both show where they coincide.
No group (nothing compared) draws no queue_cdf.png. Needs Debian's python3-matplotlib and
python3-pandas."""
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

import json  # noqa: E402

# The recorded curve wide and under, the simulated one dashed and over it: where they coincide the
# dashes show on the black line.
STYLE = {
    "recorded": dict(color="black", linewidth=2.6, label="recorded (trace)", zorder=2),
    "simulated": dict(color="tab:orange", linewidth=1.4, linestyle="--", label="simulated (replay)", zorder=3),
}


def subject(root):
    """'<trace file> under <policy>' from DIR/run/run.json; the folder's name without it."""
    try:
        config = json.loads((root / "run" / "run.json").read_text())["config"]
        return f"{Path(config['workload.trace']).name} under {config['policy.name']}"
    except (OSError, ValueError, KeyError, TypeError):
        return root.name


def cdfs(d, fidelity, out, title):
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
            s = d[(d["group"] == g) & (d["source"] == src)]
            if not s.empty:
                # From (0, 0): the jump at 0 is the share of jobs that did not wait.
                x = pd.concat([pd.Series([0]), s["delay_s"]], ignore_index=True)
                y = pd.concat([pd.Series([0.0]), 100 * s["cdf"]], ignore_index=True)
                ax.step(x, y, where="post", **style)
        ax.set_xscale("symlog", linthresh=1, linscale=0.5)
        ax.set_xlim(left=0)
        ax.set_ylim(0, 104)  # a curve at 100% stays visible above the frame's edge
        name = "all GPU jobs" if g == "GPU" else g
        ax.set_title(f"{name}  (gap {gaps.get(g, float('nan')):.3f})")
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    heading = f"Queueing delay, recorded and replayed: {title}"
    fig.suptitle(heading)
    fig.supxlabel("queueing delay (s; linear below 1 s, log above)")
    fig.supylabel("jobs with at most this delay (%)")
    plot_style.legend_outside(fig)
    plot_style.save(fig, out, metadata={"Title": heading})


def utilization(u, out, title):
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.set_title(f"GPU utilization, recorded and replayed: {title}")
    t = pd.to_datetime(u["time_s"], unit="s", utc=True)
    ax.plot(t, u["recorded_pct"], **STYLE["recorded"])
    ax.plot(t, u["simulated_pct"], **STYLE["simulated"])
    ax.set_ylim(0, 105)
    ax.set_ylabel("GPUs allocated (%)")
    ax.set_xlabel("time (UTC)")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    plot_style.legend_outside(ax)
    plot_style.save(fig, out, metadata={"Title": ax.get_title()})


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    plot_style.apply()
    title = subject(root)
    cdfs(pd.read_csv(root / "queue_cdf.csv"), pd.read_csv(root / "fidelity.csv"), root / "queue_cdf.png", title)
    u = pd.read_csv(root / "utilization.csv")
    if not u.empty and u["time_s"].notna().any():
        utilization(u, root / "utilization.png", title)


if __name__ == "__main__":
    main()
