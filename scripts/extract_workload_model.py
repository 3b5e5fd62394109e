#!/usr/bin/python3
"""Derive the synthetic workload models of Seren and Kalos from the published AcmeTrace statistics.

Run from the repo root with Debian's Python (numpy):
    /usr/bin/python3 scripts/extract_workload_model.py [json, default workloads/data/acme_workload.json]
Writes, for each cluster, configs/workloads/<cluster>.yaml (the model the generator samples) and
configs/workloads/<cluster>.published.yaml (the statistics `acmesim calibrate` compares a trace
with, and the tolerances). Every block carries a `# source:` comment naming where it came from.

Three parts of the model are fitted here rather than copied (the derivation is in
experiments/calibration/README.md):
  - GPUs per job, per type: hand-written tables (below) that follow each type's published
    quartiles; the residual type takes what is left of the cluster-wide shares, so that the mix
    of types times their sizes gives back the published share of every size exactly.
  - size_duration_coupling, per type: the probability that a job's run-time quantile equals its
    size quantile (negative: 1 - size quantile) instead of being drawn independently. It is
    solved so that each type's expected GPU-time equals its published share of the published
    total.
  - gpu_state_logit: final state as a function of the job's GPU-time g, logit = a + b (log2 g - 20)
    for CANCELLED, then for FAILED among the rest; (a, b) solved so that the share of jobs and of
    GPU-time in each state equal the published ones.
The expectations are computed on the same quasi-random (Kronecker) sequences the generator uses.
Kalos' duration CDFs are the published end - submit ones plus the points scripts/fit_queueing.py
fitted (configs/workloads/kalos.queueing_fit.json, if present), applied before the fits above.
"""
import json
import os
import sys

import numpy as np

from workload_fits import (CENTER, num, pairs, flow, source, cdf, cluster_sizes, le_shares,
                           large_jobs_lines, mean_gpus_lines, balance_size_tables, fit_coupling,
                           sample_gpu_jobs, fit_states, check_quartiles)


GPU_TYPES = ["Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"]
DAYS_PER_MONTH = 365.25 / 12
STATE_BALANCE_GPU_TIME_PCT = 80  # the heaviest jobs' share of GPU-time whose states are drawn jointly
GPU_TIME_BALANCE_PCT = 50  # the heaviest jobs' share of a type's GPU-time whose run times are scaled to its expectation

# Per cluster: the json tables to use and the stated assumptions.
CLUSTERS = {
    "seren": dict(
        name="Seren", cdfs="seren_by_type", utc_offset=8,
        # public trace: 450,590 GPU jobs of 818,327, submitted 2023-03-01 .. 2023-08-31 (184 days)
        window_days=184.0,
        gpu_time_total_s=lambda d: d["arrivals"]["derived_rates_estimate"]["seren_public_gpu_hours"] * 3600.0,
        gpu_time_total_src="arrivals.derived_rates_estimate.seren_public_gpu_hours x 3600",
        eval_batch=dict(share=60.0, sizes=[[16, 20], [32, 40], [63, 40]]),
        session_jobs_mean=3.0,
    ),
    "kalos": dict(
        name="Kalos", cdfs="kalos_by_type", utc_offset=8,
        # public trace: 19,907 GPU jobs of 62,413, submitted 2023-05-17 11:00 .. 2023-08-16 15:18 UTC
        window_days=(91 * 86400 + 4 * 3600 + 17 * 60 + 4) / 86400.0,
        gpu_time_total_s=lambda d: float(sum(d["state_mix"]["kalos_public_exact"]
                                             ["gpu_request_seconds_end_minus_start"].values())),
        gpu_time_total_src="state_mix.kalos_public_exact.gpu_request_seconds_end_minus_start (sum)",
        eval_batch=dict(share=50.0, sizes=[[32, 30], [63, 70]]),
        session_jobs_mean=3.0,
    ),
}

