#!/usr/bin/env bash
# Executes experiments/sweeps/sweep.ipynb, and plot.py, on a small sweep's output (ctest).
# Usage: tests/cli/test_sweep_notebook.sh path/to/acmesim
set -euo pipefail
acmesim=$1
root="$(cd "$(dirname "$0")/../.." && pwd)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$acmesim" sweep "$root/tests/data/sweep_small.yaml" --out "$out/sweep" -q
# Debian's python3 (pandas, matplotlib, the kernel), not another python3 on the PATH.
export PATH="/usr/bin:$PATH" SWEEP_DIR="$out/sweep" ACMESIM_PYTHON="$(cd "$(dirname "$acmesim")" && pwd)/python"
/usr/bin/python3 -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
  --output-dir "$out" "$root/experiments/sweeps/sweep.ipynb" 2>"$out/nbconvert.log" ||
  { cat "$out/nbconvert.log" >&2; exit 1; }
/usr/bin/python3 "$root/experiments/sweeps/plot.py" "$out/sweep" "$out/png"
for f in queue_cdf utilization waste_by_cause heatmap; do
  [ -s "$out/png/$f.png" ] || { echo "missing $f.png" >&2; exit 1; }
done
echo "notebook and plot.py ran on $(($(wc -l <"$out/sweep/summary.csv") - 1)) runs"
