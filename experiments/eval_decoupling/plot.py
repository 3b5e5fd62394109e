#!/usr/bin/python3
"""Tables and plots of experiments/eval_decoupling/run.sh. Usage: plot.py RAW_OUT_DIR HERE

Writes HERE's CSVs and PNGs, and the cluster table of HERE/README.md between
"<!-- cluster table: plot.py -->" and "<!-- end of cluster table -->"."""
import sys
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402
import readme_table  # noqa: E402

plot_style.apply()
raw, here = Path(sys.argv[1]), Path(sys.argv[2])

# Reproduction: makespans and ratios against the paper's.
rep = pd.read_csv(here / "reproduction.csv")
fig, ax = plt.subplots()
x = range(len(rep))
ax.bar([i - 0.2 for i in x], rep.coupled_makespan_s / 3600, 0.4, label="coupled")
ax.bar([i + 0.2 for i in x], rep.decoupled_makespan_s / 3600, 0.4, label="decoupled")
for i, r in rep.iterrows():
    ax.text(i, r.coupled_makespan_s / 3600 * 1.02, f"{r.ratio:.2f}x (paper {r.paper_ratio}x)", ha="center")
ax.set_xticks(list(x), [f"{n} node{'s' if n > 1 else ''} ({8 * n} GPUs)" for n in rep.nodes])
ax.set_ylabel("evaluation makespan, h")
ax.set_title("7B model, 63 datasets")
ax.set_ylim(0, rep.coupled_makespan_s.max() / 3600 * 1.12)  # room for the ratios above the bars
ax.grid(False, axis="x")
plot_style.legend_outside(ax)
plot_style.save(fig, here / "reproduction.png")

# Schedules (Gantt), one panel per nodes x mode.
colors = {"fetch": "tab:gray", "remote_load": "tab:red", "local_load": "tab:pink", "preprocess": "tab:orange",
          "infer": "tab:green", "metric": "tab:blue"}
fig, axes = plt.subplots(2, 2, figsize=plot_style.figsize(2.4, 2), sharex="row")
for row, n in enumerate([1, 4]):
    for col, m in enumerate(["coupled", "decoupled"]):
        ax = axes[row][col]
        s = pd.read_csv(raw / f"spans_{n}_{m}.csv")
        gpus = 8 * n
        # GPU rows on top; CPU-side work (fetch, decoupled metrics) on rows below, one per node.
        y = s.gpu.where(s.gpu >= 0, gpus + s.node)
        for phase, c in colors.items():
            p = s[s.phase == phase]
            ax.barh(y[p.index], (p.end_s - p.start_s) / 3600, left=p.start_s / 3600, color=c, height=0.8,
                    label=phase, linewidth=0)
        ax.set_title(f"{n} node(s), {m}: makespan {s.end_s.max() / 3600:.2f} h")
        ax.set_ylabel("GPU (rows below: CPU work per node)" if col == 0 else "")
        ax.invert_yaxis()
axes[1][0].set_xlabel("hours")
axes[1][1].set_xlabel("hours")
plot_style.legend_outside(fig, [Patch(color=c) for c in colors.values()], list(colors), where="below")
plot_style.save(fig, here / "schedules.png")

# Cluster level: one month of synthetic Seren, FIFO and backfill. An evaluation is a batch of
# Eval jobs submitted together (evaluations.csv); "batches" are those of at least 2 trials.
rows = []
for p in ["fifo", "backfill"]:
    for m in ["coupled", "decoupled"]:
        d = raw / f"month_{p}_{m}"
        jobs = pd.read_csv(d / "jobs.csv")
        summ = pd.read_csv(d / "summary.csv")
        evals = pd.read_csv(d / "evaluations.csv")
        waste = pd.read_csv(d / "wasted_by_cause.csv").set_index("cause").gpu_hours
        batches = evals[evals.trials >= 2]
        g = jobs[(jobs.gpu_num > 0) & jobs.start_s.notna()]
        ev, other = g[g.type == "Eval"], g[g.type != "Eval"]
        metric = jobs[jobs.job_id.astype(str).str.endswith("#metric")]
        rows.append({
            "policy": p,
            "mode": m,
            "evaluations": len(evals),
            "batches": len(batches),
            "batch_makespan_mean_s": round(batches.makespan_s.mean(), 1),
            "batch_makespan_p50_s": round(batches.makespan_s.median(), 1),
            "batch_makespan_p90_s": round(batches.makespan_s.quantile(0.9), 1),
            "eval_makespan_mean_s": round(evals.makespan_s.mean(), 1),
            "eval_gpu_jobs": len(ev),
            "eval_gpu_job_queue_mean_s": round(ev.queue_s.mean(), 1),
            "other_queue_mean_s": round(other.queue_s.mean(), 1),
            "metric_cpu_jobs": len(metric),
            "metric_queue_mean_s": round(metric.queue_s.mean(), 1) if len(metric) else 0.0,
            "eval_gpu_hours": round(ev.gpu_seconds.sum() / 3600, 1),
            "gpu_util_pct": summ.gpu_util_pct.iloc[0],
            "wasted_failed_job_gpu_h": waste["failed_job"],
            "wasted_preemption_gpu_h": waste["preemption"],
            "wasted_eval_idle_gpu_h": waste["eval_idle"],
            "wasted_launch_gpu_h": waste["launch"],
            "wasted_gpu_h": summ.wasted_gpu_hours.iloc[0],
        })
