#!/usr/bin/python3
"""Writes the table of replay.csv (scripts/bench.sh) into this folder's README, between the
markers `<!-- replay table: table.py -->` and `<!-- end of replay table -->`: every replay's
median and fastest wall time, peak memory, and its ratio to FIFO with the same outputs on the
same trace, with the day and machine they were measured on.

Usage: /usr/bin/python3 experiments/performance/table.py [REPLAY_CSV [README]]
"""
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
START, END = "<!-- replay table: table.py -->", "<!-- end of replay table -->"


def target_text(target):
    """'1.0' -> '1 s', '2xfifo' -> '2x FIFO', '1.5xslowdown' -> '1.5x fifo+slowdown'."""
    try:
        return f"{float(target):g} s"
    except ValueError:
        return target.replace("xfifo", "x FIFO").replace("xslowdown", "x fifo+slowdown")


def table(replay):
    fifo = replay[replay.policy == "fifo"].set_index(["case", "jobs", "outputs"]).wall_s_median
    lines = ["| case | policy | jobs | nodes | outputs | median s | fastest s | peak MiB | x FIFO | target |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in replay.itertuples():
        # FIFO's runs alternated with the row's when it has them, else the FIFO row's.
        base = r.fifo_s_median if not pd.isna(r.fifo_s_median) else fifo.get((r.case, r.jobs, r.outputs))
        ratio = f"{r.wall_s_median / base:.2f}" if base and r.case != "sweep" else "-"
        target = "" if pd.isna(r.target_s) else target_text(r.target_s)
        nodes = "" if pd.isna(r.nodes) else f"{int(r.nodes):,}"
        lines.append(f"| {r.case} | {r.policy} | {r.jobs:,} | {nodes} | {r.outputs} | {r.wall_s_median:.2f} | "
                     f"{r.wall_s_min:.2f} | {r.peak_mib} | {ratio} | {target} |")
    when = ", ".join(sorted(set(replay.date)))
    machines = "; ".join(sorted(set(replay.machine)))
    return (f"Measured {when} on {machines}; {replay.runs.max()} runs each, one core (`taskset -c 0`) but "
            "the `<N>cores` rows and the sweep (every core); wall times on this shared machine drift by tens "
            "of percent. x FIFO: against FIFO's runs alternated with the row's for a target in x FIFO, else "
            "against the FIFO row with the same outputs.\n\n"
            + "\n".join(lines))


def main():
    csv = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "replay.csv"
    readme = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "README.md"
    block = table(pd.read_csv(csv, dtype={"target_s": str}))
    text = readme.read_text()
    if START not in text or END not in text:
        sys.exit(f"{readme}: no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{START}\n{block}\n{END}{tail}")


if __name__ == "__main__":
    main()
