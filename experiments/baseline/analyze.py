#!/usr/bin/env python3
"""The Acme baseline's queueing against Acme's measured queueing: tables and plots.

Usage: analyze.py OUT_DIR ACME_QUEUE_JSON DEST [README ...]   (experiments/baseline/run.sh calls it)
Reads OUT_DIR/<cluster>/<run>/jobs.csv; writes DEST/results.csv (every run and statistic),
DEST/sensitivity.csv, DEST/results.md, DEST/queue_cdf_by_type.png and
DEST/measured_vs_simulated.png, and rewrites the block between the lines
"<!-- baseline table: analyze.py -->" and "<!-- end of baseline table -->" of each README given
with the seed-1 table, so that no number there is typed by hand.
"""
import json
import os
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
SEEDS = [f"seed{s}" for s in range(1, 6)]
OTHERS = ["fifo", "greedy", "backfill"]


def jobs_of(run_dir):
    jobs = pd.read_csv(os.path.join(run_dir, "jobs.csv"), usecols=["type", "gpu_num", "queue_s"])
    return jobs.dropna(subset=["queue_s"])  # jobs that never started have no delay


def stats(jobs):
    """The statistics acme_queue.json publishes, and the shape the paper describes."""
    gpu, cpu = jobs[jobs.gpu_num > 0], jobs[jobs.gpu_num == 0]
    one = gpu[gpu.gpu_num == 1]
    row = {
        "gpu_mean_s": gpu.queue_s.mean(), "gpu_median_s": gpu.queue_s.median(),
        "cpu_mean_s": cpu.queue_s.mean(), "cpu_median_s": cpu.queue_s.median(),
        "gpu1_mean_s": one.queue_s.mean(), "gpu_over512_mean_s": gpu[gpu.gpu_num > 512].queue_s.mean(),
        "gpu1_over_1h_pct": 100.0 * (one.queue_s > 3600).mean(),
    }
    for t in TYPES:
        row[f"{t}_mean_s"] = gpu[gpu.type == t].queue_s.mean()
    means = {t: row[f"{t}_mean_s"] for t in TYPES if not np.isnan(row[f"{t}_mean_s"])}
    row["longest_waiting_type"] = max(means, key=means.get)
    return row


def criteria(cluster, s, q):
    """(statistic, measured, simulated, tolerance, verdict, fitted or predicted) of issue 21."""
    name = cluster.capitalize()
    gpu, cpu = q["cluster_summary"]["gpu_jobs"][name], q["cluster_summary"]["cpu_jobs"][name]
    by_size = q["by_gpu_demand_third_party"]
    rows = []

    def within(stat, measured, sim, rel, how):
        ok = abs(sim - measured) <= rel * measured
        rows.append((stat, f"{measured:.1f}", f"{sim:.1f}", f"within {rel:.0%}", ok, how))

    if cluster == "seren":
        within("GPU-job mean, s", gpu["mean_s"], s["gpu_mean_s"], 0.25, "fitted: user_gpu_limit.Eval")
        rows.append(("GPU-job median, s", f"{gpu['median_s']:.0f}", f"{s['gpu_median_s']:.0f}", "at most 5",
                     s["gpu_median_s"] <= 5, "fitted: launch.*"))
        within("CPU-job mean, s", cpu["mean_s"], s["cpu_mean_s"], 0.5, "fitted: launch.sigma")
        rows.append(("type with the longest mean wait", "Eval", s["longest_waiting_type"], "Eval",
                     s["longest_waiting_type"] == "Eval", "fitted: large_jobs.max_concurrent_gpus"))
        over = by_size["seren_1_gpu_jobs_waiting_over_1h_pct"]
        rows.append(("1-GPU jobs waiting over 1 h, %", f"{over:.1f}", f"{s['gpu1_over_1h_pct']:.2f}", "reported",
                     None, "predicted"))
    else:
        within("GPU-job mean, s", gpu["mean_s"], s["gpu_mean_s"], 0.25, "fitted: launch.sigma")
        ok = abs(s["gpu_median_s"] - gpu["median_s"]) <= 5
        rows.append(("GPU-job median, s", f"{gpu['median_s']:.0f}", f"{s['gpu_median_s']:.0f}", "within 5 s", ok,
                     "fitted: launch.gpu_median_s"))
        within("CPU-job mean, s", cpu["mean_s"], s["cpu_mean_s"], 0.5, "fitted: launch.sigma")
    rows.append(("CPU-job median, s", f"{cpu['median_s']:.0f}", f"{s['cpu_median_s']:.0f}", "reported", None,
                 "fitted: launch.cpu_median_s"))
    one, big = by_size["mean_queue_s_of_1_gpu_jobs"][name], by_size["mean_queue_s_of_jobs_over_512_gpus"][name]
    rows.append(("1-GPU mean over >512-GPU mean, s", f"{one} > {big}",
                 f"{s['gpu1_mean_s']:.0f} vs {s['gpu_over512_mean_s']:.0f}", "1-GPU longer",
                 s["gpu1_mean_s"] > s["gpu_over512_mean_s"],
                 "fitted: large_jobs.max_concurrent_gpus" if cluster == "seren" else "fitted: launch.large_sigma"))
    return rows


