"""Plots experiments/scaling/results.csv (run.sh): the cost per job (wall and user time) and the
peak memory per job against jobs, simulated time and cluster size, and writes the tables of the
README between its "<!-- scaling table: plot.py -->" and "<!-- end of scaling table -->" lines
(and likewise "generation table") from results.csv and generation.csv.
Usage: plot.py results.csv generation.csv scaling.png README.md"""
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402

results_csv, generation_csv, png, readme = sys.argv[1:5]
r = pd.read_csv(results_csv)
r["jobs_per_s"] = r.jobs / r.wall_s
r["us_per_job"] = r.wall_s / r.jobs * 1e6
r["user_us_per_job"] = r.user_s / r.jobs * 1e6
r["peak_mib"] = r.peak_kib / 1024
r["bytes_per_job"] = r.peak_kib * 1024 / r.jobs
# Net of the fixed cost: the peak of the first 10k jobs on the same cluster size (the jobs axis's
# 10k row for Seren, the "fixed" rows for the others), per job beyond those 10k.
fixed = {int(x.nodes): x.peak_kib for x in r[(r.axis == "fixed") | ((r.axis == "jobs") & (r.jobs == 10000))].itertuples()}
r["net_bytes_per_job"] = [(x.peak_kib - fixed[x.nodes]) * 1024 / (x.jobs - 10000)
                          if x.nodes in fixed and x.jobs > 10000 else float("nan") for x in r.itertuples()]
gen = pd.read_csv(generation_csv)


def human(n):
    n = float(n)
    for unit, size in (("M", 1e6), ("k", 1e3)):
        if n >= size:
            v = n / size
            return f"{v:.0f}{unit}" if v >= 10 or v == int(v) else f"{v:.1f}{unit}"
    return f"{n:.0f}"


axis_names = {"fixed": "cluster nodes, first 10k jobs", "jobs": "jobs (first N of the ten-year trace), Seren", "days": "simulated days, ~100k jobs, Seren",
              "nodes": "cluster nodes, ~1M jobs", "both": "~10M jobs on 12,500 nodes"}
lines = ["| axis | value | jobs | nodes | simulated days | wall s | user s | jobs/s | µs/job (wall) "
         "| µs/job (user) | peak MiB | bytes/job | bytes/job net of fixed |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for _, x in r.iterrows():
    lines.append(f"| {x.axis} | {x.value:,} | {x.jobs:,} | {x.nodes:,} | {x.simulated_days:g} | {x.wall_s:.2f} "
                 f"| {x.user_s:.2f} | {x.jobs_per_s / 1e6:.2f}M | {x.us_per_job:.2f} | {x.user_us_per_job:.2f} "
                 f"| {x.peak_mib:.0f} | {x.bytes_per_job:.0f} "
                 f"| {'' if x.net_bytes_per_job != x.net_bytes_per_job else f'{x.net_bytes_per_job:.0f}'} |")
# Memory per job past the fixed cost: the slope between successive points of the jobs axis.
jobs = r[r.axis == "jobs"].sort_values("jobs").reset_index(drop=True)
slopes = [f"{human(a.jobs)} -> {human(b.jobs)}: {(b.peak_kib - a.peak_kib) * 1024 / (b.jobs - a.jobs):.0f}"
          for a, b in zip(jobs.itertuples(), jobs.iloc[1:].itertuples())]
lines += ["", "Bytes per added job (the slope of peak RSS between successive points of the jobs axis): "
          + "; ".join(slopes) + "."]
table = "\n".join(lines)

glines = ["| trace | jobs | nodes | load | window | wall s | user s | µs/job (wall) | peak MiB |",
          "|---|---|---|---|---|---|---|---|---|"]
for _, g in gen.iterrows():
    glines.append(f"| {g.trace} | {g.jobs:,} | {g.nodes:,} | {g.load:g} | {g['from']} .. {g['to']} | {g.wall_s:.1f} "
                  f"| {g.user_s:.1f} | {g.wall_s / g.jobs * 1e6:.1f} | {g.peak_mib:,} |")
glines.append(f"| all | {gen.jobs.sum():,} | | | | {gen.wall_s.sum():.1f} | {gen.user_s.sum():.1f} | | |")
gtable = "\n".join(glines)

text = Path(readme).read_text()
for name, body in (("scaling table", table), ("generation table", gtable)):
    pattern = re.compile(rf"(<!-- {name}: plot.py -->\n)(?:.*?\n)?(<!-- end of {name} -->)", re.S)
    if not pattern.search(text):
        sys.exit(f"plot.py: {readme} has no '<!-- {name}: plot.py -->' ... '<!-- end of {name} -->' lines")
    text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
Path(readme).write_text(text)

plot_style.apply()
fig, axes = plt.subplots(2, 3, figsize=plot_style.figsize(3, 2))
both = r[r.axis == "both"]
for col, axis in enumerate(("jobs", "days", "nodes")):
    rows = r[r.axis == axis].sort_values("value")
    top, bottom = axes[0][col], axes[1][col]
    top.plot(rows.value, rows.us_per_job, "o-", label="wall")
    timed = rows[rows.user_s >= 0.05]  # user time is counted in 10 ms ticks
    top.plot(timed.value, timed.user_us_per_job, "s--", label="user (runs of 50 ms or more)")
    bottom.plot(rows.value, rows.bytes_per_job, "o-", color="tab:green", label="peak RSS / jobs")
    bottom.plot(rows.value, rows.net_bytes_per_job, "s--", color="tab:olive", label="net of the fixed cost")
    if axis == "nodes" and len(both):
        top.plot(both.value, both.us_per_job, "*", markersize=12, color="tab:red", label="wall, ~10M jobs")
        bottom.plot(both.value, both.bytes_per_job, "*", markersize=12, color="tab:red", label="~10M jobs")
    top.set_ylim(0, max(rows.us_per_job.max(), both.us_per_job.max() if len(both) else 0) * 1.3)
    bottom.set_ylim(0, rows.bytes_per_job.max() * 1.2)
    top.set_ylabel("µs per job")
    bottom.set_ylabel("peak memory, bytes per job")
    for a in (top, bottom):
        a.set_xlabel(axis_names[axis])
        a.set_xscale("log")
        a.legend(fontsize=9)
fig.suptitle("acmesim FIFO replay, summary only, one core: cost per job against jobs, simulated time "
             "and cluster size")
plot_style.save(fig, png)
