#!/usr/bin/env python3
"""Queueing statistics of one run (its jobs.csv), in the terms acme_queue.json publishes them.

Usage: measure.py RUN_DIR [LABEL]  prints one line: GPU-job mean and median, CPU-job mean and
median, the mean of 1-GPU jobs and of jobs over 512 GPUs, and the mean by job type.
"""
import sys

import pandas as pd

TYPES = ["Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"]


def stats(run_dir):
    jobs = pd.read_csv(f"{run_dir}/jobs.csv", usecols=["type", "gpu_num", "queue_s"])
    jobs = jobs.dropna(subset=["queue_s"])  # never started
    gpu, cpu = jobs[jobs.gpu_num > 0], jobs[jobs.gpu_num == 0]
    row = {
        "gpu_mean_s": gpu.queue_s.mean(), "gpu_median_s": gpu.queue_s.median(),
        "cpu_mean_s": cpu.queue_s.mean(), "cpu_median_s": cpu.queue_s.median(),
        "gpu1_mean_s": gpu[gpu.gpu_num == 1].queue_s.mean(),
        "gpu_over512_mean_s": gpu[gpu.gpu_num > 512].queue_s.mean(),
    }
    for t in TYPES:
        row[f"{t}_mean_s"] = gpu[gpu.type == t].queue_s.mean()
    return row


if __name__ == "__main__":
    r = stats(sys.argv[1])
    label = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    print(label, " ".join(f"{k.replace('_mean_s','').replace('_s','')}={v:.0f}" for k, v in r.items()))
