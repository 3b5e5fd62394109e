#!/usr/bin/env python3
"""The Acme baseline's queueing against Acme's measured queueing, and what produces it.

Usage: analyze.py OUT_DIR ACME_QUEUE_JSON DEST [README ...]   (experiments/baseline/run.sh calls it)
Reads OUT_DIR/<cluster>/<group>/<run>/jobs.csv (groups: baseline, ablation, whatif, sensitivity);
writes DEST/results.csv (every baseline run and statistic), DEST/ablation.csv and DEST/whatif.csv
(per cluster, run and job type: mean, median, p90 and p99 of the wait to be placed and of the
launch), DEST/sensitivity.csv, DEST/results.md, and the plots queue_cdf_by_type.png,
ablation.png and whatif.png; and rewrites the block between "<!-- baseline table: analyze.py -->"
and "<!-- end of baseline table -->" of each README given with the seed-1 table, so that no number
there is typed by hand.
"""
import json
import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402

TYPES = ["Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"]
CLUSTERS = ["seren", "kalos"]
BEGIN, END = "<!-- baseline table: analyze.py -->", "<!-- end of baseline table -->"
MECHANISMS = ("<!-- mechanisms table: analyze.py -->", "<!-- end of mechanisms table -->")


# The GPU-demand groups of the by-size table between 1 GPU and over 512: name, least and most GPUs.
MIDDLE_SIZES = [("2to4", 2, 4), ("5to8", 5, 8), ("9to512", 9, 512)]

def runs_of(out, cluster, group):
    folder = os.path.join(out, cluster, group)
    # In natural order: seed2 before seed10.
    natural = lambda name: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]
    return sorted(os.listdir(folder), key=natural) if os.path.isdir(folder) else []


def jobs_of(out, cluster, group, run):
    jobs = pd.read_csv(os.path.join(out, cluster, group, run, "jobs.csv"),
                       usecols=["type", "gpu_num", "queue_s", "wait_s", "launch_s"])
    return jobs.dropna(subset=["queue_s"])  # jobs that never started have no delay


def stats(jobs):
    """The statistics acme_queue.json publishes, the shape the paper describes, and the heads."""
    gpu, cpu = jobs[jobs.gpu_num > 0], jobs[jobs.gpu_num == 0]
    one = gpu[gpu.gpu_num == 1]
    row = {"gpu_mean_s": gpu.queue_s.mean(), "gpu_median_s": gpu.queue_s.median(),
           "gpu_p99_s": gpu.queue_s.quantile(0.99), "cpu_mean_s": cpu.queue_s.mean(),
           "cpu_median_s": cpu.queue_s.median(), "gpu1_mean_s": one.queue_s.mean(),
           "gpu_over512_mean_s": gpu[gpu.gpu_num > 512].queue_s.mean(),
           "gpu1_over_1h_pct": 100.0 * (one.queue_s > 3600).mean(),
           **{f"gpu{name}_mean_s": gpu[gpu.gpu_num.between(lo, hi)].queue_s.mean() for name, lo, hi in MIDDLE_SIZES},
           "gpu_wait_mean_s": gpu.wait_s.mean(), "gpu_launch_mean_s": gpu.launch_s.mean(),
           "launch_max_s": jobs.launch_s.max()}
    for t in TYPES:
        row[f"{t}_mean_s"] = gpu[gpu.type == t].queue_s.mean()
    means = {t: row[f"{t}_mean_s"] for t in TYPES if not np.isnan(row[f"{t}_mean_s"])}
    row["longest_waiting_type"] = max(means, key=means.get)
    return row


def parts_by_type(jobs):
    """Per job type (and all GPU jobs): jobs, and mean, median, p90, p99 of wait and launch."""
    rows = []
    gpu = jobs[jobs.gpu_num > 0]
    for t, sel in [("GPU jobs", gpu)] + [(t, gpu[gpu.type == t]) for t in TYPES] + [("CPU", jobs[jobs.gpu_num == 0])]:
        if len(sel) == 0:
            continue
        row = {"type": t, "jobs": len(sel), "queue_mean_s": sel.queue_s.mean()}
        for part in ["wait", "launch"]:
            col = sel[f"{part}_s"]
            row.update({f"{part}_mean_s": col.mean(), f"{part}_p50_s": col.median(),
                        f"{part}_p90_s": col.quantile(0.9), f"{part}_p99_s": col.quantile(0.99)})
        rows.append(row)
    return rows


