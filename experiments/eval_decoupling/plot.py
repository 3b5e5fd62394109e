#!/usr/bin/python3
"""Tables and plots of experiments/eval_decoupling/run.sh. Usage: plot.py RAW_OUT_DIR HERE"""
import sys
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

raw, here = Path(sys.argv[1]), Path(sys.argv[2])

# Reproduction: makespans and ratios against the paper's.
rep = pd.read_csv(here / "reproduction.csv")
fig, ax = plt.subplots(figsize=(5.5, 3.6))
x = range(len(rep))
ax.bar([i - 0.2 for i in x], rep.coupled_makespan_s / 3600, 0.4, label="coupled")
ax.bar([i + 0.2 for i in x], rep.decoupled_makespan_s / 3600, 0.4, label="decoupled")
for i, r in rep.iterrows():
    ax.text(i, r.coupled_makespan_s / 3600 * 1.02, f"{r.ratio:.2f}x (paper {r.paper_ratio}x)", ha="center", fontsize=8)
ax.set_xticks(list(x), [f"{n} node{'s' if n > 1 else ''} ({8 * n} GPUs)" for n in rep.nodes])
ax.set_ylabel("evaluation makespan, h")
ax.set_title("7B model, 63 datasets")
ax.legend()
fig.tight_layout()
fig.savefig(here / "reproduction.png", dpi=120)

# Schedules (Gantt), one panel per nodes x mode.
colors = {"fetch": "tab:gray", "remote_load": "tab:red", "local_load": "tab:pink", "preprocess": "tab:orange",
          "infer": "tab:green", "metric": "tab:blue"}
fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex="row")
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
        ax.set_title(f"{n} node(s), {m}: makespan {s.end_s.max() / 3600:.2f} h", fontsize=9)
        ax.set_ylabel("GPU (rows below: CPU work per node)" if col == 0 else "")
        ax.invert_yaxis()
axes[1][0].set_xlabel("hours")
axes[1][1].set_xlabel("hours")
from matplotlib.patches import Patch
fig.legend([Patch(color=c) for c in colors.values()], list(colors), loc="lower center", ncol=6)
fig.tight_layout(rect=(0, 0.05, 1, 1))
fig.savefig(here / "schedules.png", dpi=110)

# Cluster level: one month of synthetic Seren, FIFO.
rows = []
for m in ["coupled", "decoupled"]:
    d = raw / f"month_{m}"
    jobs = pd.read_csv(d / "jobs.csv")
    summ = pd.read_csv(d / "summary.csv")
    waste = pd.read_csv(d / "wasted_by_cause.csv").set_index("cause").gpu_hours
    g = jobs[(jobs.gpu_num > 0) & jobs.start_s.notna()]
    ev, other = g[g.type == "Eval"], g[g.type != "Eval"]
    metric = jobs[jobs.job_id.astype(str).str.endswith("#metric")]
    rows.append({
        "mode": m,
        "eval_gpu_jobs": len(ev),
        "metric_cpu_jobs": len(metric),
        "eval_queue_mean_s": round(ev.queue_s.mean(), 1),
        "eval_queue_p90_s": round(ev.queue_s.quantile(0.9), 1),
        "other_queue_mean_s": round(other.queue_s.mean(), 1),
        "metric_queue_mean_s": round(metric.queue_s.mean(), 1) if len(metric) else 0.0,
        "eval_gpu_hours": round(ev.gpu_seconds.sum() / 3600, 1),
        "gpu_util_pct": summ.gpu_util_pct.iloc[0],
        "wasted_failed_job_gpu_h": waste["failed_job"],
        "wasted_preemption_gpu_h": waste["preemption"],
        "wasted_eval_idle_gpu_h": waste["eval_idle"],
        "wasted_gpu_h": summ.wasted_gpu_hours.iloc[0],
    })
cl = pd.DataFrame(rows)
cl.to_csv(here / "cluster.csv", index=False)

wall = pd.read_csv(raw / "wall.csv")
rt = wall.pivot(index="scope", columns="mode", values="wall_s").reset_index()
rt["decoupled_over_coupled"] = (rt.decoupled / rt.coupled).round(3)
rt["coupled"] = rt.coupled.round(2)
rt["decoupled"] = rt.decoupled.round(2)
rt.rename(columns={"coupled": "coupled_wall_s", "decoupled": "decoupled_wall_s"}).to_csv(here / "replay_time.csv", index=False)

fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
axes[0].bar(["Eval", "other GPU"], cl.set_index("mode").loc["coupled", ["eval_queue_mean_s", "other_queue_mean_s"]] / 3600,
            -0.4, align="edge", label="coupled")
axes[0].bar(["Eval", "other GPU"], cl.set_index("mode").loc["decoupled", ["eval_queue_mean_s", "other_queue_mean_s"]] / 3600,
            0.4, align="edge", label="decoupled")
axes[0].set_ylabel("mean queuing delay, h")
axes[0].legend()
axes[1].bar(cl["mode"], cl.gpu_util_pct, color=["tab:blue", "tab:orange"])
axes[1].set_ylabel("GPU utilization, %")
bottom = [0.0, 0.0]
for cause, c in [("failed_job", "tab:red"), ("preemption", "tab:purple"), ("eval_idle", "tab:gray")]:
    v = cl[f"wasted_{cause}_gpu_h"] / 1000
    axes[2].bar(cl["mode"], v, bottom=bottom, color=c, label=cause)
    bottom = [b + x for b, x in zip(bottom, v)]
axes[2].set_ylabel("wasted GPU-hours (thousands)")
axes[2].legend(fontsize=8)
fig.suptitle("Synthetic Seren, March 2023, FIFO: evaluation coupled vs decoupled", fontsize=10)
fig.tight_layout()
fig.savefig(here / "cluster.png", dpi=120)
