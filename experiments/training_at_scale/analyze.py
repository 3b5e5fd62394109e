"""Training at scale: tabulate the six sweeps of run.sh and plot the first.
Usage: /usr/bin/python3 analyze.py OUT_DIR HERE
Reads OUT_DIR/{sweep,llama3,acme,stragglers,storage,levels}/ (acmesim sweep outputs); writes sweep.csv, llama3.csv,
acme.csv, stragglers.csv, storage.csv, levels.csv, breakdown.csv, checks.md and training_at_scale.png into HERE, and
README.md's four tables."""
import sys
from pathlib import Path

import matplotlib
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style

out, here = Path(sys.argv[1]), Path(sys.argv[2])
PARTS = ["stall", "lost", "evicted", "detect", "diagnose", "wait", "launch", "comm_init", "load", "warmup", "other"]
STORAGE = {"cluster_storage_50GBps.yaml": 50, "../../configs/clusters/seren_100k.yaml": 800,
           "cluster_storage_2TBps.yaml": 2000}  # GB/s to storage: 16 core links x 25, 400, 1,000 Gb/s


def runs(sweep):
    """One row per run of a sweep: its swept keys and its training_summary.csv."""
    index = pd.read_csv(out / sweep / "summary.csv", dtype=str)
    rows = []
    for _, r in index.iterrows():
        t = pd.read_csv(out / sweep / "runs" / r["run_id"] / "training_summary.csv").iloc[0]
        rows.append({"evicted_gpu_h": 0.0, **r.to_dict(), **{k: t[k] for k in t.index}})  # evicted: with evict only
    return pd.DataFrame(rows)


def by_setting(df, keys):
    """Means over the failure seeds (effective: also min and max), parts in hours of the job's span."""
    g = df.groupby(keys, sort=False)
    table = g.agg(seeds=("failures.seed", "count"), failures=("failures", "mean"),
                  effective=("effective", "mean"), effective_min=("effective", "min"),
                  effective_max=("effective", "max"),
                  **{f"{p}_gpu_h": (f"{p}_gpu_h", "mean") for p in ["span", "trained"] + PARTS}).reset_index()
    return table.round({"failures": 1, "effective": 4, "effective_min": 4, "effective_max": 4,
                        **{f"{p}_gpu_h": 0 for p in ["span", "trained"] + PARTS}})


def pick(table, **where):
    row = table
    for k, v in where.items():
        row = row[row[k] == v]
    return row.iloc[0]


# 1. The 10,000-GPU job: interval x mode x storage.
big = runs("sweep")
big["storage_GBps"] = big["cluster"].map(STORAGE)
big["interval_min"] = big["failures.checkpoint_interval_s"].astype(int) // 60
big = big.rename(columns={"failures.checkpoint_mode": "mode"})
sweep = by_setting(big, ["storage_GBps", "mode", "interval_min"]).sort_values(["storage_GBps", "mode", "interval_min"])
sweep.to_csv(here / "sweep.csv", index=False)

# 2. Llama 3's setting, and 3. Acme's Seren month.
llama = runs("llama3")
llama["interval_min"] = llama["failures.checkpoint_interval_s"].astype(int) // 60
llama = by_setting(llama.rename(columns={"failures.checkpoint_mode": "mode"}), ["mode", "interval_min"])
llama.to_csv(here / "llama3.csv", index=False)
acme = by_setting(runs("acme").rename(columns={"failures.checkpoint_mode": "mode", "failures.recovery": "recovery"}),
                  ["mode", "recovery"])
acme.to_csv(here / "acme.csv", index=False)
# 4. Slow nodes: the eight settings of sweep_stragglers.yaml, each with its evictions per run (jobs.csv).
SLOW_KEYS = ["stragglers.enabled", "stragglers.component", "stragglers.mitigation", "stragglers.slowdown",
             "stragglers.slowed_share", "stragglers.min_episode_s"]
SLOW_NAMES = {("false", "node", "tolerate", "0.10", "1", "30"): "no slow nodes",
              ("true", "node", "tolerate", "0.10", "1", "30"): "episodes 30 s-10 h, 10% slower, tolerated",
              ("true", "node", "evict", "0.10", "1", "30"): "episodes 30 s-10 h, 10% slower, evicted after 10 min",
              ("true", "node", "tolerate", "0.10", "1", "2592000"):
                  "MegaScale hosts (slow all job), 10% slower at all their work, tolerated",
              ("true", "node", "evict", "0.10", "1", "2592000"):
                  "MegaScale hosts, 10% slower at all their work, evicted after 10 min",
              ("true", "node", "tolerate", "0.10", "0.333", "2592000"):
                  "MegaScale hosts, forward pass (1/3 of a step) 10% slower, tolerated",
              ("true", "node", "evict", "0.10", "0.333", "2592000"):
                  "MegaScale hosts, forward pass 10% slower, evicted after 10 min (megascale.yaml)",
              ("true", "node", "tolerate", "0.0399", "1", "30"):
                  "FALCON's mitigation: episodes 30 s-10 h, 4% slower (falcon.yaml)",
              ("true", "gpu", "tolerate", "0.10", "1", "30"): "slow GPUs (0.5% of GPUs), episodes 30 s-10 h, tolerated",
              ("true", "link", "tolerate", "0.10", "1", "30"):
                  "slow NIC links (0.5% of links), episodes 30 s-10 h, tolerated"}
