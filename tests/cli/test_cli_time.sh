#!/usr/bin/env bash
# One time convention: a configured window is printed as it was written (the console's window
# line, summary.csv), its offset kept (+08:00, or +0800, stays +08:00; a date is midnight UTC,
# +00:00); and the examples of `acmesim --help` chain: calibrate reads the file gen writes.
# Usage: tests/cli/test_cli_time.sh path/to/acmesim   (ctest: cli_time)
set -euo pipefail
acmesim=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# window_of CONFIG OUT [--set ...]: the console's "window A .. B" of a run
window_of() {
  local config=$1 out=$2
  shift 2
  "$acmesim" run "$config" -q --set outputs=console,summary "$@" --out "$work/$out" >"$work/$out.stdout" 2>/dev/null ||
    fail "$out: exit code $?"
  sed -nE 's/.*, window (.*), makespan.*/\1/p' "$work/$out.stdout"
}

got=$(window_of "$src/configs/seren.yaml" seren --set workload.to="2023-03-02 00:00:00+08:00")
[ "$got" = "2023-03-01 00:00:00+08:00 .. 2023-03-02 00:00:00+08:00" ] || fail "seren: window printed as '$got'"
grep -q ',2023-03-01 00:00:00+08:00,2023-03-02 00:00:00+08:00,' "$work/seren/summary.csv" ||
  fail "seren: summary.csv: $(head -2 "$work/seren/summary.csv")"
echo "ok: a +08:00 window is printed in +08:00"

got=$(window_of "$src/configs/kalos.yaml" kalos --set workload.from=2023-06-01 --set workload.to=2023-06-02)
[ "$got" = "2023-06-01 00:00:00+00:00 .. 2023-06-02 00:00:00+00:00" ] || fail "kalos: window printed as '$got'"
# The same instants written in another offset are printed in that one.
got=$(window_of "$src/configs/kalos.yaml" kalos8 --set workload.from="2023-06-01 08:00:00+08:00" \
  --set workload.to="2023-06-02 08:00:00+08:00")
[ "$got" = "2023-06-01 08:00:00+08:00 .. 2023-06-02 08:00:00+08:00" ] || fail "kalos8: window printed as '$got'"
cmp -s <(cut -d, -f20- "$work/kalos/summary.csv") <(cut -d, -f20- "$work/kalos8/summary.csv") ||
  fail "kalos8: the same window written in +08:00 gives other results"
# An offset written +0800 or +05 (strftime's %z, PostgreSQL's) is the same offset.
got=$(window_of "$src/configs/kalos.yaml" kalos8b --set workload.from="2023-06-01 08:00:00+0800" \
  --set workload.to="2023-06-02 05:00:00+05")
[ "$got" = "2023-06-01 08:00:00+08:00 .. 2023-06-02 05:00:00+05:00" ] || fail "kalos8b: window printed as '$got'"
echo "ok: a date window is printed in UTC, an offset window in its offset"

help=$("$acmesim" --help)
written=$(sed -nE 's/^ +acmesim gen .* -o ([^ ]+).*/\1/p' <<<"$help")
read_back=$(sed -nE 's/^ +acmesim calibrate ([^ ]+) .*/\1/p' <<<"$help")
[ -n "$written" ] && [ "$written" = "$read_back" ] || fail "--help: gen writes '$written', calibrate reads '$read_back'"
grep -q "acmesim gen .* -o $written" "$src/README.md" || fail "README.md has no gen writing $written"
echo "ok: --help's gen and calibrate examples name one file, the README's"
