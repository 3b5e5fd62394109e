#!/usr/bin/env bash
# The command line's own surface: an unknown or missing command names the valid ones (one line,
# exit 2); --version prints the project's version; `run --policy NAME` runs as
# `--set policy.name=NAME` does, byte for byte, and refuses a second policy name.
# Usage: tests/cli/test_cli_commands.sh path/to/acmesim [VERSION]   (ctest: cli_commands)
set -euo pipefail
acmesim=$1
version=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=input_error.sh
. "$src/tests/cli/input_error.sh"
commands="run, list, gen, calibrate, validate, sweep, compare"

code=0
"$acmesim" runn configs/seren.yaml >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error unknown_command "unknown command 'runn' (the commands: $commands; acmesim --help)" "$code" "$work/none"
code=0
"$acmesim" -v >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error no_command "no command given (the commands: $commands; acmesim --help)" "$code" "$work/none"
# (A known command's own errors keep CLI11's words: test_cli_bad_inputs.sh, unknown_flag.)

"$acmesim" --version >"$work/stdout" 2>"$work/stderr" || fail "version: exit code $?"
[ ! -s "$work/stderr" ] || fail "version: wrote to stderr: $(cat "$work/stderr")"
grep -qxE "acmesim [0-9]+\.[0-9]+\.[0-9]+" "$work/stdout" || fail "version: printed '$(cat "$work/stdout")'"
[ -z "$version" ] || [ "$(cat "$work/stdout")" = "acmesim $version" ] ||
  fail "version: printed '$(cat "$work/stdout")', the project is $version"
echo "ok: version"

day=(--set workload.to=2023-06-02 --set outputs=jobs,summary)
"$acmesim" run "$src/configs/kalos.yaml" -q --policy sjf "${day[@]}" --out "$work/short" 2>/dev/null ||
  fail "policy_option: exit code $?"
"$acmesim" run "$src/configs/kalos.yaml" -q --set policy.name=sjf "${day[@]}" --out "$work/long" 2>/dev/null ||
  fail "policy_set: exit code $?"
cmp -s "$work/short/jobs.csv" "$work/long/jobs.csv" || fail "policy_option: jobs.csv differs from --set policy.name"
cmp -s "$work/short/summary.csv" "$work/long/summary.csv" || fail "policy_option: summary.csv differs"
grep -q ',sjf,' "$work/short/summary.csv" || fail "policy_option: summary.csv does not name sjf"
echo "ok: policy_option"
# Its keys come with it; a second name is refused, an unknown one lists the valid ones.
"$acmesim" run "$src/configs/kalos.yaml" -q --policy backfill --set policy.depth=8 "${day[@]}" \
  --out "$work/keys" 2>/dev/null || fail "policy_keys: exit code $?"
code=0
"$acmesim" run "$src/configs/kalos.yaml" -q --policy sjf --set policy.name=fifo "${day[@]}" --out "$work/twice" \
  >"$work/stdout" 2>"$work/stderr" || code=$?
check_input_error policy_twice "--policy sjf and --set policy.name=fifo: name the policy once" "$code" "$work/twice"
code=0
"$acmesim" run "$src/configs/kalos.yaml" -q --policy nosuch "${day[@]}" --out "$work/nosuch" \
  >"$work/stdout" 2>"$work/stderr" || code=$?
[ "$code" = 2 ] || fail "policy_unknown: exit code $code"
grep -q "unknown policy 'nosuch' (valid: acme, fifo" "$work/stderr" || fail "policy_unknown: $(cat "$work/stderr")"
echo "ok: policy_unknown"
