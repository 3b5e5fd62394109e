"""Result.to_csv writes the command line's files byte for byte; the run's info and warning lines
go to the Python logger "acmesim", never straight to stderr."""
import logging

import acmesim

DAYS = {"workload.from": "2023-06-01", "workload.to": "2023-06-03"}
EVERY = ["jobs", "timeseries", "summary", "waste", "evaluations", "users", "run_json"]  # summary: also by type; timeseries: links


def test_to_csv_writes_the_files_of_the_command_line_byte_for_byte(root, cli, tmp_path):
    sets = {**DAYS, "network.slowdown": "true", "network.contention": "true", "power.enabled": "true"}
    outputs = ",".join(EVERY)
    assert cli("run", root / "configs/kalos.yaml", "-q", *[f"--set={k}={v}" for k, v in sets.items()],
               f"--set=outputs={outputs}", "--out", tmp_path / "cli").returncode == 0
    result = acmesim.run(root / "configs/kalos.yaml", set=sets, outputs=EVERY)
    result.to_csv(tmp_path / "py")
    written = sorted(p.name for p in (tmp_path / "py").iterdir())
    assert {"jobs.csv", "links.csv", "summary.csv", "summary_by_type.csv", "run.json"} <= set(written)
    for name in written:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    # Reals keep the decimals of their files: 1.000, not 1.0.
    assert ",1.000," in (tmp_path / "py/jobs.csv").read_text()


def test_to_csv_of_a_result_read_from_out_copies_its_files(root, tmp_path):
    result = acmesim.run(root / "configs/kalos.yaml", set=DAYS, outputs=["jobs", "summary"], out=tmp_path / "out")
    result.to_csv(tmp_path / "again")
    for name in ("jobs.csv", "summary.csv"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "out" / name).read_bytes()


def test_info_lines_are_records_of_the_acmesim_logger_and_nothing_goes_to_stderr(root, caplog, capfd):
    with caplog.at_level(logging.INFO, logger="acmesim"):
        acmesim.run(root / "configs/kalos.yaml", set=DAYS, outputs=["summary"])
    lines = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert any(name == "acmesim" and level == logging.INFO and "synthetic kalos" in text for name, level, text in lines), lines
    assert capfd.readouterr().err == ""


def test_a_notebook_silences_them_with_the_loggers_level(root, caplog, capfd):
    logging.getLogger("acmesim").setLevel(logging.ERROR)
    try:
        acmesim.run(root / "configs/kalos.yaml", set=DAYS, outputs=["summary"])
    finally:
        logging.getLogger("acmesim").setLevel(logging.NOTSET)
    assert not [r for r in caplog.records if r.name == "acmesim"]
    assert capfd.readouterr().err == ""