def cdf_plot(out, dest):
    fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2.6), sharey=True)
    for ax, cluster in zip(axes, CLUSTERS):
        jobs = jobs_of(os.path.join(out, cluster, "seed1"))
        for i, t in enumerate(TYPES + ["CPU"]):
            d = jobs[jobs.type == t].queue_s.to_numpy()
            if len(d) < 20:
                continue
            x = np.sort(np.maximum(d, 0.5))  # 0 s shown at 0.5 s on the log axis
            ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", color=f"C{i}", label=f"{t} ({len(d):,})")
        ax.set_xscale("log")
        ax.set_xlim(0.5, 1e6)
        ax.set_xlabel("queueing delay, s (0 s drawn at 0.5 s)")
        ax.set_title(f"{cluster.capitalize()}, policy acme, seed 1")
        plot_style.legend_outside(ax, title="job type (jobs)")
    axes[0].set_ylabel("share of jobs")
    plot_style.save(fig, os.path.join(dest, "queue_cdf_by_type.png"))


def bar_plot(table, q, dest):
    fig, axes = plt.subplots(1, 2, figsize=plot_style.figsize(2.6))
    runs = ["seed1"] + OTHERS
    for ax, cluster in zip(axes, CLUSTERS):
        name = cluster.capitalize()
        stats_ = ["gpu_mean_s", "gpu1_mean_s", "gpu_over512_mean_s", "cpu_mean_s"]
        labels = ["GPU jobs", "1-GPU jobs", ">512-GPU jobs", "CPU jobs"]
        by_size = q["by_gpu_demand_third_party"]
        measured = [q["cluster_summary"]["gpu_jobs"][name]["mean_s"], by_size["mean_queue_s_of_1_gpu_jobs"][name],
                    by_size["mean_queue_s_of_jobs_over_512_gpus"][name], q["cluster_summary"]["cpu_jobs"][name]["mean_s"]]
        x = np.arange(len(stats_))
        width = 0.8 / (len(runs) + 1)
        ax.bar(x, measured, width, label="measured (Acme)", color="black")
        for i, run in enumerate(runs):
            sel = table[(table.cluster == cluster) & (table.run == run)].iloc[0]
            ax.bar(x + (i + 1) * width, [max(sel[s], 0.1) for s in stats_], width,
                   label="acme (seed 1)" if run == "seed1" else run)
        ax.set_yscale("log")
        plot_style.log_ticks(ax.yaxis)
        ax.set_xticks(x + 0.4 - width / 2, labels)
        ax.set_ylabel("mean queueing delay, s (log)")
        ax.set_title(f"{name}: measured against simulated")
        ax.grid(False, axis="x")
    plot_style.legend_outside(fig)
    plot_style.save(fig, os.path.join(dest, "measured_vs_simulated.png"))


def markdown(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


BEGIN, END = "<!-- baseline table: analyze.py -->", "<!-- end of baseline table -->"


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


def update_readme(path, block):
    with open(path) as f:
        text = f.read()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    with open(path, "w") as f:
        f.write(text[:start] + "\n" + block + "\n" + text[end:])


def main():
    out, queue_file, dest = sys.argv[1:4]
    plot_style.apply()
    with open(queue_file) as f:
        q = json.load(f)
    rows = []
    for cluster in CLUSTERS:
        for run in sorted(os.listdir(os.path.join(out, cluster))):
            rows.append({"cluster": cluster, "run": run, **stats(jobs_of(os.path.join(out, cluster, run)))})
    table = pd.DataFrame(rows)
    baseline = table[table.run.isin(SEEDS + OTHERS)]
    baseline.to_csv(os.path.join(dest, "results.csv"), index=False, float_format="%.2f")
    table[~table.run.isin(SEEDS + OTHERS)].to_csv(os.path.join(dest, "sensitivity.csv"), index=False,
                                                  float_format="%.2f")

    md = []
    for cluster in CLUSTERS:
        seed1 = table[(table.cluster == cluster) & (table.run == "seed1")].iloc[0]
        crit = criteria(cluster, seed1, q)
        md.append(f"### {cluster.capitalize()}, seed 1\n")
        md.append(markdown([(s, m, sim, tol, "-" if ok is None else ("yes" if ok else "**no**"), how)
                            for s, m, sim, tol, ok, how in crit],
                           ["statistic", "measured", "simulated", "target", "met", "fitted or predicted"]))
        cols = ["gpu_mean_s", "gpu_median_s", "cpu_mean_s", "cpu_median_s", "gpu1_mean_s", "gpu_over512_mean_s",
                "Eval_mean_s", "Pretrain_mean_s", "longest_waiting_type"]
        runs = table[(table.cluster == cluster) & table.run.isin(SEEDS + OTHERS)].set_index("run").loc[SEEDS + OTHERS]
        md.append(f"\n{cluster.capitalize()}, every seed of the baseline and other policies (seed 1):\n")
        md.append(markdown([[r] + [v if isinstance(v, str) else f"{v:.0f}" for v in runs.loc[r, cols]]
                            for r in runs.index], ["run"] + cols))
        md.append("")
    with open(os.path.join(dest, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    cdf_plot(out, dest)
    bar_plot(table, q, dest)
    for readme in sys.argv[4:]:
        update_readme(readme, short_table(table, q))


if __name__ == "__main__":
    main()
