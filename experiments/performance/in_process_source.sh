#!/usr/bin/env bash
# The in-process synthetic source against a replay of the same jobs from memory (issue 3's 20%
# target): six months of Seren at load 1.25 (about a million jobs), FIFO, summary output.
#   streamed: `workload.source: synthetic`, the jobs drawn on a second thread as the replay goes;
#     its cost is the run's "ready in" (the model) plus "simulated in" (the replay, waiting for
#     jobs when the drawing falls behind)
#   from memory: the same jobs written by `acmesim gen` and read back as a trace; its cost is
#     "simulated in" alone (the trace is read before)
# The two runs' jobs.csv are compared first: the same jobs must give the same run. Then
#   instructions (valgrind callgrind, threads apart): the replay's thread of the streamed run
#     (open_workload, the model and the stream's start, plus execute_run) against execute_run
#     from memory, and the drawing thread's own
#   wall time: the medians over N runs of each, alternated (default 10)
# Usage: experiments/performance/in_process_source.sh [N] [BINARY]   (prints; writes nothing here)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
bin=${2:-build/acmesim}
[ -n "${2:-}" ] || scripts/build.sh >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
from="2023-03-01 00:00:00+08:00" to="2023-09-01 00:00:00+08:00"
"$bin" gen --cluster seren --from "$from" --to "$to" --seed 1 --load 1.25 -o "$out/jobs.csv" 2>/dev/null
streamed=(run configs/seren.yaml -q --set workload.source=synthetic --set "workload.from=$from"
          --set "workload.to=$to" --set workload.load=1.25 --set seed=1)
memory=(run configs/seren.yaml -q --set workload.source=acmetrace --set "workload.trace=$out/jobs.csv"
        --set "workload.from=$from" --set "workload.to=$to")

"$bin" "${streamed[@]}" --set outputs=jobs --out "$out/a" 2>/dev/null
"$bin" "${memory[@]}" --set outputs=jobs --out "$out/b" 2>/dev/null
cmp -s "$out/a/jobs.csv" "$out/b/jobs.csv" || { echo "the two runs differ: $out/a/jobs.csv $out/b/jobs.csv" >&2; exit 1; }
echo "same jobs.csv from both ($(($(wc -l < "$out/a/jobs.csv") - 1)) jobs)"

inclusive() {  # callgrind file, function -> its inclusive instructions
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null | awk -v f="$2" '{ gsub(",", "", $1) } index($0, f) { print $1; exit }'
}
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.streamed" \
  "$bin" "${streamed[@]}" --set outputs=summary --out "$out/a" >/dev/null 2>&1
valgrind --tool=callgrind --callgrind-out-file="$out/cg.memory" "$bin" "${memory[@]}" --set outputs=summary --out "$out/b" >/dev/null 2>&1
replay=$(inclusive "$out/cg.streamed-01" "acme::execute_run(")
source=$(inclusive "$out/cg.streamed-01" "acme::open_workload(")
drawing=$(inclusive "$out/cg.streamed-02" "acme::SyntheticStream::draw()")
memory_replay=$(inclusive "$out/cg.memory" "acme::execute_run(")
awk -v r="$replay" -v s="$source" -v d="$drawing" -v m="$memory_replay" 'BEGIN {
  printf "instructions: the replay'"'"'s thread %.0f M streamed against %.0f M from memory (%+.1f%%); the drawing thread %.0f M\n",
         (r + s) / 1e6, m / 1e6, 100 * (r + s - m) / m, d / 1e6
}'

seconds() {  # the run's log -> "ready in" + "simulated in", or "simulated in" alone
  awk '/ready in/ { for (i = 1; i < NF; ++i) if ($i == "in") r = $(i + 1) }
       /simulated in/ { for (i = 1; i < NF; ++i) if ($i == "in") { s = $(i + 1); break } }
       END { printf "%.3f\n", r + s }'
}
for _ in $(seq "$runs"); do
  "$bin" "${streamed[@]}" --set outputs=summary --out "$out/a" 2>&1 | seconds >> "$out/streamed"
  "$bin" "${memory[@]}" --set outputs=summary --out "$out/b" 2>&1 | seconds >> "$out/memory"
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'; }
read -r s s_lo s_hi <<< "$(median "$out/streamed")"
read -r m m_lo m_hi <<< "$(median "$out/memory")"
awk -v n="$runs" -v s="$s" -v slo="$s_lo" -v shi="$s_hi" -v m="$m" -v mlo="$m_lo" -v mhi="$m_hi" 'BEGIN {
  printf "over %d runs each: streamed %.3f s (%.3f-%.3f), from memory %.3f s (%.3f-%.3f): the source adds %+.0f%%\n",
         n, s, slo, shi, m, mlo, mhi, 100 * (s - m) / m
}'
