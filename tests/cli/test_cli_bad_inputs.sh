#!/usr/bin/env bash
# The command line on bad inputs (tests/data/bad/ and files made here): a bad trace, cluster or
# configuration makes `acmesim run` exit with 2 and print one line "acmesim: error: where: what" on
# stderr, and write no output at all (not even the --out folder); a job larger than the cluster is
# REJECTED with a warning, and the run finishes and counts it.
# Usage: tests/cli/test_cli_bad_inputs.sh path/to/acmesim   (ctest: cli_bad_inputs)
set -euo pipefail
acmesim=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
bad=$src/tests/data/bad
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=input_error.sh
. "$src/tests/cli/input_error.sh"

# expect_error NAME EXPECTED_ERROR_LINE [--set key=value ...]
expect_error() {
  local name=$1 expected=$2
  shift 2
  local out=$work/out-$name code=0
  "$acmesim" run "$src/configs/seren.yaml" -q --out "$out" --set workload.from= --set workload.to= "$@" \
    >"$work/stdout" 2>"$work/stderr" || code=$?
  check_input_error "$name" "$expected" "$code" "$out"
}

expect_error duplicate_id "$bad/duplicate_id.csv:4: job_id: duplicate job id '7', also on line 2" \
  --set workload.trace="$bad/duplicate_id.csv"
expect_error truncated \
  "$bad/truncated.csv:3: cpu_num: missing: the line has 4 fields, the header 10 (truncated line?)" \
  --set workload.trace="$bad/truncated.csv"
expect_error header_only "$bad/header_only.csv:1: header: no job rows after the header" \
  --set workload.trace="$bad/header_only.csv"
printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03binary' >"$work/trace.csv.gz"
expect_error gzip "$work/trace.csv.gz: gzip: cut short (truncated file?) (decompress it with gunzip to see where)" \
  --set workload.trace="$work/trace.csv.gz"
expect_error missing_trace "$work/none.csv: cannot open the trace file" --set workload.trace="$work/none.csv"
printf 'name: zero\nnodes: 4\ngpus_per_node: 0\n' >"$work/zero.yaml"
expect_error zero_gpus "$work/zero.yaml:3: gpus_per_node: must be between 1 and 64, got 0" \
  --set cluster="$work/zero.yaml" --set workload.trace="$bad/too_large.csv"
expect_error outputs_twice "--set: outputs: output 'timeseries' is listed twice" --set outputs=timeseries,timeseries \
  --set workload.trace="$bad/too_large.csv"
expect_error recorded_with_policy "--set: policy.name: replay: recorded starts jobs at their recorded start \
(greedy when they do not fit), so policy 'sjf' would not be used (use replay: policy)" \
  --set replay=recorded --set policy.name=sjf \
  --set workload.trace="$bad/too_large.csv"

# YAML mistakes in the run configuration: a key given twice names both lines, a tab is named.
printf 'cluster: %s\npolicy:\n  name: fifo\nseed: 1\npolicy:\n  name: sjf\n' "$src/configs/clusters/seren.yaml" \
  >"$work/twice.yaml"
code=0
"$acmesim" run "$work/twice.yaml" -q --out "$work/out-twice" >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error yaml_key_twice "$work/twice.yaml:5: policy: given twice, at lines 2 and 5" "$code" "$work/out-twice"
printf 'seed: 1\npolicy:\n\tname: fifo\n' >"$work/tab.yaml"
code=0
"$acmesim" run "$work/tab.yaml" -q --out "$work/out-tab" >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error yaml_tab "$work/tab.yaml:3: a tab in the indentation (YAML indents with spaces only)" "$code" \
  "$work/out-tab"

# Accepted: the 512-node job is REJECTED, the others run, the summary counts it.
out=$work/out-too-large
"$acmesim" run "$src/configs/seren.yaml" -q --out "$out" --set workload.trace="$bad/too_large.csv" \
  --set workload.from= --set workload.to= --set outputs=jobs,summary 2>"$work/stderr" \
  || fail "too_large: exit code $? ($(cat "$work/stderr"))"
grep -qx "warning: 1 jobs rejected: needs more nodes than the cluster has (state REJECTED in jobs.csv)" "$work/stderr" \
  || fail "too_large: no warning: $(cat "$work/stderr")"
column() {  # column NAME FILE: the first data row's cell under NAME (cells may be quoted)
  /usr/bin/python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[2])))[sys.argv[1]])' "$1" "$2"
}
[ "$(column jobs_rejected "$out/summary.csv")" = 1 ] || fail "too_large: jobs_rejected is not 1"
[ "$(column jobs_completed "$out/summary.csv")" = 2 ] || fail "too_large: jobs_completed is not 2"
[ "$(grep -c ',REJECTED,' "$out/jobs.csv")" = 1 ] || fail "too_large: jobs.csv has not one REJECTED row"
echo "ok: too_large"

# acmesim gen: a bad option is named, nothing is written.
code=0
"$acmesim" gen --cluster kalos --from 2023-05-17 --to 2023-05-18 --policy bogus -o "$work/gen.csv" \
  >"$work/stdout" 2>"$work/stderr" || code=$?
[ "$code" = 2 ] || fail "gen_policy: exit code $code, expected 2"
[ "$(cat "$work/stderr")" = "acmesim: error: --policy: unknown policy 'bogus' (valid: acme, fifo, greedy, priority, \
quota, backfill, sjf, srtf)" ] || fail "gen_policy: stderr: $(cat "$work/stderr")"
[ ! -e "$work/gen.csv" ] || fail "gen_policy: wrote $work/gen.csv"
echo "ok: gen_policy"

# User errors of the command line itself: one line naming what and where, exit 2, nothing written.
touch "$work/a_file"
code=0
"$acmesim" run "$src/configs/seren.yaml" -q --out "$work/a_file/run" --set workload.trace="$bad/too_large.csv" \
  >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error out_is_file "--out: $work/a_file/run: $work/a_file is a file; name a folder for the outputs" \
  "$code" "$work/none"
expect_error key_of_other_policy "--set: policy.depth: not a key of policy fifo (valid: none)" \
  --set policy.name=fifo --set policy.depth=3 --set workload.trace="$bad/too_large.csv"
code=0
"$acmesim" gen --cluster kalos --from 2023-05-17 --to 2023-05-18 -o "$work/a_file/gen.csv" \
  >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error gen_folder_is_file "-o: $work/a_file: $work/a_file is a file; name a folder for the outputs" \
  "$code" "$work/none"
# A folder that does not exist is made, as for --out.
"$acmesim" gen --cluster kalos --from 2023-05-17 --to 2023-05-18 -o "$work/new/folder/gen.csv" 2>/dev/null
[ -s "$work/new/folder/gen.csv" ] || fail "gen_new_folder: no trace written"
echo "ok: gen_new_folder"
code=0
"$acmesim" run "$src/configs/seren.yaml" --sett x >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error unknown_flag \
  "The following arguments were not expected: x --sett (acmesim --help, or acmesim <command> --help)" \
  "$code" "$work/none"
"$acmesim" gen --cluster kalos --from 2023-05-17 --to 2023-05-18 -o "$work/kalos_day.csv" 2>/dev/null
code=0
"$acmesim" calibrate "$work/kalos_day.csv" --cluster kalos --out "$work/a_file" >"$work/stdout" 2>"$work/stderr" ||
  code=$?
check_input_error calibrate_out_is_file "--out: $work/a_file: $work/a_file is a file; name a folder for the outputs" \
  "$code" "$work/none"