# GPUs per job by type: {size: weight in % of the type's jobs}. The residual type (None here)
# gets what remains of the cluster-wide shares. The comments give the published boxplot (q1,
# median, q3, whiskers); sizes past the whiskers are the boxplot's fliers, and they are where a
# type's GPU-time comes from (the published GPU-time shares need them).
SIZE_TABLES = {
    "seren": {
        "residual": "Eval",  # q1 1, median 1, q3 4, whiskers 1..8
        "overflow": "Other",  # takes the sizes above 8 the other tables leave
        # Pretrain: q1 64, median 128, q3 256, whiskers 40..512; fliers up to 1024.
        # Sizes above 128 are asked for generously: the scaling below caps them at the cluster's.
        "Pretrain": {40: 2.46, 48: 5.26, 56: 1.79, 64: 24.5, 88: 4.48, 128: 13.5, 184: 3.0, 256: 18.5,
                     360: 5.7, 512: 10.2, 624: 1.75, 768: 7.5, 888: 2.5, 1024: 5.0},
        # SFT: q1 2, median 8, q3 8, whiskers 1..16.
        "SFT": {1: 15.0, 2: 25.0, 4: 4.0, 8: 49.2, 16: 4.8, 32: 1.6, 64: 0.3, 128: 0.1},
        # MLLM: q1 1, median 2, q3 8, whiskers 1..16.
        "MLLM": {1: 35.0, 2: 20.0, 4: 10.0, 8: 26.5, 16: 4.5, 32: 2.0, 64: 1.4, 128: 0.6},
        # Debug: all quartiles and whiskers at 8.
        "Debug": {1: 4.0, 8: 84.0, 16: 6.0, 32: 6.0},
        # Other: q1 1, median 1, q3 8, whiskers 1..16.
        "Other": {1: 52.0, 2: 14.0, 3: 0.1, 4: 2.0, 6: 0.1, 8: 26.5, 12: 0.05, 16: 0.9, 24: 0.3, 32: 3.6,
                  64: 0.55, 128: 0.2},
    },
    "kalos": {
        "residual": "Eval",  # all quartiles and whiskers at 1
        "overflow": "Debug",  # takes the sizes above 8 the other tables leave
        # Pretrain: q1 256, median 512, q3 512, whiskers 96..512; fliers at 1024.
        "Pretrain": {96: 0.8, 128: 5.0, 256: 27.0, 384: 0.6, 496: 2.8, 504: 5.0, 512: 35.0, 768: 0.4,
                     1024: 23.4},
        # Debug: q1 32, median 128, q3 512, whiskers 1..1024.
        "Debug": {1: 10.0, 8: 6.0, 16: 4.0, 32: 12.0, 64: 15.0, 128: 9.0, 256: 10.0, 512: 23.0,
                  1024: 11.0},
        # Other: q1 2, median 8, q3 32, whiskers 1..64.
        "Other": {1: 12.0, 2: 18.0, 8: 30.0, 16: 8.0, 32: 12.0, 64: 20.0},
        # SFT: no boxplot for Kalos (8 jobs); ASSUMPTION: one node, as Seren's median.
        "SFT": {8: 100.0},
    },
}

# Not published anywhere in the statistics: stated assumptions, flagged as such in the output.
CPU_JOB_CPUS = [[1, 30], [2, 20], [4, 20], [8, 15], [16, 10], [32, 5]]
USERS = 300
USER_ZIPF_S = 1.1
DAILY_AMPLITUDE = 0.25
PEAK_HOUR = 15.0
WEEKEND_FACTOR = 0.75
SESSION_GAP_S = 90.0
CHECKPOINT_AFTER_S = 1800
BATCH_STAGGER_S = 2

# Points added to Kalos' published end - submit CDFs to make run-time CDFs (scripts/fit_queueing.py).
QUEUEING_FIT = "configs/workloads/kalos.queueing_fit.json"


