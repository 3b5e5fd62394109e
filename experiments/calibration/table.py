"""The calibration README's tables, from calibrate's CSVs and run.sh's seeds.csv.

Usage: table.py DIR README   (DIR holds seren/calibration.csv, kalos/calibration.csv, seeds.csv)
Rewrites README between "<!-- calibration tables: table.py -->" and "<!-- end of calibration tables -->".
Each duration CDF (22 points) is one row: its largest gap, and how many of its gated points fail.
"""
import csv
import re
import sys
from pathlib import Path

BEGIN = "<!-- calibration tables: table.py -->"
END = "<!-- end of calibration tables -->"
CDF = re.compile(r"duration CDF % (\S+) <= (\d+) s")


def short(failed):
    """"GPU-time % by type: Debug (diff rel. %) (19.918)" -> "Debug GPU-time +19.9% rel."; CDF points likewise."""
    out = []
    for item in filter(None, failed.split("; ")):
        name, diff = re.match(r"(.*) \((-?[0-9.]+)\)$", item).groups()
        m = re.match(r"GPU-time % by type: (\S+)", name)
        c = CDF.match(name)
        if m:
            out.append(f"{m.group(1)} GPU-time share {float(diff):+.1f}% rel.")
        elif c:
            out.append(f"{c.group(1)} duration CDF at {c.group(2)} s {float(diff):+.2f} pts")
        else:
            out.append(f"{name} {float(diff):+.3f}")
    return "; ".join(out) or "-"


def fmt(x):
    return f"{float(x):+.3f}"


def cluster_table(path):
    rows = list(csv.DictReader(open(path)))
    out = ["| statistic | published | trace | difference | tolerance | result |", "|---|---|---|---|---|---|"]
    groups, order = {}, []
    for r in rows:
        m = CDF.match(r["statistic"])
        if not m:
            out.append(f"| {r['statistic']} | {r['published']} | {r['trace']} | {fmt(r['difference'])} | "
                       f"{float(r['tolerance']):g} | {r['pass']} |")
            continue
        if m.group(1) not in groups:
            groups[m.group(1)] = []
            order.append((len(out), m.group(1)))
            out.append(None)
        groups[m.group(1)].append((int(m.group(2)), r))
    for at, g in order:
        pts = groups[g]
        x, worst = max(pts, key=lambda p: abs(float(p[1]["difference"])))
        gated = [r for _, r in pts if r["pass"] != "info"]
        fails = [r for _, r in pts if r["pass"] == "fail"]
        result = "info" if not gated else "pass" if not fails else f"fail ({len(fails)} of {len(pts)} points)"
        out[at] = (f"| duration CDF {g}: largest gap of {len(pts)} points, at {x} s | {worst['published']} | "
                   f"{worst['trace']} | {fmt(worst['difference'])} | {float(worst['tolerance']):g} | {result} |")
    failing = [r for r in rows if r["pass"] == "fail"]
    return out, failing


def main():
    d, readme = Path(sys.argv[1]), Path(sys.argv[2])
    md = []
    seeds = list(csv.DictReader(open(d / "seeds.csv")))
    for s in seeds:
        if s["seed"] == "1":
            md.append(f"**{s['cluster'].capitalize()} ({int(s['jobs']):,} jobs, {int(s['gpu_jobs']):,} GPU jobs): "
                      f"{s['passed']} of {s['gated']} statistics within tolerance.**")
    md.append("")
    md.append("Seeds 1-5 (`seeds.csv`):")
    md.append("")
    md.append("| cluster | seed | statistics within tolerance | out of tolerance |")
    md.append("|---|---|---|---|")
    for s in seeds:
        md.append(f"| {s['cluster']} | {s['seed']} | {s['passed']} of {s['gated']} | {short(s['failed_statistics'])} |")
    for cluster in ("seren", "kalos"):
        table, failing = cluster_table(d / cluster / "calibration.csv")
        md += ["", f"### {cluster}", ""] + table
        if failing:
            md += ["", f"Out of tolerance on {cluster}, seed 1, every point:", "",
                   "| statistic | published | trace | difference | tolerance |", "|---|---|---|---|---|"]
            md += [f"| {r['statistic']} | {r['published']} | {r['trace']} | {fmt(r['difference'])} | "
                   f"{float(r['tolerance']):g} |" for r in failing]
    text = readme.read_text()
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    readme.write_text(text[:a] + "\n" + "\n".join(md) + "\n" + text[b:])


if __name__ == "__main__":
    main()