slow_runs = runs("stragglers")
slow_runs["evictions"] = [pd.read_csv(out / "stragglers" / "runs" / r / "jobs.csv").get("evictions", pd.Series([0])).sum()
                          for r in slow_runs["run_id"]]
slow = by_setting(slow_runs, SLOW_KEYS)
slow.insert(0, "setting", [SLOW_NAMES[tuple(r[k] for k in SLOW_KEYS)] for _, r in slow.iterrows()])
slow.insert(slow.columns.get_loc("failures") + 1, "evictions",
            slow_runs.groupby(SLOW_KEYS, sort=False)["evictions"].mean().round(1).values)
slow.to_csv(here / "stragglers.csv", index=False)
named = {name: slow[slow.setting == name].iloc[0] for name in SLOW_NAMES.values()}
# 5. Concurrent checkpoints (sweep_storage.yaml): N jobs of 1,024 GPUs, storage shared by the
# writes in flight or each write seeing all of it; the checkpoint stall per job and the time lost.
many = runs("storage")
many["jobs"] = many["workload.trace"].str.extract(r"jobs(\d+)x", expand=False).astype(int)
many["storage_GBps"] = many["cluster"].map(STORAGE)
many = many.rename(columns={"failures.checkpoint_mode": "mode", "failures.shared_storage": "shared"})
storage = by_setting(many, ["storage_GBps", "mode", "jobs", "shared"]).sort_values(["storage_GBps", "mode", "jobs", "shared"])
storage.insert(4, "stall_h_per_job", (storage.stall_gpu_h / storage.jobs / 1024).round(2))
storage.to_csv(here / "storage.csv", index=False)

# 6. Multilevel with the SSD level and without (sweep_levels.yaml): the 10,000-GPU job at 50 GB/s, hourly.
levels = by_setting(runs("levels").rename(columns={"failures.ssd_gbps": "ssd_gbps"}), ["ssd_gbps"])
levels.to_csv(here / "levels.csv", index=False)
with_ssd, without_ssd = pick(levels, ssd_gbps="16"), pick(levels, ssd_gbps="0")

# Where the time goes (breakdown.csv): each part's share of the span, for three settings.
settings = {"10k GPUs, 800 GB/s, sync hourly": pick(sweep, storage_GBps=800, mode="sync", interval_min=60),
            "10k GPUs, 800 GB/s, async every 10 min": pick(sweep, storage_GBps=800, mode="async", interval_min=10),
            "Seren month, sync, manual recovery": pick(acme, mode="sync", recovery="manual"),
            "Seren month, async, automatic recovery": pick(acme, mode="async", recovery="automatic")}
pd.DataFrame([{"setting": name, **{f"{p}_pct": round(100 * r[f"{p}_gpu_h"] / r["span_gpu_h"], 2)
                                   for p in ["trained"] + PARTS}} for name, r in settings.items()]) \
    .to_csv(here / "breakdown.csv", index=False)

# The published figures against the runs (checks.md, quoted by README.md).
hourly = pick(sweep, storage_GBps=800, mode="sync", interval_min=60)
fast = pick(sweep, storage_GBps=800, mode="async", interval_min=10)
above = sweep[(sweep.storage_GBps == 800) & (sweep.effective >= 0.90)]
l_hourly = pick(llama, mode="sync", interval_min=60)
l_fast = pick(llama, mode="async", interval_min=10)
days_10k = hourly["span_gpu_h"] / 10000 / 24
ratio = {s: pick(sweep, storage_GBps=s, mode="sync", interval_min=60)["stall_gpu_h"] /
         pick(sweep, storage_GBps=s, mode="async", interval_min=60)["stall_gpu_h"] for s in STORAGE.values()}
ml = pick(sweep, storage_GBps=50, mode="multilevel", interval_min=60)
asy = pick(sweep, storage_GBps=50, mode="async", interval_min=60)
syn = pick(sweep, storage_GBps=50, mode="sync", interval_min=60)
ms_tol, ms_ev = named["MegaScale hosts (slow all job), 10% slower at all their work, tolerated"], named[
    "MegaScale hosts, 10% slower at all their work, evicted after 10 min"]