def heads_within(cluster, jobs, q):
    """Each published CDF-head point: (type, x, measured %, simulated %)."""
    gpu = jobs[jobs.gpu_num > 0]
    out = []
    for t, points in q["queue_cdf_by_type_head"][cluster.capitalize()].items():
        d = gpu[gpu.type == t].queue_s
        for x, y in points:
            out.append((t, x, y, 100.0 * (d <= x).mean() if len(d) else float("nan")))
    return out


def criteria(cluster, s, heads, q):
    """(statistic, measured, simulated, target, met) of issue 37."""
    name = cluster.capitalize()
    gpu, cpu = q["cluster_summary"]["gpu_jobs"][name], q["cluster_summary"]["cpu_jobs"][name]
    by_size = q["by_gpu_demand_third_party"]
    rows = [("GPU-job mean, s", f"{gpu['mean_s']:.0f}", f"{s['gpu_mean_s']:.0f}", "within 25%",
             abs(s["gpu_mean_s"] - gpu["mean_s"]) <= 0.25 * gpu["mean_s"])]
    if cluster == "seren":
        rows.append(("GPU-job median, s", f"{gpu['median_s']:.0f}", f"{s['gpu_median_s']:.0f}", "at most 5",
                     s["gpu_median_s"] <= 5))
        rows.append(("type with the longest mean wait", "Eval", s["longest_waiting_type"], "Eval",
                     s["longest_waiting_type"] == "Eval"))
    else:
        rows.append(("GPU-job median, s", f"{gpu['median_s']:.0f}", f"{s['gpu_median_s']:.0f}", "within 5 s",
                     abs(s["gpu_median_s"] - gpu["median_s"]) <= 5))
    rows.append(("CPU-job mean, s", f"{cpu['mean_s']:.1f}", f"{s['cpu_mean_s']:.1f}", "within 50%",
                 abs(s["cpu_mean_s"] - cpu["mean_s"]) <= 0.5 * cpu["mean_s"]))
    one, big = by_size["mean_queue_s_of_1_gpu_jobs"][name], by_size["mean_queue_s_of_jobs_over_512_gpus"][name]
    rows.append(("1-GPU mean against >512-GPU mean, s", f"{one} > {big}",
                 f"{s['gpu1_mean_s']:.0f} vs {s['gpu_over512_mean_s']:.0f}", "1-GPU longer",
                 s["gpu1_mean_s"] > s["gpu_over512_mean_s"]))
    if cluster == "seren":  # reported, not a target: a third party's figure of the six months
        rows.append(("1-GPU jobs waiting over 1 h, %", f"{by_size['seren_1_gpu_jobs_waiting_over_1h_pct']}",
                     f"{s['gpu1_over_1h_pct']:.2f}", "-", None))
    worst = max(heads, key=lambda h: abs(h[3] - h[2]))
    rows.append(("CDF-head points within 5 points", f"{len(heads)} points",
                 f"{sum(abs(h[3] - h[2]) <= 5 for h in heads)} (worst {worst[0]} at {worst[1]} s: "
                 f"{worst[2]:.0f} vs {worst[3]:.0f})", "all", all(abs(h[3] - h[2]) <= 5 for h in heads)))
    rows.append(("longest launch, s", "-", f"{s['launch_max_s']:.0f}", "at most launch.max_s", None))
    return rows


