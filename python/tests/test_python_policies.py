"""Policies written in Python: the same schedule as C++ where they are the same policy, by name
from YAML with keys, and with preemption."""
import pandas as pd
import pytest

import acmesim
from conftest import random_trace
from policies_for_tests import Fifo, LargestFirst


def bare_config(tmp_path, cluster, trace, extra=""):
    config = tmp_path / "run.yaml"
    config.write_text(f"cluster: {cluster}\nworkload:\n  trace: {trace}\nreplay: policy\n{extra}")
    return config


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_python_fifo_writes_the_jobs_csv_of_the_cpp_fifo_byte_for_byte(tmp_path, small_cluster, cli, seed):
    trace = random_trace(tmp_path / f"trace{seed}.csv", seed)
    config = bare_config(tmp_path, small_cluster, trace)
    assert cli("run", config, "-q", "--set=policy.name=fifo", "--set=outputs=jobs,summary", "--out",
               tmp_path / "cpp").returncode == 0
    acmesim.run(config, policy=Fifo(), outputs=["jobs", "summary"], out=tmp_path / "py")
    cpp, py = (tmp_path / "cpp/jobs.csv").read_bytes(), (tmp_path / "py/jobs.csv").read_bytes()
    assert cpp == py
    assert pd.read_csv(tmp_path / "cpp/jobs.csv").queue_s.max() > 0  # the queue was not trivial


def test_a_policy_named_in_yaml_gets_its_keys_as_arguments(tmp_path, small_cluster):
    trace = random_trace(tmp_path / "trace.csv", 7)
    config = bare_config(tmp_path, small_cluster, trace,
                         "policy:\n  name: python:policies_for_tests.LargestFirst\n  min_gpus: 128\n")
    result = acmesim.run(config)
    assert result.summary["policy.name"].iloc[0] == "python:policies_for_tests.LargestFirst"
    assert str(result.summary["policy.min_gpus"].iloc[0]) == "128"
    with pytest.raises(acmesim.InputError, match="unexpected keyword argument 'nonsense'"):
        acmesim.run(config, set={"policy.nonsense": 1})


def test_a_python_policy_that_preempts(tmp_path, small_cluster):
    trace = random_trace(tmp_path / "trace.csv", 8, jobs=600)
    result = acmesim.run(bare_config(tmp_path, small_cluster, trace), policy=LargestFirst(min_gpus=64))
    jobs = result.jobs
    assert jobs.preemptions.sum() > 0
    waste = result.waste.set_index("cause").gpu_hours
    assert waste["preemption"] > 0
    assert result.run["conservation"]["ok"]
    assert (jobs.state != "PENDING").all()


def test_a_python_policy_by_name_runs_in_a_sweep_on_two_workers_as_the_cpp_one(root, tmp_path):
    # Both workers run the Python policy at once, three sweeps over: a call that touched Python
    # objects without the GIL crashed about six such sweeps in ten.
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"base: {root}/configs/kalos.yaml\nset:\n  workload.to: 2023-06-04\n"
                     "grid:\n  policy.name: [fifo, 'python:policies_for_tests.Fifo']\nseeds: [1, 2, 3, 4]\n")
    for attempt in range(3):
        summary = acmesim.sweep(sweep, tmp_path / f"out{attempt}", jobs=2).set_index(["policy.name", "seed"])
        for seed in range(1, 5):
            cpp, py = summary.loc[("fifo", seed)], summary.loc[("python:policies_for_tests.Fifo", seed)]
            assert cpp.queue_mean_s == py.queue_mean_s and cpp.gpu_hours == py.gpu_hours
