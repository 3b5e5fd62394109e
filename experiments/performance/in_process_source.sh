#!/usr/bin/env bash
# The in-process synthetic source against a replay of the same jobs from memory (issue 3's 20%
# target): six months of Seren at load 1.25 (1,022,966 jobs), FIFO, summary output.
#   instructions (valgrind callgrind): load_workload (the model and the generation, on the calling
#     thread), the generator's second thread, and execute_run (the replay and its summary)
#   wall time: the run's own "loaded in" and "simulated in" lines, over N runs (default 10)
# Usage: experiments/performance/in_process_source.sh [N] [BINARY]   (prints; writes nothing here)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
bin=${2:-build/acmesim}
[ -n "${2:-}" ] || scripts/build.sh >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(run configs/seren.yaml -q --set workload.source=synthetic --set "workload.to=2023-09-01 00:00:00+08:00"
      --set workload.load=1.25 --set outputs=summary --out "$out/run")

valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$bin" "${args[@]}" >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$out/callgrind.out" 2>/dev/null | awk '
  { gsub(",", "", $1) }
  /:acme::load_workload\(/ { load = $1 }
  /:acme::execute_run\(/ { replay = $1 }
  /generate_workload.*lambda/ && $1 > helper { helper = $1 }
  END {
    printf "instructions: source %.0f M on the calling thread (+%.1f%%), %.0f M on the second; replay %.0f M\n",
           load / 1e6, 100 * load / replay, helper / 1e6, replay / 1e6
  }'

for _ in $(seq "$runs"); do
  "$bin" "${args[@]}" 2>&1 | awk '/loaded in/ { for (i = 1; i < NF; ++i) if ($i == "in") l = $(i + 1) }
                                  /simulated in/ { for (i = 1; i < NF; ++i) if ($i == "in") { s = $(i + 1); break } }
                                  END { print l, s }'
done > "$out/wall"
median() { cut -d' ' -f"$1" "$out/wall" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'; }
read -r source lo hi <<< "$(median 1)"
read -r replay _ _ <<< "$(median 2)"
awk -v n="$runs" -v s="$source" -v lo="$lo" -v hi="$hi" -v r="$replay" 'BEGIN {
  printf "wall time over %d runs: source %.3f-%.3f s (median %.3f), replay median %.3f s: +%.0f%%\n", n, lo, hi, s, r, 100 * s / r
}'
