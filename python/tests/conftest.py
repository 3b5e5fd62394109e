"""Fixtures of the Python module's tests (run by ctest `python_module`, or by hand:
PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests)."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ACMESIM_BUILD", ROOT / "build"))
# The trace cache (workloads/trace_cache.h) of these tests: the build's, never the user's.
os.environ.setdefault("ACMESIM_CACHE_DIR", str(BUILD / "test-cache"))


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def cli():
    """Runs the acmesim executable of the same build; returns the CompletedProcess."""
    def call(*args):
        return subprocess.run([str(BUILD / "acmesim"), *map(str, args)], capture_output=True, text=True, cwd=ROOT)
    return call


def random_trace(path, seed, jobs=400):
    """A random AcmeTrace (Seren schema) of the shapes the contract suite draws: GPU jobs of 1 to
    256 GPUs and CPU jobs, some cancelled before they start, submitted over a few hours so that
    they queue on a 32-node cluster."""
    rng = np.random.default_rng(seed)
    types = ["Pretrain", "SFT", "Eval", "Debug", "MLLM", "Other", "CPU"]
    lines = ["job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time"]
    t0 = np.datetime64("2023-03-01T00:00:00")
    submit = np.sort(rng.integers(0, 6 * 3600, jobs))
    for i in range(jobs):
        kind = types[rng.integers(0, len(types))]
        gpus = 0 if kind == "CPU" else int(rng.choice([1, 1, 2, 4, 8, 8, 16, 32, 64, 128, 256]))
        nodes = max(1, -(-gpus // 8))
        run = int(rng.integers(10, 4 * 3600))
        state = rng.choice(["COMPLETED", "COMPLETED", "FAILED", "CANCELLED"])
        sub = t0 + np.timedelta64(int(submit[i]), "s")
        if state == "CANCELLED" and rng.random() < 0.3:  # cancelled in the queue: no start
            start, end = "", str(sub + np.timedelta64(int(rng.integers(1, 3600)), "s"))
        else:
            start, end = str(sub), str(sub + np.timedelta64(run, "s"))
        fmt = lambda t: t.replace("T", " ") + "+08:00" if t else ""
        lines.append(f"{i + 1},u{rng.integers(0, 20)},{nodes},{gpus},{8 * max(1, gpus)},{kind},{state},"
                     f"{fmt(str(sub))},{fmt(start)},{fmt(end)}")
    Path(path).write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def small_cluster(tmp_path):
    """A 32-node Seren-like cluster file and a run configuration that replays a trace on it."""
    cluster = tmp_path / "cluster.yaml"
    text = (ROOT / "configs/clusters/seren.yaml").read_text()
    cluster.write_text("\n".join("nodes: 32" if line.startswith("nodes:") else line for line in text.splitlines()) + "\n")
    return cluster