cl = pd.DataFrame(rows)
cl.to_csv(here / "cluster.csv", index=False)

lines = ["| policy | mode | batch makespan mean | p50 | p90 | all evaluations, mean | other GPU jobs' queue mean | "
         "metric jobs (queue mean) | Eval GPU-h | util | wasted: failed | eval_idle | launch | total |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in cl.itertuples():
    metric = f"{r.metric_cpu_jobs:,} ({r.metric_queue_mean_s:,.1f} s)" if r.metric_cpu_jobs else "-"
    lines.append(f"| {r.policy} | {r.mode} | {r.batch_makespan_mean_s:,.0f} s | {r.batch_makespan_p50_s:,.0f} s | "
                 f"{r.batch_makespan_p90_s:,.0f} s | {r.eval_makespan_mean_s:,.0f} s | {r.other_queue_mean_s:,.1f} s | "
                 f"{metric} | {r.eval_gpu_hours:,.0f} | {r.gpu_util_pct:.2f}% | {r.wasted_failed_job_gpu_h:,.0f} | "
                 f"{r.wasted_eval_idle_gpu_h:,.0f} | {r.wasted_launch_gpu_h:,.0f} | {r.wasted_gpu_h:,.0f} GPU-h |")
readme_table.replace_table(here / "README.md", "cluster", "plot.py", lines)

wall = pd.read_csv(raw / "wall.csv")
rt = wall.pivot(index="scope", columns="mode", values="wall_s").reset_index()
rt["decoupled_over_coupled"] = (rt.decoupled / rt.coupled).round(3)
rt["coupled"] = rt.coupled.round(2)
rt["decoupled"] = rt.decoupled.round(2)
rt.rename(columns={"coupled": "coupled_wall_s", "decoupled": "decoupled_wall_s"}).to_csv(here / "replay_time.csv", index=False)

fig, axes = plt.subplots(2, 2, figsize=plot_style.figsize(2, 2))
axes = axes.flatten()
labels = [f"{r.policy}\n{r['mode']}" for _, r in cl.iterrows()]
colors4 = ["tab:blue", "tab:orange", "tab:blue", "tab:orange"]
axes[0].bar(labels, cl.batch_makespan_p50_s / 3600, color=colors4)
axes[0].set_ylabel("median makespan of a batch, h")
axes[1].bar(labels, cl.batch_makespan_mean_s / 3600, color=colors4)
axes[1].set_ylabel("mean makespan of a batch, h")
axes[2].bar(labels, cl.other_queue_mean_s / 3600, color=colors4)
axes[2].set_ylabel("other GPU jobs: mean queuing, h")
bottom = [0.0] * len(cl)
for cause, c in [("failed_job", "tab:red"), ("preemption", "tab:purple"), ("eval_idle", "tab:gray")]:
    v = cl[f"wasted_{cause}_gpu_h"] / 1000
    axes[3].bar(labels, v, bottom=bottom, color=c, label=cause)
    bottom = [b + x for b, x in zip(bottom, v)]
axes[3].set_ylabel("wasted GPU-hours (thousands)")
plot_style.legend_outside(axes[3], title="wasted by")
for ax in axes:
    ax.grid(False, axis="x")
fig.suptitle("Synthetic Seren, March 2023: evaluation coupled (blue) vs decoupled (orange)")
plot_style.save(fig, here / "cluster.png")
