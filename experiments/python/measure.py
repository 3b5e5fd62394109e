#!/usr/bin/python3
"""The Python module's cost (issue 23's targets) on one month and on six months of synthetic Seren
(configs/seren.yaml, policy fifo), medians of 5 runs, wall time in this process or of the
subprocess:
  cli_csv         `acmesim run` writing every default output as CSV (a subprocess)
  python_frames   acmesim.run returning the same outputs as DataFrames
  python_fifo     acmesim.run with the FIFO written in Python (python/tests/policies_for_tests.py)
Writes results.csv here (with the day and the machine) and the table of README.md.
Usage: /usr/bin/python3 experiments/python/measure.py [BUILD_DIR]   (from the repository root)"""
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build").resolve()
sys.path[:0] = [str(BUILD / "python"), str(ROOT / "python/tests")]
import acmesim  # noqa: E402
import pandas as pd  # noqa: E402
from policies_for_tests import Fifo  # noqa: E402

CONFIG = str(ROOT / "configs/seren.yaml")
OUTPUTS = ["jobs", "timeseries", "summary", "waste", "run_json", "evaluations"]
RUNS = 5


def timed(action):
    walls = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        walls.append(time.perf_counter() - start)
    return statistics.median(walls), min(walls)


WINDOWS = {"one month": "2023-04-01", "six months": "2023-09-01"}  # workload.to; from 2023-03-01


def cases(to):
    out = tempfile.mkdtemp()
    sets = {"policy.name": "fifo", "workload.to": to}
    return {
        "cli_csv": lambda: subprocess.run([str(BUILD / "acmesim"), "run", CONFIG, "-q", "--out", out,
                                           *[f"--set={k}={v}" for k, v in sets.items()],
                                           "--set=outputs=" + ",".join(OUTPUTS)], check=True, capture_output=True),
        "python_frames": lambda: acmesim.run(CONFIG, set=sets, outputs=OUTPUTS),
        "python_fifo": lambda: acmesim.run(CONFIG, set={"workload.to": to}, policy=Fifo(), outputs=OUTPUTS),
    }


def main():
    machine = f"{platform.processor() or platform.machine()}; {os.cpu_count()} cores"
    rows = []
    for window, to in WINDOWS.items():
        for case, action in cases(to).items():
            median, fastest = timed(action)
            rows.append({"window": window, "case": case, "runs": RUNS, "wall_s_median": round(median, 3),
                         "wall_s_min": round(fastest, 3), "date": datetime.date.today().isoformat(),
                         "machine": machine})
    table = pd.DataFrame(rows)
    cli = table[table.case == "cli_csv"].set_index("window").wall_s_median
    table["x_cli_csv"] = (table.wall_s_median / table.window.map(cli)).round(2)
    frames = table[table.case == "python_frames"].set_index("window").wall_s_median
    table["x_cpp_policy"] = (table.wall_s_median / table.window.map(frames)).round(2)
    table.to_csv(HERE / "results.csv", index=False)
    write_readme(table)
    print(table.to_string(index=False))


def write_readme(table):
    start, end = "<!-- results table: measure.py -->", "<!-- end of results table -->"
    lines = [f"Measured {table.date.iloc[0]} on {table.machine.iloc[0]}; medians of {RUNS} runs.", "",
             "| window | case | median s | fastest s | x the command line | x python_frames |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r.window} | {r.case} | {r.wall_s_median:.2f} | {r.wall_s_min:.2f} | {r.x_cli_csv:.2f} | "
              f"{r.x_cpp_policy:.2f} |" for r in table.itertuples()]
    readme = HERE / "README.md"
    text = readme.read_text()
    head, rest = text.split(start, 1)
    readme.write_text(head + start + "\n" + "\n".join(lines) + "\n" + end + rest.split(end, 1)[1])


if __name__ == "__main__":
    main()