def type_mix(data, key):
    """Share of all jobs by type (CPU included), public job counts, GPU-time shares by type; sources."""
    public, treemap = data["job_counts"]["public_trace"], data["type_mix"]["figure_treemap_pct"]
    if key == "seren":
        gpu_share = public["seren_gpu_jobs"] / public["seren_jobs"]
        gpu_mix = treemap["seren_gpu_jobs_count_pct"]
        mix = {"CPU": 100 * (1 - gpu_share)}
        mix.update({t: gpu_mix[t] * gpu_share for t in GPU_TYPES})
        mix_src = [source(treemap, "type_mix.figure_treemap_pct.seren_gpu_jobs_count_pct (share of GPU jobs)"),
                   source(public, "job_counts.public_trace.seren_jobs, seren_gpu_jobs (CPU share)")]
        jobs, gpu_jobs = public["seren_jobs"], public["seren_gpu_jobs"]
        gt_share = treemap["seren_gpu_time_pct"]
        gt_src = "type_mix.figure_treemap_pct.seren_gpu_time_pct"
    else:
        counts = data["type_mix"]["kalos_exact_counts"]["all_jobs"]
        total = sum(counts.values())
        mix = {t: 100 * counts[t] / total for t in ["CPU"] + GPU_TYPES if t in counts}
        mix_src = [source(data["type_mix"]["kalos_exact_counts"], "type_mix.kalos_exact_counts.all_jobs")]
        jobs, gpu_jobs = public["kalos_jobs"], public["kalos_gpu_jobs"]
        gt_share = treemap["kalos_gpu_time_pct_excl_SFT"]
        gt_src = "type_mix.figure_treemap_pct.kalos_gpu_time_pct_excl_SFT (SFT, 8 jobs, left out)"
    return dict(mix=mix, mix_src=mix_src, jobs=jobs, gpu_jobs=gpu_jobs, gt_share=gt_share, gt_src=gt_src)


def size_tables(data, m):
    """GPUs per job by type: SIZE_TABLES balanced against the cluster-wide shares (cl), and their mean."""
    spec = SIZE_TABLES[m["key"]]
    cl = cluster_sizes(data["gpu_demand"]["job_share_pct_by_size"][m["name"]])
    tables = balance_size_tables({t: v for t, v in spec.items() if t not in ("residual", "overflow")},
                                 m["gpu_mix_pct"], cl, spec["residual"], spec["overflow"], m["key"])
    model_sizes = {}
    for t in m["types"]:
        tot = sum(tables[t].values())
        for s, w in tables[t].items():
            model_sizes[s] = model_sizes.get(s, 0.0) + m["gpu_mix_pct"][t] * w / tot
    mean_gpus_model = sum(s * w for s, w in model_sizes.items()) / 100
    return dict(cl=cl, tables=tables, res=spec["residual"], model_sizes=model_sizes,
                mean_gpus_model=mean_gpus_model)


def duration_cdfs(data, m):
    """Run-time CDFs by type and of CPU jobs, with notes, and Kalos' GPU-time factors (gt_factor)."""
    key, name, durations = m["key"], m["name"], data["duration_cdf"]
    by_type = durations[m["c"]["cdfs"]]
    # Run time CDFs; Kalos has no SFT CDF: the all-types one. Kalos' (CPU jobs' too) are of end -
    # submit: the points scripts/fit_queueing.py found are added, so that run time plus queueing fit.
    cdfs, cdf_notes = {}, {}
    fitted, gt_factor = {}, {}
    if key == "kalos" and os.path.exists(QUEUEING_FIT):
        with open(QUEUEING_FIT) as f:
            fit = json.load(f)
        fitted, gt_factor = fit["points_added"], fit.get("gpu_time_factor", {})

    def run_time(t, points):  # the published CDF, plus the fitted points if any
        if t not in fitted:
            return cdf(points)
        added = dict((x, a) for x, a in fitted[t])
        cdf_notes[t] = f"published end - submit CDF plus the points of {QUEUEING_FIT} (FITTED)"
        return cdf([[x, min(100.0, max(0.0, y + added.get(x, 0.0)))] for x, y in points])
    for t in m["types"]:
        if t in by_type:
            cdfs[t] = run_time(t, by_type[t]["cdf_points_x_s_y_pct"])
        else:
            cdfs[t] = cdf(durations["gpu_jobs_all_types"][name]["cdf_points_x_s_y_pct"])
            cdf_notes[t] = f"no per-type CDF published for {name}; gpu_jobs_all_types.{name}"
    cpu_points = run_time("CPU", durations["cpu_jobs"][name]["cdf_points_x_s_y_pct"])
    return dict(cdfs=cdfs, cdf_notes=cdf_notes, cpu_points=cpu_points, gt_factor=gt_factor)