def markdown(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def fmt(v):
    return v if isinstance(v, str) else f"{v:.0f}"


def cdf_plot(out, q, dest):
    fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2.6), sharey=True)
    for ax, cluster in zip(axes, CLUSTERS):
        jobs = jobs_of(out, cluster, "baseline", "seed1")
        heads = q["queue_cdf_by_type_head"][cluster.capitalize()]
        for i, t in enumerate(TYPES + ["CPU"]):
            d = jobs[jobs.type == t].queue_s.to_numpy()
            if len(d) < 20:
                continue
            x = np.sort(np.maximum(d, 0.5))  # 0 s shown at 0.5 s on the log axis
            ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", color=f"C{i}", label=f"{t} ({len(d):,})")
            if t in heads:
                ax.plot([p[0] for p in heads[t]], [p[1] / 100 for p in heads[t]], "o", color=f"C{i}", ms=4)
        ax.set_xscale("log")
        ax.set_xlim(0.5, 1e6)
        ax.set_xlabel("queueing delay, s (0 s drawn at 0.5 s; dots: Acme's measured heads)")
        ax.set_title(f"{cluster.capitalize()}, policy acme, seed 1")
        plot_style.legend_outside(ax, title="job type (jobs)")
    axes[0].set_ylabel("share of jobs")
    plot_style.save(fig, os.path.join(dest, "queue_cdf_by_type.png"))


def ablation_plot(ablation, q, dest):
    fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2.6))
    for ax, cluster in zip(axes, CLUSTERS):
        sel = ablation[(ablation.cluster == cluster) & (ablation.type.isin(["GPU jobs", "Eval"]))]
        runs = list(dict.fromkeys(sel.run))
        x = np.arange(len(runs))
        for i, (t, label) in enumerate([("GPU jobs", "GPU jobs"), ("Eval", "Eval jobs")]):
            for j, part in enumerate(["wait", "launch"]):
                v = [sel[(sel.run == r) & (sel.type == t)][f"{part}_mean_s"].sum() for r in runs]
                bottom = None if j == 0 else [sel[(sel.run == r) & (sel.type == t)]["wait_mean_s"].sum() for r in runs]
                ax.bar(x + i * 0.4, v, 0.38, bottom=bottom, color=f"C{2 * i + j}", label=f"{label}: {part}")
        ax.axhline(q["cluster_summary"]["gpu_jobs"][cluster.capitalize()]["mean_s"], color="black", ls="--",
                   label="Acme's GPU-job mean")
        ax.set_xticks(x + 0.2, runs, rotation=30, ha="right")
        ax.set_ylabel("mean queueing delay, s")
        ax.set_title(f"{cluster.capitalize()}: one mechanism off at a time (seed 1)")
        ax.grid(False, axis="x")
    plot_style.legend_outside(fig)
    plot_style.save(fig, os.path.join(dest, "ablation.png"))


def whatif_plot(whatif, q, dest):
    fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2.6))
    for ax, cluster in zip(axes, CLUSTERS):
        sel = whatif[(whatif.cluster == cluster) & (whatif.type == "GPU jobs")]
        for i, policy in enumerate(["acme", "fifo", "backfill", "priority"]):
            p = sel[sel.policy == policy].sort_values("load")
            ax.plot(p.load, np.maximum(p.queue_mean_s, 0.5), "o-", color=f"C{i}", label=policy)
        ax.axhline(q["cluster_summary"]["gpu_jobs"][cluster.capitalize()]["mean_s"], color="black", ls="--",
                   label="Acme at 1x")
        ax.set_yscale("log")
        plot_style.log_ticks(ax.yaxis)
        ax.set_xlabel("arrivals, x the published rate")
        ax.set_ylabel("GPU jobs' mean queueing delay, s (log)")
        ax.set_title(f"{cluster.capitalize()}: what if (seed 1)")
    plot_style.legend_outside(fig)
    plot_style.save(fig, os.path.join(dest, "whatif.png"))


def short_table(table, q):
    """Seed 1 of both clusters against the measured figures, for the READMEs."""
    rows = []
    for cluster in CLUSTERS:
        name = cluster.capitalize()
        s = table[(table.cluster == cluster) & (table.run == "seed1")].iloc[0]
        gpu, cpu = q["cluster_summary"]["gpu_jobs"][name], q["cluster_summary"]["cpu_jobs"][name]
        by_size = q["by_gpu_demand_third_party"]
        rows.append([name, f"{gpu['mean_s']:.0f} / {s['gpu_mean_s']:.0f}", f"{gpu['median_s']:.0f} / {s['gpu_median_s']:.0f}",
                     f"{cpu['mean_s']:.0f} / {s['cpu_mean_s']:.0f}",
                     f"{by_size['mean_queue_s_of_1_gpu_jobs'][name]} / {s['gpu1_mean_s']:.0f}",
                     f"{by_size['mean_queue_s_of_jobs_over_512_gpus'][name]} / {s['gpu_over512_mean_s']:.0f}",
                     f"{'Eval' if cluster == 'seren' else '-'} / {s['longest_waiting_type']}"])
    return markdown(rows, ["cluster (measured / simulated, s)", "GPU mean", "GPU median", "CPU mean",
                           "1-GPU mean", ">512-GPU mean", "longest wait"])


