"""acmesim.run and friends: DataFrames with the command line's columns and values."""
import pandas as pd
import pytest

import acmesim

MONTH = {"workload.from": "2023-06-01", "workload.to": "2023-06-04"}


def test_run_returns_the_outputs_of_the_command_line_as_dataframes(root, cli, tmp_path):
    result = acmesim.run(root / "configs/kalos.yaml", set=MONTH)
    assert cli("run", "configs/kalos.yaml", "-q", *[f"--set={k}={v}" for k, v in MONTH.items()],
               "--out", tmp_path).returncode == 0
    assert result.links is None  # written with network contention only
    for attr, file in acmesim.OUTPUTS.items():
        frame = getattr(result, attr)
        if frame is None:
            continue
        written = pd.read_csv(tmp_path / file)
        assert list(frame.columns) == list(written.columns), file
        assert len(frame) == len(written), file
    # Values: the integers exactly, the reals to the files' 3 decimals.
    jobs, written = result.jobs, pd.read_csv(tmp_path / "jobs.csv")
    for column in ["gpu_num", "submit_s", "gpu_seconds", "wasted_gpu_seconds"]:
        assert (jobs[column] == written[column]).all(), column
    assert ((jobs.queue_s.astype(float) - written.queue_s).abs().fillna(0) == 0).all()
    assert ((jobs.slowdown - written.slowdown).abs().fillna(0) < 5e-4).all()
    assert result.summary.queue_mean_s.iloc[0] == pytest.approx(pd.read_csv(tmp_path / "summary.csv").queue_mean_s.iloc[0])
    assert result.run["config"]["policy.name"] == "acme"


def test_config_as_a_dict_and_to_csv(root, tmp_path):
    config = {"cluster": str(root / "configs/clusters/kalos.yaml"),
              "workload": {"model": str(root / "configs/workloads/kalos.yaml"), **{k.split(".")[1]: v for k, v in MONTH.items()}},
              "policy": {"name": "backfill", "depth": 32}}
    result = acmesim.run(config, outputs=["jobs", "summary"])
    assert result.timeseries is None and result.evaluations is None
    assert result.summary["policy.name"].iloc[0] == "backfill"
    assert result.summary["policy.depth"].iloc[0] == 32
    result.to_csv(tmp_path / "out")
    assert pd.read_csv(tmp_path / "out/jobs.csv").shape == result.jobs.shape


def test_policies_and_keys_list_what_acmesim_list_lists(cli):
    names = acmesim.policies().name.tolist()
    assert names[:2] == ["acme", "fifo"] and "srtf" in names
    keys = acmesim.keys().set_index("key")
    listed = cli("list").stdout
    for key in ["network.slowdown", "launch.max_s", "failures.checkpoint_interval_s", "policy.backfill_depth"]:
        assert key in keys.index and key in listed
    assert keys.loc["failures.checkpoint_interval_s", "default"] == "10800"
    assert keys.loc["seed", "default"] == "1"


def test_gen_and_sweep(root, tmp_path):
    trace = acmesim.gen("kalos", "2023-06-01", "2023-06-02", tmp_path / "kalos.csv", seed=3)
    assert pd.read_csv(trace).shape[0] > 100
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"base: {root}/configs/kalos.yaml\nset:\n  workload.to: 2023-06-02\n"
                     "grid:\n  policy.name: [fifo, acme]\nseeds: [1, 2]\n")
    summary = acmesim.sweep(sweep, tmp_path / "sweep")
    assert len(summary) == 4 and set(summary["policy.name"]) == {"fifo", "acme"}


def test_run_with_contention_returns_the_link_loads(root):
    result = acmesim.run(root / "configs/kalos.yaml", set={**MONTH, "network.slowdown": True, "network.contention": True})
    assert set(result.links.tier) == {"nic", "leaf_uplink"}
    assert list(result.links.time_s.unique()) == list(result.timeseries.time_s)
    assert "peak_uplink_load" in result.timeseries


def test_the_namespace_shows_the_api_and_the_version_of_the_command_line(cli):
    for private in ("np", "pd", "os", "json", "itertools", "importlib", "inspect", "threading"):
        assert private not in dir(acmesim)
    for public in acmesim.__all__:
        assert hasattr(acmesim, public)
    assert cli("--version").stdout.strip() == f"acmesim {acmesim.__version__}"


def test_help_names_the_arguments_of_the_compiled_functions_and_methods():
    core = acmesim._acmesim
    documented = [f for f in vars(core).values() if callable(f) and type(f).__name__ == "builtin_function_or_method"]
    for cls in (acmesim.SchedulingPass, acmesim.JobRequest):
        documented += [f for name, f in vars(cls).items() if not name.startswith("_") and callable(f)]
    assert len(documented) > 15
    for f in documented:
        assert f.__doc__ and "arg0" not in f.__doc__, f.__doc__
    assert "try_start(self: acmesim._acmesim.SchedulingPass, job: int) -> bool" in acmesim.SchedulingPass.try_start.__doc__
    assert "gen(cluster: str, start: str, end: str" in core.gen.__doc__
