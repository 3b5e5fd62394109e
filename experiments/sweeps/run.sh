#!/usr/bin/env bash
# The example sweep of app/README.md ("Sweeps"): configs/sweeps/example.yaml (fifo, acme and
# backfill on Seren at loads 1.0 and 1.25, seeds 1 and 2) into out/sweep-example, its figures,
# and the `compare` table written into app/README.md between the markers
# `<!-- example sweep: experiments/sweeps/run.sh -->` and `<!-- end of example sweep -->`, so that
# the numbers shown are the numbers a run gives (scripts/docs_check.sh reruns this). About 5 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build.sh >/dev/null
rm -rf out/sweep-example
build/acmesim sweep configs/sweeps/example.yaml --out out/sweep-example 2>/dev/null
table=$(build/acmesim compare out/sweep-example --by policy.name,workload.load --baseline fifo/1.0)
/usr/bin/python3 experiments/sweeps/plot.py out/sweep-example >/dev/null
/usr/bin/python3 - "$table" <<'PY'
import sys
from pathlib import Path
readme = Path("app/README.md")
start, end = "<!-- example sweep: experiments/sweeps/run.sh -->", "<!-- end of example sweep -->"
text = readme.read_text()
head, rest = text.split(start, 1)
readme.write_text(head + start + "\n```\n" + sys.argv[1] + "\n```\n" + end + rest.split(end, 1)[1])
PY
echo "$table"