def size_duration_couplings(data, m):
    """Coupling of size and run time, per type, to its published share of the total GPU-time."""
    gpu_mix_pct, gt_share, gt_factor = m["gpu_mix_pct"], m["gt_share"], m["gt_factor"]
    total_gt = m["c"]["gpu_time_total_s"](data)
    couplings, coupling_notes = {}, {}
    for t in m["types"]:
        if t not in gt_share:
            couplings[t] = 0.0
            coupling_notes[t] = "no published GPU-time share: independent"
            continue
        # Kalos' shares count queueing (gpu_num x (end - submit)): the run times' part of them is
        # the published share times the factor scripts/fit_queueing.py found (FITTED).
        target = gt_share[t] / 100 * total_gt / (gpu_mix_pct[t] / 100 * m["gpu_jobs"]) * gt_factor.get(t, 1.0)
        p, (lo, ind, hi) = fit_coupling(m["tables"][t], m["cdfs"][t], m["max_run"], target)
        couplings[t] = p
        coupling_notes[t] = (f"target {target:.0f} GPU-s per job; reachable {lo:.0f} (countermonotone) .. "
                             f"{ind:.0f} (independent) .. {hi:.0f} (comonotone)")
        if abs(p) >= 1.0:
            coupling_notes[t] += "; OUT OF REACH, clipped"
            print(f"warning: {m['key']} {t}: GPU-time target out of reach: {coupling_notes[t]}", file=sys.stderr)
    return dict(couplings=couplings, coupling_notes=coupling_notes, total_gt=total_gt)


def final_states(data, m):
    """The state logits, fitted on GPU jobs drawn as the generator draws them; their total GPU-time."""
    gs = data["state_mix"]["gpu_jobs_full_trace"][m["key"]]
    g, w = sample_gpu_jobs(m["tables"], m["couplings"], m["cdfs"], m["gpu_mix_pct"], m["max_run"])
    cancel, fail, resid = fit_states(g, w, gs["count_pct"], gs["gpu_time_pct"])
    gpu_time_check = (g * w).sum() / w.sum() * m["gpu_jobs"]
    for r in resid:
        if np.max(np.abs(r)) > 0.05:
            print(f"warning: {m['key']}: state fit residual {r}", file=sys.stderr)
    return dict(gs=gs, cancel=cancel, fail=fail, gpu_time_check=gpu_time_check)


def build(data, key):
    """The model of one cluster, fitted phase by phase: type mix; GPU sizes; run-time CDFs;
    size-duration couplings; final states. Returns every value model_yaml and published_yaml use."""
    c, name = CLUSTERS[key], CLUSTERS[key]["name"]
    summary = data["cluster_summary"]["rows"][name]
    m = dict(key=key, name=name, c=c, hw=data["clusters"][key], summary=summary,
             max_run=int(summary["max_run_time_gpu"]))
    m.update(type_mix(data, key))
    m["types"] = types = [t for t in GPU_TYPES if t in m["mix"]]
    m["gpu_mix_pct"] = {t: m["mix"][t] / sum(m["mix"][u] for u in types) * 100 for t in types}
    for phase in (size_tables, duration_cdfs, size_duration_couplings, final_states):
        m.update(phase(data, m))
    return m


def header_lines(data, m):
    """The model's header, cluster-wide constants and type mix."""
    key, name, c = m["key"], m["name"], m["c"]
    per_day = m["jobs"] / c["window_days"]
    out = [f"# Synthetic workload model of {name}, generated by scripts/extract_workload_model.py",
           "# from the published AcmeTrace statistics (InternLM/AcmeTrace, CC BY 4.0; Hu et al., NSDI '24).",
           "# Do not edit by hand: edit the script and rerun it. How each fitted value was derived:",
           "# experiments/calibration/README.md.",
           f"cluster: {key}", "",
           source(data["job_counts"]["public_trace"], f"job_counts.public_trace.{key}_jobs") +
           f"; window {c['window_days']:.2f} days (job_counts.public_trace_windows)",
           f"jobs_per_day: {num(round(per_day, 2))}   # all jobs, GPU and CPU: {m['jobs']} / {c['window_days']:.2f} days",
           source(data["clusters"], f"clusters.{key}") + "; the example rows of the AcmeTrace README",
           f"cpus_per_gpu: {16 if key == 'seren' else 15}   # README example rows: "
           + ("8 GPUs, 128 CPUs" if key == "seren" else "64 GPUs, 960 CPUs"),
           source(data["cluster_summary"], f"cluster_summary.rows.{name}.max_run_time_gpu"),
           f"max_run_s: {m['max_run']}   # the longest GPU job of the full trace; longer draws are cut here",
           ""]
    out += m["mix_src"]
    out.append("type_mix_pct:   # share of all jobs by type, summing to 100")
    out += [f"  {t}: {num(round(v, 4))}" for t, v in m["mix"].items()]
    return out


