#!/usr/bin/python3
"""Summarizes the runs of run.sh: queuing delay of large jobs, slowdown, fragmentation.

Usage: plot.py RUNS_DIR OUT_DIR. Writes OUT_DIR/results.csv, results.md, placement.png and the
tables of OUT_DIR/README.md between their markers ("<!-- placement table: plot.py -->" and
"<!-- end of placement table -->", the same for "network").
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402
import readme_table  # noqa: E402

runs, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])


def measure(folder):
    jobs = pd.read_csv(folder / "jobs.csv")
    ts = pd.read_csv(folder / "timeseries.csv")
    summary = pd.read_csv(folder / "summary.csv").iloc[0]
    run = json.loads((folder / "run.json").read_text())
    reserved_types = run["config"]["capacity.reserved_types"].split(",")
    gpu = jobs[(jobs.gpu_num > 0) & jobs.start_s.notna()]
    large = gpu[gpu.gpu_num >= 64]
    multi = gpu[gpu.node_num > 1]
    on_reserved = multi.type.isin(reserved_types)  # the types the reserved nodes take (and that may spill)
    return {
        "queue_mean_s": summary.queue_mean_s,
        "large_jobs": len(large),
        "large_queue_mean_s": large.queue_s.mean(),
        "large_queue_p90_s": large.queue_s.quantile(0.9),
        "multi_node_slowdown_mean": multi.slowdown.mean(),
        "multi_node_leaves_mean": multi.leaves_spanned.mean(),
        "gpus_free_unusable_mean": ts.gpus_free_unusable.mean(),
        "gpus_blocked_by_fragmentation_mean": ts.gpus_blocked_by_fragmentation.mean(),
        "gpu_util_pct": summary.gpu_util_pct,
        # The nodes the other types are kept to, and the leaves spanned by each side's multi-node jobs.
        "shared_nodes": run["cluster"]["nodes"] - int(run["config"]["capacity.reserved_nodes"]),
        "reserved_types_leaves_mean": multi[on_reserved].leaves_spanned.mean(),
        "other_types_leaves_mean": multi[~on_reserved].leaves_spanned.mean(),
    }


rows = []
for folder in sorted((runs / "placement").glob("*/*/*")):
    rows.append({"study": "placement", "cluster": folder.parent.parent.name, "policy": folder.parent.name,
                 "variant": folder.name, **measure(folder)})
for folder in sorted((runs / "network").glob("*/*")):
    rows.append({"study": "network", "cluster": "seren-workload", "policy": "fifo",
                 "variant": f"{folder.parent.name} on {folder.name} network", **measure(folder)})
data = pd.DataFrame(rows)
data.to_csv(out / "results.csv", index=False, float_format="%.3f")

cols = ["cluster", "policy", "variant", "queue_mean_s", "large_jobs", "large_queue_mean_s", "large_queue_p90_s",
        "multi_node_slowdown_mean", "multi_node_leaves_mean", "reserved_types_leaves_mean", "other_types_leaves_mean",
        "gpus_free_unusable_mean", "gpus_blocked_by_fragmentation_mean", "gpu_util_pct"]
with open(out / "results.md", "w") as md:
    for study, part in data.groupby("study", sort=False):
        md.write(f"\n### {study}\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for _, r in part.iterrows():
            md.write("| " + " | ".join(f"{r[c]:.2f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |\n")



def replace_table(name, lines):
    readme_table.replace_table(out / "README.md", name, "plot.py", lines)


ORDER = {"seren": 0, "kalos": 1, "fifo": 0, "quota": 1, "first_fit": 0, "best_fit": 1, "topology": 2}
place = data[data.study == "placement"]
table = place.sort_values(["cluster", "policy", "variant"], key=lambda c: c.map(ORDER))
shared = ", ".join(f"{c} {n}" for c, n in table.groupby("cluster", sort=False).shared_nodes.first().items())
lines = [f"Nodes not reserved, which the other types are kept to: {shared}.", "",
         "| cluster | policy | placement | large-job queue mean (s) | p90 (s) | every GPU job's queue mean (s) | "
         "multi-node slowdown | leaves spanned | leaves, reserved types | leaves, other types | "
         "GPUs blocked by fragmentation | util % |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
lines += [f"| {r.cluster} | {r.policy} | {r.variant} | {r.large_queue_mean_s:.0f} | {r.large_queue_p90_s:.0f} | "
          f"{r.queue_mean_s:.0f} | {r.multi_node_slowdown_mean:.3f} | {r.multi_node_leaves_mean:.2f} | "
          f"{r.reserved_types_leaves_mean:.2f} | {r.other_types_leaves_mean:.2f} | "
          f"{r.gpus_blocked_by_fragmentation_mean:.1f} | {r.gpu_util_pct:.1f} |" for r in table.itertuples()]
replace_table("placement", lines)
NETWORK = {"seren": "Seren (1 x 200 Gb/s)", "kalos": "Kalos (5 x 200 Gb/s)"}
net = data[data.study == "network"].assign(
    need=lambda d: d.variant.str.extract(r"^need(\d+) ")[0].astype(int),
    network=lambda d: d.variant.str.extract(r" on (\w+) network$")[0])
net = net.sort_values(["need", "network"], key=lambda c: c.map(ORDER) if c.name == "network" else c)
lines = ["| network | pretraining and multimodal jobs need | large-job queue mean (s) | p90 (s) | "
         "multi-node slowdown | util % |", "|---|---|---|---|---|---|"]
lines += [f"| {NETWORK[r.network]} | {r.need} Gb/s | {r.large_queue_mean_s:.0f} | {r.large_queue_p90_s:.0f} | "
          f"{r.multi_node_slowdown_mean:.3f} | {r.gpu_util_pct:.1f} |" for r in net.itertuples()]
replace_table("network", lines)

plot_style.apply()
fig, axes = plt.subplots(1, 3, figsize=plot_style.figsize(3))
for ax, (col, title, label) in zip(axes, [
        ("large_queue_mean_s", "jobs >= 64 GPUs: queuing delay", "mean queuing delay (h)"),
        ("multi_node_slowdown_mean", "multi-node jobs: slowdown", "mean slowdown - 1 (%)"),
        ("gpus_blocked_by_fragmentation_mean", "fragmentation", "GPUs blocked (mean)")]):
    pivot = place.assign(run=place.cluster + "/" + place.policy).pivot(index="run", columns="variant", values=col)
    if col.endswith("_s"):
        pivot = pivot / 3600
    if col == "multi_node_slowdown_mean":  # about 1.00-1.03: drawn as the excess over 1, in %
        pivot = (pivot - 1) * 100
    pivot[["first_fit", "best_fit", "topology"]].plot.bar(ax=ax, rot=0, legend=False)
    ax.set_title(title)
    ax.set_ylabel(label)
    ax.set_xlabel("")
    ax.grid(False, axis="x")
plot_style.legend_outside(fig, title="placement")
plot_style.save(fig, out / "placement.png")
print((out / "results.md").read_text())