fw_tol, fw_ev = named["MegaScale hosts, forward pass (1/3 of a step) 10% slower, tolerated"], named[
    "MegaScale hosts, forward pass 10% slower, evicted after 10 min (megascale.yaml)"]
fw_gain = fw_ev.effective / fw_tol.effective - 1
MEGASCALE_MFU = 0.552  # MegaScale's MFU, 175B model on 12,288 GPUs (Jiang et al., NSDI '24, abstract)
f_tol, f_ev = named["episodes 30 s-10 h, 10% slower, tolerated"], named["episodes 30 s-10 h, 10% slower, evicted after 10 min"]


def gain(tolerated, evicted):
    """Effective training time tolerated -> evicted, and the throughput evicting gives back."""
    return (f"{tolerated.effective:.2%} tolerated, {evicted.effective:.2%} evicted: "
            f"{evicted.effective / tolerated.effective - 1:+.2%} of throughput")


lines = [
    "| published | setting | here (mean of 5 failure seeds) |",
    "|---|---|---|",
    f"| MegaScale: >90% effective training time, >100 restarts in several weeks, >10,000 GPUs | 10,000 GPUs, 4 weeks "
    f"of work, 800 GB/s storage | hourly sync saves: {hourly.effective:.1%} ({hourly.failures:.0f} restarts in "
    f"{days_10k:.0f} days); async every 10 min: {fast.effective:.1%}; at least 90% with saves every "
    f"{int(above.interval_min.max())} min or less |",
    f"| Llama 3: >90% with 419 unexpected interruptions in 54 days, 16,384 GPUs | 16,384 GPUs, 54 days of work | "
    f"hourly sync: {l_hourly.effective:.1%} ({l_hourly.failures:.0f} interruptions); async every 10 min: "
    f"{l_fast.effective:.1%} ({l_fast.failures:.0f}) |",
    "| Acme: synchronous over asynchronous checkpoint time 3.6-58.7x | 175B (2.1 TB), hourly, by storage | "
    + ", ".join(f"{s:,} GB/s: {r:.0f}x" for s, r in ratio.items()) + " (stalls in whole seconds: the async copy, "
    "under 1 s at 10,000 GPUs, counts 1 s) |",
    f"| DataStates-LLM: lazy multi-level faster than async, async than sync | 50 GB/s storage, hourly | "
    f"stall: sync {syn.stall_gpu_h:,.0f}, async {asy.stall_gpu_h:,.0f}, multilevel {ml.stall_gpu_h:,.0f} GPU-h (its "
    f"copy to host memory hidden behind 5 s of the next iteration's passes); checkpoint load after failures: "
    f"multilevel {ml.load_gpu_h:,.0f} against async {asy.load_gpu_h:,.0f} GPU-h. The SSD level (`levels.csv`): "
    f"without it a failure that takes a node restores from storage: load {without_ssd.load_gpu_h:,.0f} GPU-h, work "
    f"lost {without_ssd.lost_gpu_h:,.0f}, effective {without_ssd.effective:.2%}; with it {with_ssd.load_gpu_h:,.0f}, "
    f"{with_ssd.lost_gpu_h:,.0f}, {with_ssd.effective:.2%} |",
    f"| MegaScale: evicting the ~0.5% of hosts that are ~10% slower gives back ~0.7% of MFU | 10,000 GPUs "
    f"(1,250 nodes), async every 10 min, slow hosts slow for the whole job (ASSUMED), evicted after 10 min | "
    f"slow in their forward pass, a third of a step (`configs/stragglers/megascale.yaml`): effective "
    f"{gain(fw_tol, fw_ev)}; that is {fw_gain * MEGASCALE_MFU * 100:+.1f} points of MFU at MegaScale's "
    f"{MEGASCALE_MFU:.1%}, {fw_gain * MEGASCALE_MFU * 100 - 0.7:.1f} from its 0.7 if that is in points of MFU; "
    f"{fw_gain * 100 - 0.7:.1f} points off if it is a relative gain. Slow at all their work (the slowest-member rule, a host's 10% on every step): "
    f"{gain(ms_tol, ms_ev)}, not reproduced. Eviction itself costs little: "
    f"{named['no slow nodes'].effective:.2%} with no slow nodes, {fw_ev.evictions:.1f} evictions a run. With "
    f"FALCON's episodes of 30 s to 10 h, evicting after 10 min loses: {gain(f_tol, f_ev)} "
    f"({f_ev.evictions:.0f} evictions a run) |",
]
(here / "checks.md").write_text("\n".join(lines) + "\n")