def arrival_lines(c):
    """The arrival pattern and the evaluation batches (assumptions); c: the cluster's CLUSTERS entry."""
    return ["",
            "# source: none. ASSUMPTION: no time-of-day or weekly pattern was published",
            "# (arrivals.note); modest defaults. The rate is rescaled so its weekly mean is jobs_per_day.",
            "arrivals:",
            f"  utc_offset_hours: {c['utc_offset']}   # local time of the cluster (Shanghai)",
            f"  daily_amplitude: {num(DAILY_AMPLITUDE)}   # rate x (1 + a cos(2 pi (hour - peak) / 24))",
            f"  peak_hour: {num(PEAK_HOUR)}",
            f"  weekend_factor: {num(WEEKEND_FACTOR)}   # Saturday and Sunday rate over weekday rate",
            "  # ASSUMPTION: users submit in sessions: one user, a geometric number of jobs, exponential gaps.",
            f"  session_jobs_mean: {num(c['session_jobs_mean'])}",
            f"  session_gap_s: {num(SESSION_GAP_S)}",
            "",
            "# source: arrivals.note and evaluation (NSDI24 poster text): evaluation jobs come in batches,",
            "# one job per benchmark dataset, after a pretraining or fine-tuning checkpoint. ASSUMPTION: the",
            "# share of Eval jobs that are batched, the batch sizes (the paper's example suite has 63",
            "# datasets: evaluation.makespan_reduction) and the checkpoint time. Batched jobs are part of",
            "# the Eval share: each joins the first checkpoint after its own arrival.",
            "eval_batch:",
            f"  share_of_eval_pct: {num(c['eval_batch']['share'])}",
            f"  jobs: {pairs(c['eval_batch']['sizes'])}   # [datasets, weight]",
            f"  checkpoint_after_s: {CHECKPOINT_AFTER_S}   # after the parent's submit (its end if it runs less)",
            f"  stagger_s: {BATCH_STAGGER_S}   # between the jobs of one batch",
            ""]


def gpu_size_lines(data, m):
    """The GPU-size tables by type, each checked against its published quartiles."""
    name, demand = m["name"], data["gpu_demand"]
    boxes = demand["boxplot_by_type"]["values"][name]
    out = [source(demand, f"gpu_demand.job_share_pct_by_size.{name}"),
           source(demand["boxplot_by_type"], f"gpu_demand.boxplot_by_type.values.{name}"),
           "# Per-type tables written to follow each type's quartiles; sizes past the whiskers are the",
           f"# boxplot's fliers. {m['res']} takes what remains of the cluster-wide shares, so the mix gives",
           f"# back every published size share. Mean GPUs per GPU job of this model: {m['mean_gpus_model']:.2f}",
           f"# (cluster_summary avg_gpu_num: {m['summary']['avg_gpu_num']}).",
           "gpu_sizes:   # per type: list of [gpus, weight]; weights need not sum to 100"]
    for t in m["types"]:
        tab = m["tables"][t]
        out.append(f"  {t}: {pairs([[s, round(w, 4)] for s, w in sorted(tab.items()) if round(w, 4) > 0])}")
        if t in boxes:
            out.append(f"    # {check_quartiles(tab, boxes[t])}")
    return out


def coupling_lines(m):
    """The fitted size-duration coupling by type."""
    out = ["",
           f"# source: fitted by scripts/extract_workload_model.py to {m['gt_src']}",
           f"# and a total of {m['total_gt']:.4g} GPU-seconds ({m['c']['gpu_time_total_src']}).",
           "# Probability that a job's run-time quantile is its size quantile (negative: 1 - it), else",
           "# independent: larger jobs of a type run longer. Model total: "
           f"{m['gpu_time_check']:.4g} GPU-seconds per {m['gpu_jobs']} GPU jobs.",
           "size_duration_coupling:"]
    out += [f"  {t}: {num(round(m['couplings'][t], 4))}   # {m['coupling_notes'][t]}" for t in m["types"]]
    return out


