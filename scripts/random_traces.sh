#!/usr/bin/env bash
# The randomized trace test (tests/app/test_random_traces.cpp) on new seeds for as long as asked:
# batches of cases (RANDOM_TRACES_BATCH, default 20) from a first seed taken from the clock (or
# given), each case a random trace of either schema replayed under every registered policy with
# the features off and on, shuffled and rerun. A failing case's trace and cluster are written to
# random-trace-failures/ as NAME-SEED.csv and NAME-SEED.cluster.yaml; once the defect is fixed,
# move both to tests/data/regressions/, which every ctest run replays.
# Usage: scripts/random_traces.sh SECONDS [first-seed]   (builds build/'s tests first if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/random_traces.sh SECONDS [first-seed]}
seed=${2:-$(( $(date +%s) % 100000 * 10000 + 1000000 ))}
batch=${RANDOM_TRACES_BATCH:-20}
[ -d build ] || scripts/build.sh
cmake --build build --target acmesim_tests >/dev/null
keep=$PWD/random-trace-failures log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "random_traces: seeds from $seed, $seconds s, failures into $keep/"
end=$((SECONDS + seconds)) cases=0 failed=0
while [ $SECONDS -lt $end ]; do
  if ! ACMESIM_RANDOM_TRACE_CASES=$batch ACMESIM_RANDOM_TRACE_SEED=$seed ACMESIM_RANDOM_TRACE_KEEP=$keep \
       build/tests/acmesim_tests "Random traces of both schemas*" >"$log" 2>&1; then
    grep -E "^  seed [0-9]+ |^  the trace: " "$log" || tail -n 30 "$log"
    failed=$((failed + $(grep -c "^  seed [0-9]* " "$log" || true)))
  fi
  seed=$((seed + batch)) cases=$((cases + batch))
done
echo "random_traces: $cases cases (seeds up to $((seed - 1))) in $SECONDS s, $failed failed"
[ "$failed" -eq 0 ]
