#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of the same runs under an older build and this one, on
# a month of synthetic Seren (the first 172,317 jobs of scripts/bench.sh's six-month trace that
# were submitted in March): a before/after that does not depend on how busy the machine is.
# Usage: experiments/performance/compare.sh BEFORE_BINARY [BEFORE_SOURCE]   (writes instructions.csv here)
#   BEFORE_SOURCE: the older build's source tree; its failure table is given to its failure run
#   (the table's keys change with the failure model, so an older build may not read today's).
# An older build: git worktree add /tmp/before <commit> && cmake -S /tmp/before -B /tmp/before/build \
#   -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/before/build --target acmesim
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$1
before_source=${2:-}
scripts/build.sh >/dev/null
dir=${BENCH_DIR:-/tmp/acmesim-bench}
month=$dir/seren_march.csv
if [ ! -s "$month" ]; then
  [ -s "$dir/seren_6m_1M.csv" ] || scripts/bench.sh --smoke >/dev/null
  awk -F, 'NR == 1 || $0 ~ /2023-03-/' "$dir/seren_6m_1M.csv" > "$month"
fi
instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$@" >/dev/null 2>&1
  callgrind_annotate "$dir/callgrind.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
out=experiments/performance/instructions.csv
echo "run,outputs,before,after,after_over_before" > "$out"
every=jobs,timeseries,summary,waste,run_json
for spec in fifo:summary fifo:$every priority:summary quota:summary backfill:summary sjf:summary srtf:summary \
            fifo:summary:failures.enabled=true fifo:summary:eval=decoupled; do
  IFS=: read -r policy outputs extra <<< "$spec"
  args=(run configs/seren.yaml -q --set workload.trace="$month" --set workload.from= --set workload.to=
        --set outputs="$outputs" --set policy.name="$policy" --out "$dir/out-compare")
  [ -n "${extra:-}" ] && args+=(--set "$extra")
  before_args=("${args[@]}")
  [ -n "$before_source" ] && [ "${extra:-}" = failures.enabled=true ] &&
    before_args+=(--set failures.table="$before_source/configs/failures/acme.yaml")
  b=$(instructions "$before" "${before_args[@]}")
  a=$(instructions build/acmesim "${args[@]}")
  shown=summary; [ "$outputs" = summary ] || shown=every
  echo "$policy${extra:++$extra},$shown,$b,$a,$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" | tee -a "$out"
done