def duration_lines(data, m):
    """The run-time CDFs by type and of CPU jobs."""
    durations = data["duration_cdf"]
    out = ["", source(durations, f"duration_cdf.{m['c']['cdfs']} and duration_cdf.cpu_jobs.{m['name']}"),
           f"# Note in the data: {durations['note']}"]
    if m["key"] == "kalos":
        out += ["# Kalos's CDFs are of end - submit (queueing included); `acmesim calibrate` compares a Kalos",
                "# trace's end - submit with them. As run times they are lowered by the replay's queueing:",
                "# scripts/fit_queueing.py fits the points added to them (marked per type below)."]
    out.append("duration_cdf:   # per type: list of [seconds, cdf_pct] at x = 2^k, non-decreasing, last y = 100")
    for t in m["types"]:
        if t in m["cdf_notes"]:
            out.append(f"  # {t}: {m['cdf_notes'][t]}")
        out.append(f"  {t}: {pairs(m['cdfs'][t])}")
    out += [f"  # CPU: {m['cdf_notes']['CPU']}"] if "CPU" in m["cdf_notes"] else []
    return out + [f"  CPU: {pairs(m['cpu_points'])}"]


def state_lines(data, m):
    """Final states, the two balances (variance reduction), and the CPU jobs and users (assumptions)."""
    key, states = m["key"], data["state_mix"]
    gs = states["gpu_jobs_full_trace"]
    ca, cb = m["cancel"]
    fa, fb = m["fail"]
    return ["", source(gs, f"state_mix.gpu_jobs_full_trace.{key}") + " (the only state mix published for",
            "# both counts and GPU-time; the public trace's may differ slightly). FAILED includes TIMEOUT and",
            f"# NODE_FAIL. Targets: count {flow(gs[key]['count_pct'])}, GPU-time {flow(gs[key]['gpu_time_pct'])}.",
            f"# Fitted: P(CANCELLED) = logistic(a + b (log2 GPU-seconds - {CENTER:g})), then P(FAILED | not",
            "# cancelled) the same way: long, large jobs are the cancelled ones, failures are short.",
            "gpu_state_logit:",
            f"  cancelled: [{num(round(ca, 5))}, {num(round(cb, 5))}]",
            f"  failed: [{num(round(fa, 5))}, {num(round(fb, 5))}]",
            "# Not a statistic but variance reduction (workloads/synthetic.h): the jobs that hold this share",
            "# of a sample's GPU-time draw their states jointly, largest first, with odds proportional to each",
            "# state's GPU-time still due, so that the states' GPU-time shares do not hang on how a few",
            "# days-long jobs happen to end (Kalos CANCELLED: 68% or 41% of GPU-time, seeds 1 and 2, without it).",
            f"state_balance_gpu_time_pct: {num(STATE_BALANCE_GPU_TIME_PCT)}",
            "# Variance reduction too: in each GPU type with at least 100 jobs, the heaviest jobs that hold",
            "# this share of the type's GPU-time have their run times scaled by one factor (within 1/4..4) so",
            "# that the type's GPU-time is its expectation given the number of jobs (Kalos Debug: +18% or -13%",
            "# of its published share between seeds without it; one 512-GPU job of 6 h is 14% of it). Both",
            "# balances run as the window is drawn, over the jobs not handed out yet (synthetic_stream.h).",
            f"gpu_time_balance_pct: {num(GPU_TIME_BALANCE_PCT)}",
            source(states["cpu_jobs_full_trace"], f"state_mix.cpu_jobs_full_trace.{key}"),
            f"cpu_state_mix_pct: {flow(states['cpu_jobs_full_trace'][key])}", "",
            "# source: none. ASSUMPTION: CPUs per CPU job are not published; [cpus, weight] is a guess.",
            f"cpu_job_cpus: {pairs(CPU_JOB_CPUS)}",
            "# source: none. ASSUMPTION: the number of distinct users is not published.",
            f"users: {USERS}",
            "# source: none. ASSUMPTION: Zipf exponent of sessions per user (a few heavy users dominate).",
            f"user_zipf_s: {num(USER_ZIPF_S)}"]


def model_yaml(data, m):
    """The text of configs/workloads/<cluster>.yaml, section by section."""
    out = (header_lines(data, m) + arrival_lines(m["c"]) + gpu_size_lines(data, m) + coupling_lines(m)
           + duration_lines(data, m) + state_lines(data, m) + large_jobs_lines(data, m["key"]))
    return "\n".join(out) + "\n"


