#!/usr/bin/python3
"""Summarizes the runs of run.sh: GPU power quantiles against AcmeTrace's, energy and fairness by
policy, and the power cap as nodes are added.

Usage: analyze.py RUNS_DIR OUT_DIR CAP_KW. Writes OUT_DIR/fidelity.csv, policies.csv, cap.csv,
power.png and the tables of OUT_DIR/README.md between their markers.
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import plot_style  # noqa: E402
import readme_table  # noqa: E402

runs, out, cap_kw = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), float(sys.argv[3])
MEASURED = json.loads((ROOT / "workloads/data/acme_workload.json").read_text())["utilization_measured"]["stats"]
QUANTILES = ["p25", "p50", "p75", "p90"]


def summary(folder):
    return pd.read_csv(folder / "summary.csv").iloc[0]


def fidelity():
    rows = []
    for folder in sorted((runs / "fidelity").glob("*/*/*")):
        cluster, load, seed = folder.parent.parent.name, folder.parent.name[4:], folder.name[4:]
        s = summary(folder)
        measured = MEASURED[f"{cluster}_gpu_power_W"]["quantiles"]
        row = {"cluster": cluster, "load": float(load), "seed": int(seed), "gpu_util_pct": s.gpu_util_pct}
        for q in QUANTILES:
            row[f"sim_{q}_w"] = s[f"job_gpu_power_{q}_w"]
            row[f"measured_{q}_w"] = measured[q]
            row[f"error_{q}_pct"] = 100 * (s[f"job_gpu_power_{q}_w"] - measured[q]) / measured[q]
        row["within_15pct"] = all(abs(row[f"error_{q}_pct"]) <= 15 for q in QUANTILES)
        for q in QUANTILES:  # every up GPU, idle ones too
            row[f"all_gpus_{q}_w"] = s[f"gpu_power_{q}_w"]
        rows.append(row)
    return pd.DataFrame(rows)


def policies():
    rows = []
    for name in ["acme", "fifo"]:
        s = summary(runs / "policy" / name)
        rows.append({"policy": name, "queue_mean_s": s.queue_mean_s, "queue_p90_s": s.queue_p90_s,
                     "waiting_over_1h_pct": s.waiting_over_1h_pct, "jain_slowdown_users": s.jain_slowdown_users,
                     "jain_slowdown_types": s.jain_slowdown_types, "energy_kwh": s.energy_kwh,
                     "jobs_energy_kwh": s.jobs_energy_kwh, "idle_energy_kwh": s.idle_energy_kwh,
                     "nodes_energy_kwh": s.nodes_energy_kwh, "wasted_energy_kwh": s.wasted_energy_kwh})
    return pd.DataFrame(rows)


def cap():
    rows = []
    for folder in (runs / "cap").glob("*"):
        s = summary(folder)
        ts = pd.read_csv(folder / "timeseries.csv")
        jobs = pd.read_csv(folder / "jobs.csv", usecols=["type", "gpu_num", "start_s", "queue_s"])
        gpu = jobs[(jobs.gpu_num > 0) & jobs.start_s.notna()]
        is_eval = gpu.type == "Eval"  # held by the evaluation cap, which does not grow with the nodes
        extra = int(folder.name[4:].split("-")[0])
        rows.append({"extra_nodes_pct": extra, "capped": not folder.name.endswith("uncapped"),
                     "cluster_gpus": s.cluster_gpus, "gpu_util_pct": s.gpu_util_pct,
                     "peak_hourly_kw": ts.power_kw.max(), "capped_hours": s.capped_hours,
                     "slowdown_pct": 100 * (1 / s.clock_mean - 1), "queue_mean_s": s.queue_mean_s,
                     "eval_queue_mean_s": gpu[is_eval].queue_s.mean(),
                     "other_gpu_queue_mean_s": gpu[~is_eval].queue_s.mean(),
                     "energy_kwh": s.energy_kwh, "cap_saved_kwh": s.cap_saved_kwh})
    return pd.DataFrame(rows).sort_values(["extra_nodes_pct", "capped"]).reset_index(drop=True)


def replace_table(name, lines):
    readme_table.replace_table(out / "README.md", name, "analyze.py", lines)


fid, pol, cp = fidelity(), policies(), cap()
fid.to_csv(out / "fidelity.csv", index=False, float_format="%.2f")
pol.to_csv(out / "policies.csv", index=False, float_format="%.2f")
cp.to_csv(out / "cap.csv", index=False, float_format="%.3f")

lines = ["| cluster | load | seed | util % | " + " | ".join(f"{q} sim / measured (W)" for q in QUANTILES) +
         " | within 15% | every up GPU: " + ", ".join(QUANTILES) + " (W) |", "|---|---|---|---|---|---|---|---|---|---|"]
for r in fid.itertuples():
    cells = [f"{getattr(r, f'sim_{q}_w'):.0f} / {getattr(r, f'measured_{q}_w'):.0f} "
             f"({getattr(r, f'error_{q}_pct'):+.0f}%)" for q in QUANTILES]
    every = ", ".join(f"{getattr(r, f'all_gpus_{q}_w'):.0f}" for q in QUANTILES)
    lines.append(f"| {r.cluster} | {r.load:.1f} | {r.seed} | {r.gpu_util_pct:.1f} | " + " | ".join(cells) +
                 f" | {'yes' if r.within_15pct else 'no'} | {every} |")
replace_table("fidelity", lines)
lines = ["| policy | queue mean (s) | p90 (s) | waiting > 1 h % | Jain, users | Jain, types | energy (MWh) | "
         "jobs | idle GPUs | nodes | wasted |", "|---|---|---|---|---|---|---|---|---|---|---|"]
lines += [f"| {r.policy} | {r.queue_mean_s:.0f} | {r.queue_p90_s:.0f} | {r.waiting_over_1h_pct:.2f} | "
          f"{r.jain_slowdown_users:.3f} | {r.jain_slowdown_types:.3f} | {r.energy_kwh / 1000:.1f} | "
          f"{r.jobs_energy_kwh / 1000:.1f} | {r.idle_energy_kwh / 1000:.1f} | {r.nodes_energy_kwh / 1000:.1f} | "
          f"{r.wasted_energy_kwh / 1000:.1f} |" for r in pol.itertuples()]
replace_table("policies", lines)
lines = [f"Cap: {cap_kw:.0f} kW.", "", "| extra nodes | capped | GPUs | util % | peak hourly kW | capped hours | "
         "slowdown % | queue mean (s) | evaluation's (s) | other GPU jobs' (s) | energy (MWh) |",
                                   "|---|---|---|---|---|---|---|---|---|---|---|"]
lines += [f"| {r.extra_nodes_pct}% | {'yes' if r.capped else 'no'} | {r.cluster_gpus:,} | {r.gpu_util_pct:.1f} | "
          f"{r.peak_hourly_kw:.0f} | {r.capped_hours:.2f} | {r.slowdown_pct:.3f} | {r.queue_mean_s:.0f} | "
          f"{r.eval_queue_mean_s:.0f} | {r.other_gpu_queue_mean_s:.0f} | {r.energy_kwh / 1000:.1f} |"
          for r in cp.itertuples()]
replace_table("cap", lines)

plot_style.apply()
fig, axes = plt.subplots(1, 3, figsize=plot_style.figsize(3))
probs = [25, 50, 75, 90]
for cluster, color in [("seren", "C0"), ("kalos", "C1")]:
    measured = MEASURED[f"{cluster}_gpu_power_W"]["quantiles"]
    axes[0].plot(probs, [measured[f"p{p}"] for p in probs], "o-", color=color, label=f"{cluster}, measured")
    r = next(fid[(fid.cluster == cluster) & (fid.seed == 1) & (fid.load == 1)].itertuples())
    axes[0].plot(probs, [getattr(r, f"sim_p{p}_w") for p in probs], "s--", color=color,
                 label=f"{cluster}, simulated, jobs' GPUs")
    axes[0].plot(probs, [getattr(r, f"all_gpus_p{p}_w") for p in probs], "^:", color=color,
                 label=f"{cluster}, simulated, every up GPU")
axes[0].set_xlabel("quantile (%)")
axes[0].set_ylabel("per-GPU power (W)")
axes[0].set_title("GPU power over GPU-time")
plot_style.legend_outside(axes[0])
capped = cp[cp.capped]
axes[1].plot(capped.extra_nodes_pct, capped.peak_hourly_kw, "o-", label="peak hourly power")
axes[1].axhline(cap_kw, color="C3", linestyle="--", label="cap: measured peak")
axes[1].set_xlabel("extra nodes (%), arrivals scaled alike")
axes[1].set_ylabel("kW")
axes[1].set_title("Seren under its measured peak power")
plot_style.legend_outside(axes[1])
# Baseline against FIFO: queueing, fairness and energy, each as a share of the larger of the two.
measures = {"queue\nmean": "queue_mean_s", "unfairness\n(1 - Jain,\nusers)": None, "energy": "energy_kwh"}
values = {name: ([1 - v for v in pol.jain_slowdown_users] if col is None else list(pol[col]))
          for name, col in measures.items()}
x = range(len(measures))
for i, policy in enumerate(pol.policy):
    axes[2].bar([k + 0.4 * i for k in x], [values[m][i] / max(max(values[m]), 1e-9) for m in measures], width=0.4,
                label=policy)
axes[2].set_xticks([k + 0.2 for k in x], list(measures))
axes[2].set_ylabel("share of the larger")
axes[2].set_title("Seren month: baseline against FIFO")
plot_style.legend_outside(axes[2])
plot_style.save(fig, out / "power.png")