def mechanisms_table(parts):
    """GPU jobs' mean queueing delay (s), seed 1: each mechanism off, and each policy at each load."""
    a = parts["ablation"][parts["ablation"].type == "GPU jobs"]
    rows = [[run] + [f"{a[(a.cluster == c) & (a.run == run)].queue_mean_s.iloc[0]:,.0f}" for c in CLUSTERS]
            for run in dict.fromkeys(a.run)]
    w = parts["whatif"][parts["whatif"].type == "GPU jobs"]
    rows += [[f"{p} at {load:g}x"] + [f"{w[(w.cluster == c) & (w.policy == p) & (w.load == load)].queue_mean_s.iloc[0]:,.0f}"
                                      for c in CLUSTERS]
             for p in ["acme", "fifo", "backfill", "priority"] for load in sorted(w.load.unique())]
    return markdown(rows, ["run (seed 1)", "Seren GPU-job mean, s", "Kalos GPU-job mean, s"])


def update_readme(path, block, marks=(BEGIN, END)):
    with open(path) as f:
        text = f.read()
    if marks[0] not in text:
        return
    start, end = text.index(marks[0]) + len(marks[0]), text.index(marks[1])
    with open(path, "w") as f:
        f.write(text[:start] + "\n" + block + "\n" + text[end:])


def collect(out, q):
    """The baseline statistics and heads, and the per-type parts of the ablation and what-if runs."""
    base, heads, parts = [], [], {"ablation": [], "whatif": [], "sensitivity": []}
    for cluster in CLUSTERS:
        for run in runs_of(out, cluster, "baseline"):
            jobs = jobs_of(out, cluster, "baseline", run)
            points = heads_within(cluster, jobs, q)
            base.append({"cluster": cluster, "run": run, **stats(jobs),
                         "heads_within_5": sum(abs(v - y) <= 5 for _, _, y, v in points), "heads": len(points)})
            heads += [{"cluster": cluster, "run": run, "type": t, "x_s": x, "measured_pct": y, "simulated_pct": v}
                      for t, x, y, v in points]
        for group, rows in parts.items():
            for run in runs_of(out, cluster, group):
                jobs = jobs_of(out, cluster, group, run)
                extra = {"gpu_median_s": jobs[jobs.gpu_num > 0].queue_s.median()}
                if group == "whatif":
                    policy, load = run.split("@")
                    extra.update({"policy": policy, "load": float(load)})
                rows += [{"cluster": cluster, "run": run, **extra, **r} for r in parts_by_type(jobs)]
    return pd.DataFrame(base), pd.DataFrame(heads), {g: pd.DataFrame(r) for g, r in parts.items()}


