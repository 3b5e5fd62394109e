#!/usr/bin/env bash
# A sweep run as separate shards (acmesim sweep --shard I/N, as the tasks of a Slurm job array
# run it) and merged (--merge) gives byte-identical summaries to one process; a merge before
# every shard is done reports the missing runs and exits 1; a shard run again runs nothing; a
# malformed --shard is one line and exit 2.
# Usage: tests/cli/test_sweep_shards.sh path/to/acmesim
set -euo pipefail
acmesim=$1
sweep="$(cd "$(dirname "$0")/../.." && pwd)/tests/data/sweep_small.yaml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/input_error.sh"

for bad in 3/3 -1/2 1/0 x 1/2/3 "1/ 2"; do
  code=0
  "$acmesim" sweep "$sweep" --out "$work/bad" --shard "$bad" >"$work/stdout" 2>"$work/stderr" || code=$?
  check_input_error "--shard $bad" "--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '$bad'" "$code" "$work/bad"
done

"$acmesim" sweep "$sweep" --out "$work/one" -q --jobs 1 2>/dev/null
# Four shards of six runs (runs of one workload kept together): shares of 2, 1, 2 and 1 runs.
"$acmesim" sweep "$sweep" --out "$work/shards" -q --shard 0/4 2>"$work/shard0.log"
grep -q "shard 0/4: 2 runs to run" "$work/shard0.log" || fail "shard 0/4: $(cat "$work/shard0.log")"
code=0
"$acmesim" sweep "$sweep" --out "$work/shards" -q --merge 2>"$work/merge.log" || code=$?
[ "$code" = 1 ] || fail "a merge with runs missing exited $code"
grep -q "2 runs ok, 0 failed, 4 missing" "$work/merge.log" || fail "merge: $(cat "$work/merge.log")"
[ "$(grep -c ',missing,' "$work/shards/summary.csv")" = 4 ] || fail "expected 4 missing rows"
for i in 1 2 3; do "$acmesim" sweep "$sweep" --out "$work/shards" -q --shard $i/4 2>/dev/null; done
"$acmesim" sweep "$sweep" --out "$work/shards" -q --shard 2/4 2>"$work/again.log"
grep -q "shard 2/4: 0 runs to run" "$work/again.log" || fail "a finished shard ran again: $(cat "$work/again.log")"
"$acmesim" sweep "$sweep" --out "$work/shards" -q --merge 2>/dev/null || fail "the merge of every shard failed"
cmp "$work/one/summary.csv" "$work/shards/summary.csv"
cmp "$work/one/summary_by_type.csv" "$work/shards/summary_by_type.csv"
echo "4 shards + merge: summary.csv and summary_by_type.csv identical to one process"
