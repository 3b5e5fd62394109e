"""Errors surface as Python exceptions with the command line's message; the process lives on."""
import pytest

import acmesim


@pytest.mark.parametrize("sets", [
    {"policy.name": "fifo", "policy.nmae": 3},
    {"workload.to": "2023-02-01"},
    {"outputs": "jobs,plots"},
    {"policy.name": "nosuch"},
])
def test_input_errors_carry_the_command_lines_message(root, cli, sets):
    with pytest.raises(acmesim.InputError) as raised:
        acmesim.run(root / "configs/seren.yaml", set=sets, outputs=["summary"])
    cli_run = cli("run", "configs/seren.yaml", "-q", *[f"--set={k}={v}" for k, v in sets.items()],
                  "--set=outputs=summary", "--out", "/nonexistent-never-made")
    assert cli_run.returncode == 2
    assert cli_run.stderr.strip() == f"acmesim: error: {raised.value}"


def test_a_missing_file_names_it(tmp_path):
    with pytest.raises(acmesim.InputError, match="no such file"):
        acmesim.run(tmp_path / "none.yaml")


def test_a_policy_that_raises_stops_the_run_with_its_traceback_and_the_simulated_time(root):
    from policies_for_tests import RaisesAt
    with pytest.raises(acmesim.PolicyError) as raised:
        acmesim.run(root / "configs/kalos.yaml", policy=RaisesAt(at=1685577600 + 3600))
    text = str(raised.value)
    assert "policy RaisesAt.schedule raised at simulated time 16855" in text
    assert "ZeroDivisionError: raised on purpose" in text and "policies_for_tests.py" in text
    # The module still works after it.
    assert acmesim.run(root / "configs/kalos.yaml", set={"workload.to": "2023-06-02"}, outputs=["summary"]).summary is not None


def test_a_policy_object_must_be_an_acmesim_policy(root):
    with pytest.raises(TypeError):
        acmesim.run(root / "configs/kalos.yaml", policy=object())
