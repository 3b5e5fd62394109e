#!/usr/bin/env bash
# Output integrity: `acmesim run` killed with SIGKILL leaves no output that looks finished, only
# temporary files named *.tmp. Three kills of a run of about half a second (three months of
# synthetic Seren at 1.25 times the rate): while it simulates, into a fresh folder and into one
# holding a finished earlier run (whose files must not stay beside the killed run's); and while
# it writes jobs.csv.
# Usage: tests/cli/test_kill_run.sh path/to/acmesim   (ctest: cli_kill_run)
set -euo pipefail
acmesim=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
outputs=(jobs.csv timeseries.csv summary.csv summary_by_type.csv wasted_by_cause.csv run.json)
every=(--set outputs=jobs,timeseries,summary,waste,run_json)

# kill_when NAME OUT SIGN DELAY: starts the run into OUT, kills it DELAY seconds after SIGN (a
# file in OUT, or "loaded": the log line that the workload is loaded, or ready to be drawn as the
# replay goes, and the simulation starts),
# then checks that OUT holds nothing but *.tmp files.
kill_when() {
  local name=$1 out=$2 sign=$3 delay=$4
  "$acmesim" run "$src/configs/seren.yaml" -q --out "$out" "${every[@]}" --set seed=2 --set workload.load=1.25 \
    --set workload.to="2023-06-01 00:00:00+08:00" 2>"$work/stderr" &
  pid=$!
  until if [ "$sign" = loaded ]; then grep -qE "loaded in|ready in" "$work/stderr"; else [ -e "$out/$sign" ]; fi; do
    kill -0 "$pid" 2>/dev/null || fail "$name: the run ended before $sign ($(cat "$work/stderr"))"
    sleep 0.01
  done
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || fail "$name: the run ended before it was killed"
  wait "$pid" 2>/dev/null || true
  pid=
  for f in "${outputs[@]}"; do [ ! -e "$out/$f" ] || fail "$name: $f looks finished after the kill"; done
  for f in "$out"/*; do
    [ -e "$f" ] || continue
    [[ $f == *.tmp ]] || fail "$name: $(basename "$f") is neither finished nor named as temporary"
  done
  echo "ok: $name: left $(cd "$out" && echo *)"
}

kill_when simulating "$work/fresh" loaded 0.1

"$acmesim" run "$src/configs/seren.yaml" -q --out "$work/earlier" "${every[@]}" \
  --set workload.to="2023-03-02 00:00:00+08:00" 2>/dev/null
for f in "${outputs[@]}"; do [ -s "$work/earlier/$f" ] || fail "the earlier run did not write $f"; done
kill_when "simulating over an earlier run" "$work/earlier" loaded 0.1

kill_when "writing jobs.csv" "$work/writing" jobs.csv.tmp 0
