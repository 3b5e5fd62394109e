#!/usr/bin/env bash
# Schedules on a deep queue stay as recorded: traces of scripts/depth_trace.py (another mix than
# `gen`'s, jobs up to a quarter of the cluster, bursts; load 1.5, so thousands wait) replayed under
# every registered policy on both shipped configurations (Kalos's with failures), every jobs.csv
# compared by SHA-256 with tests/golden/deep_queue.sha256. A change to a policy's bookkeeping that
# is meant to keep its schedules must keep these bytes; a change that means to alter them
# records them anew, and says why: tests/cli/test_deep_queue_goldens.sh path/to/acmesim --record
# Usage: tests/cli/test_deep_queue_goldens.sh path/to/acmesim [--record]   (ctest: cli_deep_queue_goldens)
set -euo pipefail
acmesim=$1 record=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
golden=$src/tests/golden/deep_queue.sha256
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 "$src/scripts/depth_trace.py" --jobs 4000 --load 1.5 --schema seren --seed 7 -o "$work/seren.csv" 2>/dev/null
/usr/bin/python3 "$src/scripts/depth_trace.py" --jobs 4000 --load 1.5 --schema kalos --seed 8 -o "$work/kalos.csv" 2>/dev/null
policies=$("$acmesim" list | sed -n '/^Policies/,/^[A-Z]/{s/^  \([a-z_]*\)  .*/\1/p}')
: >"$work/sums"
for cluster in seren kalos; do
  extra=(); [ $cluster = kalos ] && extra=(--set failures.enabled=true)
  for policy in $policies; do
    "$acmesim" run "$src/configs/$cluster.yaml" -q --set workload.trace="$work/$cluster.csv" --set policy.name="$policy" \
      --set outputs=jobs,summary --set cache.enabled=false "${extra[@]}" --out "$work/out" >/dev/null 2>&1
    echo "$cluster $policy $(sha256sum <"$work/out/jobs.csv" | cut -d' ' -f1)" >>"$work/sums"
  done
done
if [ "$record" = --record ]; then
  cp "$work/sums" "$golden"
  echo "recorded $(wc -l <"$golden") schedules in $golden"
  exit 0
fi
status=0
while read -r cluster policy sum; do
  want=$(awk -v c="$cluster" -v p="$policy" '$1 == c && $2 == p { print $3 }' "$golden")
  if [ -z "$want" ]; then
    echo "FAIL: no recorded schedule for $policy on $cluster (record: $0 ACMESIM --record)" >&2; status=1
  elif [ "$want" != "$sum" ]; then
    echo "FAIL: $policy on $cluster schedules differently from the recorded deep-queue golden" >&2; status=1
  fi
done <"$work/sums"
[ $status = 0 ] && echo "deep-queue schedules as recorded: $(wc -l <"$work/sums") runs"
exit $status
