"""scripts/plot_fidelity.py, the plots of `acmesim validate`, on small reports written here: the title
names the trace and the policy (on the figure and in the PNG), the simulated curve is drawn dashed
over the recorded one so both show where they coincide, jobs that did not wait are drawn at 0 s,
and an empty or a one-job group draws without error.
Run: /usr/bin/python3 -m pytest -q tests/scripts   (ctest: plot_fidelity_script)"""
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import plot_fidelity  # noqa: E402
import plot_style  # noqa: E402

FIDELITY_HEAD = "group,jobs,compared,cdf_gap\n"


def report(folder, cdf_rows, utilization_rows="", gaps="", run_json=True):
    """A validate folder: queue_cdf.csv, utilization.csv, fidelity.csv and run/run.json."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "queue_cdf.csv").write_text("group,source,delay_s,cdf\n" + cdf_rows)
    (folder / "utilization.csv").write_text("time_s,recorded_pct,simulated_pct\n" + utilization_rows)
    (folder / "fidelity.csv").write_text(FIDELITY_HEAD + gaps)
    if run_json:
        (folder / "run").mkdir()
        config = {"workload.trace": "/data/acme/trace_seren.csv", "policy.name": "acme"}
        (folder / "run" / "run.json").write_text(json.dumps({"config": config}))
    return folder


def png_text(path):
    """The tEXt chunks of a PNG, as a dict."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = {}, 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"tEXt":
            key, _, value = data[at + 8:at + 8 + length].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        at += 12 + length
    return out


def run_script(folder):
    done = subprocess.run([sys.executable, str(SCRIPTS / "plot_fidelity.py"), str(folder)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


COINCIDING = ("GPU,recorded,0,0.45000\nGPU,recorded,5,0.80000\nGPU,recorded,100,1.00000\n"
              "GPU,simulated,0,0.45000\nGPU,simulated,5,0.80000\nGPU,simulated,100,1.00000\n")


def test_the_title_names_the_trace_and_the_policy_on_both_plots(tmp_path):
    folder = report(tmp_path / "v", COINCIDING, "1677628800,12.5,12.5\n1677632400,20,20\n", "GPU,3,3,0.0000\n")
    run_script(folder)
    title = "trace_seren.csv under acme"
    assert png_text(folder / "queue_cdf.png")["Title"] == f"Queueing delay, recorded and replayed: {title}"
    assert png_text(folder / "utilization.png")["Title"] == f"GPU utilization, recorded and replayed: {title}"


def test_without_run_json_the_title_is_the_folder(tmp_path):
    folder = report(tmp_path / "my-check", COINCIDING, gaps="GPU,3,3,0.0000\n", run_json=False)
    run_script(folder)
    assert png_text(folder / "queue_cdf.png")["Title"].endswith(": my-check")


@pytest.fixture
def figures(monkeypatch):
    """The figures the script saves, kept open to look at."""
    saved = {}
    monkeypatch.setattr(plot_style, "save", lambda fig, path, **kw: saved.setdefault(Path(path).name, fig))
    return saved


def test_coinciding_curves_both_show_the_simulated_dashed_on_top_from_zero_delay(tmp_path, figures):
    folder = report(tmp_path / "v", COINCIDING, gaps="GPU,3,3,0.0000\n")
    plot_fidelity.plot_style.apply()
    plot_fidelity.cdfs(*[plot_fidelity.pd.read_csv(folder / f) for f in ("queue_cdf.csv", "fidelity.csv")],
                       folder / "queue_cdf.png", "t under p")
    ax = figures["queue_cdf.png"].axes[0]
    recorded, simulated = ax.lines
    assert recorded.get_label() == "recorded (trace)" and simulated.get_label() == "simulated (replay)"
    assert simulated.get_zorder() > recorded.get_zorder()  # drawn over it
    assert simulated.get_linestyle() == "--" and simulated.get_linewidth() < recorded.get_linewidth()
    # The 45% that did not wait are the jump at 0 s, on an axis that has a 0.
    assert ax.get_xscale() == "symlog"
    assert list(simulated.get_xdata()[:2]) == [0, 0] and list(simulated.get_ydata()[:2]) == [0, 45]
    assert ax.get_xlim()[0] == 0


def test_an_empty_report_draws_no_cdf_and_a_one_job_group_draws_one(tmp_path):
    empty = report(tmp_path / "empty", "")
    done = run_script(empty)
    assert not (empty / "queue_cdf.png").exists() and "no queueing delay to plot" in done.stderr
    one = report(tmp_path / "one", "Eval,recorded,0,1.00000\nEval,simulated,7,1.00000\n", "1677628800,12.5,12.5\n",
                 "Eval,1,1,1.0000\n")
    run_script(one)
    assert png_text(one / "queue_cdf.png")["Title"].endswith("trace_seren.csv under acme")
    assert (one / "utilization.png").stat().st_size > 0