def published_yaml(data, m):
    key, name, c = m["key"], m["name"], m["c"]
    demand, durations, states = data["gpu_demand"], data["duration_cdf"], data["state_mix"]
    summary = m["summary"]
    le = le_shares(m["cl"])
    per_month = m["gpu_jobs"] / c["window_days"] * DAYS_PER_MONTH
    gs = states["gpu_jobs_full_trace"][key]
    out = [f"# Published statistics of {name} that `acmesim calibrate` compares a trace with, and the",
           "# tolerances of issue 3. Generated by scripts/extract_workload_model.py; do not edit by hand.",
           f"cluster: {key}",
           "# run: end - start; end_minus_submit: Kalos's published durations include queueing",
           f"duration: {'run' if key == 'seren' else 'end_minus_submit'}", ""]
    out += m["mix_src"]
    out.append("type_mix_pct:   # share of all jobs")
    out += [f"  {t}: {num(round(v, 4))}" for t, v in m["mix"].items()]
    out += [f"# source: {m['gt_src']}: {data['type_mix']['figure_treemap_pct']['source']}",
            f"gpu_time_share_pct: {flow(m['gt_share'])}",
            source(demand, f"gpu_demand.job_share_pct_by_size.{name}") + " (cumulated)",
            "size_share_le_pct:   # share of GPU jobs with at most N GPUs",
            *[f"  '{n}': {num(round(v, 3))}" for n, v in le.items()],
            *mean_gpus_lines(data, m),
            source(data["job_counts"]["public_trace"], f"job_counts.public_trace.{key}_gpu_jobs") +
            f" over {c['window_days']:.2f} days, x {DAYS_PER_MONTH} days per month",
            f"gpu_jobs_per_month: {num(round(per_month, 1))}",
            source(states["gpu_jobs_full_trace"], f"state_mix.gpu_jobs_full_trace.{key}") +
            " (FAILED includes TIMEOUT and NODE_FAIL)",
            f"state_count_pct: {flow(gs['count_pct'])}",
            f"state_gpu_time_pct: {flow(gs['gpu_time_pct'])}",
            source(durations, f"duration_cdf.gpu_jobs_all_types.{name}, .{c['cdfs']} and .cpu_jobs.{name}"),
            "duration_cdf:",
            f"  all: {pairs(durations['gpu_jobs_all_types'][name]['cdf_points_x_s_y_pct'])}"]
    out += [f"  {t}: {pairs(v['cdf_points_x_s_y_pct'])}" for t, v in durations[c["cdfs"]].items()]
    out.append(f"  CPU: {pairs(durations['cpu_jobs'][name]['cdf_points_x_s_y_pct'])}")
    out += [source(demand, f"gpu_demand.job_count_cdf_vertices.{name} and gpu_time_cdf_vertices.{name}")
            + " (plots only)",
            f"size_cdf_jobs: {pairs(demand['job_count_cdf_vertices'][name])}",
            f"size_cdf_gpu_time: {pairs(demand['gpu_time_cdf_vertices'][name])}",
            "",
            "# source: issue 3 (tolerances, on the full window)",
            "tolerance:",
            "  type_mix_points: 1",
            "  size_share_points: 1",
            "  gpu_time_share_relative_pct: 10",
            "  duration_cdf_points: 2",
            "  sampling_sigmas: 2   # or within 2 standard errors of two samples of the trace's size (workloads/calibration.h)",
            "  duration_min_type_share_pct: 1   # per-type CDFs for types with at least this share of GPU jobs",
            "  state_count_points: 2",
            "  state_gpu_time_points: 5",
            "  mean_gpus_relative_pct: 5",
            "  gpu_jobs_per_month_relative_pct: 5"]
    return "\n".join(out) + "\n"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "workloads/data/acme_workload.json"
    with open(path) as f:
        data = json.load(f)
    for key in CLUSTERS:
        m = build(data, key)
        for target, text in ((f"configs/workloads/{key}.yaml", model_yaml(data, m)),
                             (f"configs/workloads/{key}.published.yaml", published_yaml(data, m))):
            with open(target, "w") as f:
                f.write(text)
            print(f"wrote {target}")
        print(f"  {key}: mean GPUs {m['mean_gpus_model']:.2f}, couplings "
              + ", ".join(f"{t} {p:+.3f}" for t, p in m["couplings"].items())
              + f"; states cancel {m['cancel'].round(3)}, fail {m['fail'].round(3)}")


if __name__ == "__main__":
    main()
