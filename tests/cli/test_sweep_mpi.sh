#!/usr/bin/env bash
# A sweep over two MPI ranks gives byte-identical summaries to one process (ctest, ACMESIM_MPI=ON).
# Usage: tests/cli/test_sweep_mpi.sh path/to/acmesim [mpirun]
set -euo pipefail
acmesim=$1
mpirun=${2:-mpirun}
sweep="$(cd "$(dirname "$0")/../.." && pwd)/tests/data/sweep_small.yaml"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$acmesim" sweep "$sweep" --out "$out/one" -q --jobs 1
# Under AddressSanitizer (scripts/test.sh --sanitize): whole stacks at each allocation, so that
# Open MPI's own leaks show the libraries tests/sanitizers/lsan.supp names.
[ -z "${ASAN_OPTIONS+set}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
# Open MPI refuses root without these; --oversubscribe lets two ranks share fewer cores.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  "$mpirun" --oversubscribe -np 2 "$acmesim" sweep "$sweep" --out "$out/two" -q 2>"$out/mpi.log" ||
  { cat "$out/mpi.log" >&2; exit 1; }
grep -q "6 to run on 2 processes" "$out/mpi.log" || { echo "expected 2 ranks:" >&2; cat "$out/mpi.log" >&2; exit 1; }
cmp "$out/one/summary.csv" "$out/two/summary.csv"
cmp "$out/one/summary_by_type.csv" "$out/two/summary_by_type.csv"
[ "$(grep -c ',ok,' "$out/two/summary.csv")" -eq 6 ]
echo "2 MPI ranks: summary.csv and summary_by_type.csv identical to one process"