# The same tables in README.md, between their markers, so that its numbers are these runs'.
parts = pd.read_csv(here / "breakdown.csv")
rows = ["| setting | trained | stall | lost | detect | diagnose | wait | restart (NCCL + load + warm-up) | other |",
        "|---|---|---|---|---|---|---|---|---|"]
for _, r in parts.iterrows():
    rows.append(f"| {r.setting} | {r.trained_pct:.2f} | {r.stall_pct:.2f} | {r.lost_pct:.2f} | {r.detect_pct:.2f} | "
                f"{r.diagnose_pct:.2f} | {r.wait_pct:.2f} | {r.comm_init_pct:.2f} + {r.load_pct:.2f} + "
                f"{r.warmup_pct:.2f} | {r.other_pct:.2f} |")
slow_rows = ["| setting | effective (min-max) | evictions a run | failures a run |", "|---|---|---|---|"]
for _, r in slow.iterrows():
    slow_rows.append(f"| {r.setting} | {r.effective:.2%} ({r.effective_min:.2%}-{r.effective_max:.2%}) | "
                     f"{r.evictions:.1f} | {r.failures:.1f} |")
storage_rows = ["| storage | mode | jobs of 1,024 GPUs | stall a job, h (each write alone) | stall a job, h (shared) | "
                "effective (alone) | effective (shared) | lost GPU-h (alone) | lost GPU-h (shared) |",
                "|---|---|---|---|---|---|---|---|---|"]
for (gbps, mode, jobs), g in storage.groupby(["storage_GBps", "mode", "jobs"], sort=False):
    alone, shared = g[g.shared == "false"].iloc[0], g[g.shared == "true"].iloc[0]
    storage_rows.append(f"| {gbps:,} GB/s | {mode} | {jobs} | {alone.stall_h_per_job:.2f} | {shared.stall_h_per_job:.2f} | "
                        f"{alone.effective:.2%} | {shared.effective:.2%} | {alone.lost_gpu_h:,.0f} | {shared.lost_gpu_h:,.0f} |")
worst = {mode: storage[(storage.storage_GBps == 50) & (storage["mode"] == mode) & (storage.jobs == 48)]
         .set_index("shared") for mode in ("sync", "async")}
storage_rows += ["", f"48 jobs at 50 GB/s: a sync save stalls "
                 f"{worst['sync'].stall_h_per_job['true'] / worst['sync'].stall_h_per_job['false'] - 1:.0%} longer "
                 f"shared than alone; async saves lose "
                 f"{worst['async'].lost_gpu_h['true'] / worst['async'].lost_gpu_h['false'] - 1:.1%} more work."]
readme = (here / "README.md").read_text()
for name, table in (("checks.md", lines), ("breakdown.csv", rows), ("stragglers.csv", slow_rows),
                    ("storage.csv", storage_rows)):
    head, tail = f"<!-- {name}: analyze.py -->\n", f"<!-- end of {name} -->\n"
    start, end = readme.index(head) + len(head), readme.index(tail)
    readme = readme[:start] + "\n".join(table) + "\n" + readme[end:]
(here / "README.md").write_text(readme)

# Plot: effective training time against the interval, a panel per storage bandwidth.
fig, axes = plt.subplots(1, 3, figsize=plot_style.figsize(3, 1), sharey=True)
for ax, s in zip(axes, STORAGE.values()):
    for mode, style in (("sync", "-"), ("async", "--"), ("multilevel", ":")):
        x = sweep[(sweep.storage_GBps == s) & (sweep["mode"] == mode)]
        ax.plot(x.interval_min, 100 * x.effective, style, marker="o", ms=3, label=mode)
        ax.fill_between(x.interval_min, 100 * x.effective_min, 100 * x.effective_max, alpha=0.12)
    ax.axhline(90, color="grey", lw=0.8, ls="-.", label="90% (MegaScale, Llama 3)")
    ax.set_xscale("log")
    ax.set_xticks([5, 10, 20, 30, 60, 120], labels=["5", "10", "20", "30", "60", "120"])
    ax.set_title(f"storage {s:,} GB/s")
    ax.set_xlabel("checkpoint interval (min)")
axes[0].set_ylabel("effective training time (%)")
plot_style.legend_outside(fig, where="below", title="checkpoint mode")
fig.suptitle("One 10,000-GPU job, 4 weeks of work, Llama 3's interruption rate, MegaScale's recovery:\n"
             "mean of 5 failure seeds (band: min-max)", y=1.08)
plot_style.save(fig, here / "training_at_scale.png")
print((here / "checks.md").read_text())
