"""Loading an `acmesim sweep` output folder with pandas, and the standard figures.

Used by sweep.ipynb (in Jupyter) and plot.py (PNG files, no Jupyter). Debian's python3-pandas
and python3-matplotlib; nothing else.

    sweep = load("out/sweep-example")
    sweep.summary          # DIR/summary.csv: one row per run, swept keys first
    sweep.swept            # the swept columns (those before run_id), e.g. ["policy.name", "seed"]
    sweep.per_run("jobs.csv")   # every ok run's jobs.csv, with the run's swept values as columns
    queue_cdf(sweep)       # a matplotlib Figure; likewise utilization, waste_by_cause, heatmap

Importing it applies the figure scripts' shared style (scripts/plot_style.py).
"""
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402

plot_style.apply()

# Run ids are hex: keep them text even when they happen to be all digits.
_DTYPES = {"run_id": str, "status": str, "error": str}


@dataclass
class Sweep:
    dir: Path
    summary: pd.DataFrame
    by_type: pd.DataFrame
    swept: list

    @property
    def ok(self):
        """The rows of runs that finished."""
        return self.summary[self.summary["status"] == "ok"]

    def per_run(self, name, columns=None):
        """Concatenates runs/<id>/<name> of every finished run that has it, adding the run's
        `columns` (default: the swept ones, and run_id). None when no run wrote the file."""
        columns = list(columns if columns is not None else self.swept) + ["run_id"]
        frames = []
        for _, run in self.ok.iterrows():
            path = self.dir / "runs" / run["run_id"] / name
            if not path.exists():
                continue
            frame = pd.read_csv(path)
            for c in columns:
                frame[c] = run[c]
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else None

    def group_column(self):
        """What the figures compare: policy.name if swept, else the first swept column."""
        return "policy.name" if "policy.name" in self.swept else self.swept[0]


def load(sweep_dir):
    d = Path(sweep_dir)
    summary = pd.read_csv(d / "summary.csv", dtype=_DTYPES, keep_default_na=False, na_values=[""])
    by_type = pd.read_csv(d / "summary_by_type.csv", dtype=_DTYPES, keep_default_na=False, na_values=[""])
    swept = list(summary.columns[: summary.columns.get_loc("run_id")])
    return Sweep(d, summary, by_type, swept)


def _empty(message):
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True)
    ax.set_axis_off()
    return fig


def queue_cdf(sweep):
    """Queuing delay (start - submit) of GPU jobs that started, one CDF per group over all its runs."""
    jobs = sweep.per_run("jobs.csv")
    if jobs is None:
        return _empty("no jobs.csv: add jobs to the sweep's outputs")
    by = sweep.group_column()
    jobs = jobs[(jobs["gpu_num"] > 0) & jobs["queue_s"].notna()]
    fig, ax = plt.subplots()
    for name, g in jobs.groupby(by, sort=False):
        q = np.sort(g["queue_s"].to_numpy())
        ax.step(q, np.arange(1, len(q) + 1) / len(q), where="post", label=f"{name} ({g['run_id'].nunique()} runs)")
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("queuing delay (s)")
    ax.set_ylabel("fraction of GPU jobs")
    ax.set_title("Queuing delay of GPU jobs")
    plot_style.legend_outside(ax, title=by)
    return fig


def utilization(sweep):
    """Allocated GPUs over the cluster's GPUs, per interval, averaged over each group's runs."""
    ts = sweep.per_run("timeseries.csv")
    if ts is None:
        return _empty("no timeseries.csv: add timeseries to the sweep's outputs")
    by = sweep.group_column()
    ts["util_pct"] = 100.0 * ts["gpus_allocated_mean"] / ts["gpus_total"]
    ts["time"] = pd.to_datetime(ts["time_s"], unit="s", utc=True)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for name, g in ts.groupby(by, sort=False):
        mean = g.groupby("time")["util_pct"].mean()
        ax.plot(mean.index, mean.to_numpy(), label=str(name), lw=1)
    ax.set_ylabel("GPU utilization (%)")
    ax.set_ylim(0, 100)
    ax.set_title("GPU utilization over time (mean over runs)")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    plot_style.legend_outside(ax, title=by)
    return fig


def waste_by_cause(sweep):
    """Wasted GPU-hours by cause, mean over each group's runs, stacked."""
    waste = sweep.per_run("wasted_by_cause.csv")
    if waste is None:
        return _empty("no wasted_by_cause.csv: add waste to the sweep's outputs")
    by = sweep.group_column()
    table = (waste.groupby([by, "run_id", "cause"], sort=False)["gpu_hours"].sum()
             .groupby(level=[0, 2], sort=False).mean().unstack("cause").fillna(0)
             .reindex(pd.unique(waste[by])))
    fig, ax = plt.subplots()
    bottom = np.zeros(len(table))
    for cause in table.columns:
        ax.bar([str(i) for i in table.index], table[cause].to_numpy(), bottom=bottom, label=cause)
        bottom += table[cause].to_numpy()
    ax.set_xlabel(by)
    ax.set_ylabel("wasted GPU-hours (mean over runs)")
    ax.set_title("Wasted GPU-time by cause")
    ax.grid(False, axis="x")
    plot_style.legend_outside(ax, title="cause")
    return fig


def heatmap(sweep, metric="queue_mean_s"):
    """`metric` by group and a second swept parameter (mean over seeds); by job type when the
    sweep has no second parameter."""
    by = sweep.group_column()
    others = [c for c in sweep.swept if c not in (by, "seed")]
    if others:
        data, across = sweep.ok, others[0]
    else:
        data, across = sweep.by_type[sweep.by_type["status"] == "ok"], "type"
    table = data.pivot_table(index=by, columns=across, values=metric, aggfunc="mean", sort=False)
    fig, ax = plt.subplots(figsize=(1.2 * len(table.columns) + 3, 0.6 * len(table.index) + 2))
    ax.grid(False)
    im = ax.imshow(table.to_numpy(dtype=float), cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns], rotation=30, ha="right")
    ax.set_yticks(range(len(table.index)), [str(i) for i in table.index])
    ax.set_xlabel(across)
    ax.set_ylabel(by)
    for (i, j), v in np.ndenumerate(table.to_numpy(dtype=float)):
        if np.isfinite(v):
            ax.text(j, i, f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}", ha="center", va="center",
                    color="k" if im.norm(v) > 0.6 else "w")  # dark on viridis' light end
    fig.colorbar(im, ax=ax, label=metric)
    ax.set_title(f"{metric} by {by} and {across}")
    return fig


FIGURES = {"queue_cdf": queue_cdf, "utilization": utilization, "waste_by_cause": waste_by_cause, "heatmap": heatmap}