def report(table, heads, parts, q):
    md = []
    for cluster in CLUSTERS:
        name = cluster.capitalize()
        seed1 = table[(table.cluster == cluster) & (table.run == "seed1")].iloc[0]
        h = heads[(heads.cluster == cluster) & (heads.run == "seed1")]
        crit = criteria(cluster, seed1, list(h[["type", "x_s", "measured_pct", "simulated_pct"]].itertuples(index=False)), q)
        md.append(f"### {name}, seed 1\n")
        md.append(markdown([(s, m, sim, tol, "-" if ok is None else ("yes" if ok else "**no**")) for s, m, sim, tol, ok in crit],
                           ["statistic", "measured", "simulated", "target", "met"]))
        cols = ["gpu_mean_s", "gpu_median_s", "gpu_p99_s", "cpu_mean_s", "gpu1_mean_s", "gpu_over512_mean_s",
                "Eval_mean_s", "longest_waiting_type", "heads_within_5"]
        runs = table[table.cluster == cluster].set_index("run")
        md.append(f"\n{name}, every seed of the baseline (the fitted values were fitted on seeds 1-5; seeds 6-10 "
                  f"are held out; heads_within_5: CDF-head points within 5 points, of {runs.heads.iloc[0]}):\n")
        md.append(markdown([[r] + [fmt(v) for v in runs.loc[r, cols]] for r in runs.index], ["run"] + cols))
        md.append(f"\n{name}, the CDF heads of seed 1 (percent of a type's GPU jobs that waited at most x s, "
                  "measured / simulated):\n")
        wide = [[t] + [f"{r.measured_pct:.0f} / {r.simulated_pct:.0f}" for r in g.itertuples()] for t, g in h.groupby("type", sort=False)]
        md.append(markdown(wide, ["type"] + [f"{x:.0f} s" for x in h.x_s.unique()]))
        md.append(f"\n{name}, GPU jobs' mean queueing delay (s) by GPU demand, every seed of the baseline "
                  "(measured: the third party's means of 1-GPU jobs and of jobs over 512 GPUs):\n")
        size_cols = ["gpu1_mean_s"] + [f"gpu{n}_mean_s" for n, _, _ in MIDDLE_SIZES] + ["gpu_over512_mean_s"]
        by_size = q["by_gpu_demand_third_party"]
        measured = [by_size["mean_queue_s_of_1_gpu_jobs"][name]] + ["-"] * len(MIDDLE_SIZES) + \
                   [by_size["mean_queue_s_of_jobs_over_512_gpus"][name]]
        md.append(markdown([["measured"] + measured] + [[r] + [fmt(v) for v in runs.loc[r, size_cols]] for r in runs.index],
                           ["run", "1 GPU"] + [f"{lo}-{hi} GPUs" for _, lo, hi in MIDDLE_SIZES] + ["over 512 GPUs"]))
        a = parts["ablation"]
        a = a[(a.cluster == cluster) & a.type.isin(["GPU jobs", "Eval", "CPU"])]
        md.append(f"\n{name}, one mechanism off at a time (seed 1), wait to be placed and launch, s:\n")
        md.append(markdown([[r.run, r.type, f"{r.queue_mean_s:.0f}", f"{r.gpu_median_s:.0f}",
                             *(f"{getattr(r, c):.0f}" for c in ["wait_mean_s", "wait_p50_s", "wait_p90_s", "wait_p99_s",
                                                                 "launch_mean_s", "launch_p50_s", "launch_p99_s"])]
                            for r in a.itertuples()],
                           ["run", "jobs", "queue mean", "GPU median", "wait mean", "p50", "p90", "p99",
                            "launch mean", "p50", "p99"]))
        w = parts["whatif"]
        w = w[(w.cluster == cluster) & (w.type == "GPU jobs")].pivot(index="load", columns="policy", values="queue_mean_s")
        md.append(f"\n{name}, GPU jobs' mean queueing delay (s) by policy and arrivals (seed 1):\n")
        md.append(markdown([[f"{load:g}x"] + [f"{w.loc[load, p]:.0f}" for p in w.columns] for load in w.index],
                           ["arrivals"] + list(w.columns)))
        md.append("")
    return "\n".join(md) + "\n"


def main():
    out, queue_file, dest = sys.argv[1:4]
    plot_style.apply()
    with open(queue_file) as f:
        q = json.load(f)
    table, heads, parts = collect(out, q)
    table.to_csv(os.path.join(dest, "results.csv"), index=False, float_format="%.2f")
    for group, frame in parts.items():
        frame.to_csv(os.path.join(dest, f"{group}.csv"), index=False, float_format="%.2f")
    with open(os.path.join(dest, "results.md"), "w") as f:
        f.write(report(table, heads, parts, q))
    cdf_plot(out, q, dest)
    ablation_plot(parts["ablation"], q, dest)
    whatif_plot(parts["whatif"], q, dest)
    for readme in sys.argv[4:]:
        update_readme(readme, short_table(table, q))
        update_readme(readme, mechanisms_table(parts), MECHANISMS)


if __name__ == "__main__":
    main()
