#!/usr/bin/env bash
# acmesim validate end to end: a week of synthetic Seren and of Kalos from `acmesim gen --policy
# greedy`, replayed under greedy, matches every job's queueing delay (exit 0, 0 mismatched, CDF
# gap 0); under FIFO with a tight tolerance it reports the gap and exits 1; a malformed, an empty
# or a missing trace, and an unknown validate key, exit 2 with one line on stderr and no output.
# Usage: tests/cli/test_cli_validate.sh path/to/acmesim   (ctest: cli_validate)
set -euo pipefail
acmesim=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=input_error.sh
. "$src/tests/cli/input_error.sh"
cd "$src"  # configs/ and scripts/ found from here, so the plots are drawn
cell() {  # cell GROUP COLUMN FILE
  /usr/bin/python3 -c 'import csv, sys
print(next(r for r in csv.DictReader(open(sys.argv[3])) if r["group"] == sys.argv[1])[sys.argv[2]])' "$@"
}

for spec in seren:2023-03-01:2023-03-08 kalos:2023-06-01:2023-06-08; do
  IFS=: read -r cluster from to <<<"$spec"
  "$acmesim" gen --cluster "$cluster" --from "$from" --to "$to" --policy greedy -o "$work/$cluster.csv" 2>/dev/null
  out=$work/$cluster-greedy
  "$acmesim" validate "$work/$cluster.csv" --cluster "$cluster" --set policy.name=greedy --out "$out" -q \
    >"$work/stdout" 2>"$work/stderr" || fail "$cluster greedy: exit code $? ($(cat "$work/stderr"))"
  grep -q "^0 jobs whose queueing delay differs" "$work/stdout" || fail "$cluster greedy: $(cat "$work/stdout")"
  [ "$(cell GPU mismatched "$out/fidelity.csv")" = 0 ] || fail "$cluster greedy: GPU jobs mismatched"
  [ "$(cell GPU cdf_gap "$out/fidelity.csv")" = 0.0000 ] || fail "$cluster greedy: cdf gap"
  # Every start given back: the same utilization (launch latency, which no trace records, is not counted).
  [ "$(cell utilization mean_abs_diff "$out/fidelity.csv")" = 0.000 ] ||
    fail "$cluster greedy: utilization differs by $(cell utilization mean_abs_diff "$out/fidelity.csv") points"
  [ -s "$out/run/jobs.csv" ] || fail "$cluster greedy: no run/jobs.csv"
  if /usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null; then
    [ -s "$out/queue_cdf.png" ] && [ -s "$out/utilization.png" ] || fail "$cluster greedy: no plots"
  fi
  # The network slowdown (off by default here, as in gen's replay) stretches multi-node runs.
  "$acmesim" validate "$work/$cluster.csv" --cluster "$cluster" --set policy.name=greedy --set network.slowdown=true \
    --out "$work/slow" -q >"$work/stdout" 2>/dev/null || true
  [ "$(cell GPU mismatched "$work/slow/fidelity.csv")" != 0 ] || fail "$cluster: slowdown changes no start"
  echo "ok: $cluster greedy matches ($(cell GPU compared "$out/fidelity.csv") GPU jobs compared)"

  # FIFO fails a tight tolerance where a blocked job holds others back: on Seren at twice its
  # load (large jobs are submitted within a cap, large_jobs: at the published load a week rarely
  # fills either cluster).
  [ "$cluster" = seren ] || continue
  out=$work/$cluster-fifo
  code=0
  "$acmesim" gen --cluster "$cluster" --from "$from" --to "$to" --policy greedy --load 2 -o "$work/busy.csv" 2>/dev/null
  "$acmesim" validate "$work/busy.csv" --cluster "$cluster" --set policy.name=fifo \
    --set validate.max_cdf_gap=0.001 --out "$out" -q >"$work/stdout" 2>"$work/stderr" || code=$?
  [ "$code" = 1 ] || fail "$cluster fifo: exit code $code, expected 1 ($(cat "$work/stderr"))"
  grep -q "^GPU .* FAIL$" "$work/stdout" || fail "$cluster fifo: no failing GPU row: $(cat "$work/stdout")"
  [ "$(cell GPU result "$out/fidelity.csv")" = fail ] || fail "$cluster fifo: GPU row does not fail"
  echo "ok: $cluster fifo reports a gap of $(cell GPU cdf_gap "$out/fidelity.csv")"
done

# Other policies of gen's replay: the same policy gives every start back, the default (acme, with
# its estimates and launch latency) on both clusters too.
for spec in seren:fifo seren:backfill seren:acme kalos:acme; do
  IFS=: read -r cluster name <<<"$spec"
  "$acmesim" gen --cluster "$cluster" --from 2023-06-01 --to 2023-06-04 --policy "$name" -o "$work/$name.csv" 2>/dev/null
  "$acmesim" validate "$work/$name.csv" --cluster "$cluster" --set policy.name=$name --out "$work/v-$name" -q \
    >"$work/stdout" 2>"$work/stderr" || fail "$name: exit code $? ($(cat "$work/stderr"))"
  [ "$(cell GPU mismatched "$work/v-$name/fidelity.csv")" = 0 ] || fail "$name: $(cat "$work/stdout")"
  # acme's launch latency holds GPUs before each start in the replay; both series count from the start.
  [ "$(cell utilization mean_abs_diff "$work/v-$name/fidelity.csv")" = 0.000 ] ||
    fail "$cluster $name: utilization differs by $(cell utilization mean_abs_diff "$work/v-$name/fidelity.csv") points"
  echo "ok: gen --policy $name replayed under $name matches"
done

# expect_error NAME EXPECTED_ERROR_LINE TRACE [--set key=value ...]
expect_error() {
  local name=$1 expected=$2 trace=$3
  shift 3
  local out=$work/out-$name code=0
  "$acmesim" validate "$trace" --cluster seren --out "$out" -q "$@" >"$work/stdout" 2>"$work/stderr" || code=$?
  check_input_error "$name" "$expected" "$code" "$out"
}
bad=$src/tests/data/bad
expect_error truncated "$bad/truncated.csv:3: cpu_num: missing: the line has 4 fields, the header 10 (truncated line?)" \
  "$bad/truncated.csv"
: >"$work/empty.csv"
expect_error empty "$work/empty.csv:1: header: empty file: expected an AcmeTrace header" "$work/empty.csv"
expect_error header_only "$bad/header_only.csv:1: header: no job rows after the header" "$bad/header_only.csv"
expect_error missing "$work/none.csv: cannot open the trace file" "$work/none.csv"
expect_error unknown_key "--set: validate.max_gap: not a key here (valid: validate.max_cdf_gap, validate.min_jobs)" \
  "$bad/truncated.csv" --set validate.max_gap=1
