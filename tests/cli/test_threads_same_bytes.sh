#!/usr/bin/env bash
# Threads change no byte: `acmesim run -j 1`, `-j 2` and `-j 3` write the same files, print the
# same standard output and the same warnings and errors, on a trace read whole (with warnings),
# through a window, leniently with bad rows, with every output (links.csv and the power columns
# included), drawn in-process, and on a trace with an error (the same line, exit code 2, no
# output); a trace in submit order, read as the replay goes, against one read whole first (under
# fifo, and under acme, whose estimates come as its jobs do), and
# with a duplicate id. With more than one thread jobs.csv is written while the run goes.
# Usage: tests/cli/test_threads_same_bytes.sh path/to/acmesim   (ctest: cli_threads_same_bytes)
set -euo pipefail
acmesim=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Two weeks of synthetic Seren (about 40k jobs), with a few rows moved out of submit order, one with
# a gpu_num its node_num does not divide, and (lenient.csv) bad rows and a duplicate id.
"$acmesim" gen --cluster seren --from 2023-03-01 --to 2023-03-15 --seed 3 -o "$work/trace.csv" 2>/dev/null
awk -F, 'NR == 1 { print; next } NR % 997 == 0 { held = $0; next } { print } NR % 997 == 5 && held { print held; held = "" }' \
  "$work/trace.csv" >"$work/moved.csv"
awk -F, -v OFS=, 'NR == 3 { $4 = 9 } { print }' "$work/moved.csv" >"$work/warned.csv"
awk -F, -v OFS=, 'NR % 5000 == 0 { $4 = "x" } NR == 20000 { print } { print }' "$work/warned.csv" >"$work/lenient.csv"
awk -F, -v OFS=, 'NR == 30000 { $9 = "soon" } { print }' "$work/warned.csv" >"$work/bad.csv"

# same NAME SETTINGS...: every file and stream of the run on 1, 2 and 3 threads, compared byte for byte.
same() {
  local name=$1
  shift
  for j in 1 2 3; do
    local out=$work/$name-$j code=0
    "$acmesim" run "$src/configs/seren.yaml" -q -j "$j" --out "$out" --set workload.from= --set workload.to= "$@" \
      >"$work/$name-$j.stdout" 2>"$work/$name-$j.stderr" || code=$?
    echo "$code" >"$work/$name-$j.code"
    # The timings in the info lines differ from run to run, and the output folder; nothing else may.
    sed -i -E "s/[0-9]+\\.[0-9]{3} s/T s/g; s|$out|OUT|g" "$work/$name-$j.stderr"
    [ "$j" = 1 ] && continue
    for f in stdout stderr code; do
      cmp -s "$work/$name-1.$f" "$work/$name-$j.$f" || fail "$name: $f differs on $j threads: $(diff "$work/$name-1.$f" "$work/$name-$j.$f" | head -5)"
    done
    diff -r "$work/$name-1" "$work/$name-$j" >/dev/null 2>&1 || [ ! -e "$work/$name-1" ] ||
      fail "$name: the outputs differ on $j threads: $(diff -rq "$work/$name-1" "$work/$name-$j" | head -3)"
    [ -e "$work/$name-1" ] || [ ! -e "$work/$name-$j" ] || fail "$name: $j threads wrote outputs, 1 did not"
  done
  echo "ok: $name: $(ls "$work/$name-1" 2>/dev/null | tr '\n' ' ')(exit $(cat "$work/$name-1.code"))"
}

same whole --set workload.trace="$work/warned.csv" --set policy.name=fifo
grep -q "rows are submitted before a row above them" "$work/whole-1.stderr" || fail "whole: no warning to compare"
same window --set workload.trace="$work/warned.csv" --set workload.from=2023-03-05 --set workload.to=2023-03-09 \
  --set network.slowdown=true --set network.contention=true --set power.enabled=true
[ -s "$work/window-1/links.csv" ] || fail "window: no links.csv to compare"
same lenient --set workload.trace="$work/lenient.csv" --set workload.lenient=true
grep -q "malformed rows skipped in all" "$work/lenient-1.stderr" || fail "lenient: no skipped rows to compare"
# Jobs drawn in-process as the replay goes (a JobFeed): jobs.csv is written while the run goes only
# once the feed has given its last job.
same feed --set workload.source=synthetic --set workload.from=2023-03-01 --set workload.to=2023-03-08 \
  --set failures.enabled=true --set power.enabled=true
same error --set workload.trace="$work/bad.csv"
[ "$(cat "$work/error-1.code")" = 2 ] || fail "error: exit code $(cat "$work/error-1.code"), expected 2"
# A trace in submit order is replayed as it is read (AcmeTraceFeed): the jobs and the time series of
# a run that reads it whole first (lenient reads do), and with a job id used twice at its end, the
# whole read's error (line and column).
same streamed --set workload.trace="$work/trace.csv" --set policy.name=fifo --set failures.enabled=true \
  --set cache.enabled=false
"$acmesim" run "$src/configs/seren.yaml" -q --out "$work/loaded" --set workload.from= --set workload.to= \
  --set workload.trace="$work/trace.csv" --set policy.name=fifo --set failures.enabled=true --set workload.lenient=true \
  >/dev/null 2>&1
for f in jobs.csv timeseries.csv; do
  cmp -s "$work/streamed-1/$f" "$work/loaded/$f" || fail "streamed: $f differs from the run that read the trace whole"
done
# So is a trace under a policy that reads estimates: each job's comes as the job does (Estimator,
# workloads/estimates.h), the same as when every job's is made first.
same streamed_estimates --set workload.trace="$work/trace.csv" --set policy.name=acme --set cache.enabled=false
"$acmesim" run "$src/configs/seren.yaml" -q --out "$work/loaded_estimates" --set workload.from= --set workload.to= \
  --set workload.trace="$work/trace.csv" --set policy.name=acme --set workload.lenient=true >/dev/null 2>&1
for f in jobs.csv timeseries.csv; do
  cmp -s "$work/streamed_estimates-1/$f" "$work/loaded_estimates/$f" ||
    fail "streamed_estimates: $f differs from the run that read the trace whole"
done
awk -F, -v OFS=, 'NR == 2 { id = $1 } { print; last = $0 } END { $0 = last; $1 = id; print }' "$work/trace.csv" >"$work/dup.csv"
same duplicate --set workload.trace="$work/dup.csv"
grep -q "duplicate job id" "$work/duplicate-1.stderr" || fail "duplicate: $(cat "$work/duplicate-1.stderr")"
