#!/usr/bin/env bash
# The parsed-trace cache end to end: a run that builds the cache (cold), one that maps it (warm)
# and one with --no-cache write the same bytes, every output file and standard output; the -v log
# says which read the trace from the cache, and the cache file is there after the first run. A
# sweep maps the entry the runs built, and gives the same summary.csv with --no-cache. A touched
# trace and a damaged cache file are parsed again; an unwritable cache folder is one warning, and
# the run goes on.
# Usage: tests/cli/test_trace_cache.sh path/to/acmesim   (ctest: cli_trace_cache)
set -euo pipefail
acmesim=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export ACMESIM_CACHE_DIR=$work/cache

"$acmesim" gen --cluster seren --from 2023-03-01 --to 2023-03-04 --seed 3 -o "$work/t.csv" 2>/dev/null
# A window and lenient reading: what the options select is cached too.
run() {  # NAME [options...]
  local name=$1
  shift
  "$acmesim" -v run "$src/configs/seren.yaml" -q --set workload.trace="$work/t.csv" \
    --set workload.from=2023-03-01 --set workload.to=2023-03-03 --set workload.lenient=true \
    --out "$work/$name" "$@" >"$work/$name.stdout" 2>"$work/$name.stderr"
}

run cold
ls "$work/cache"/t.csv.*.acmecache >/dev/null 2>&1 || fail "no cache file after the first run"
grep -q "parsed, and cached in $work/cache/" "$work/cold.stderr" || fail "cold: no 'cached in' line"
grep -q "trace from cache" "$work/cold.stderr" && fail "cold: read from a cache that did not exist"
run warm
grep -q "trace from cache $work/cache/t.csv." "$work/warm.stderr" || fail "warm: the trace was not read from the cache"
run uncached --no-cache
grep -qE "trace from cache|cached in" "$work/uncached.stderr" && fail "--no-cache: the cache was used"

for name in warm uncached; do
  diff -r "$work/cold" "$work/$name" >/dev/null || fail "$name: outputs differ from the cold run's"
  cmp -s "$work/cold.stdout" "$work/$name.stdout" || fail "$name: standard output differs"
  # The same log but for the cache's debug lines and the timings (a trace read whole logs what it
  # holds with its load time; one read as the replay goes, from the cache, without).
  for f in cold $name; do
    sed -E 's/, loaded in [0-9.]+ s$//' "$work/$f.stderr" | grep -vE "trace from cache|cached in| in [0-9.]+ s" >"$work/$f.log" || true
  done
  cmp -s "$work/cold.log" "$work/$name.log" || fail "$name: other log lines than the cold run's"
done
echo "ok: cold, warm and --no-cache runs: the same $(ls "$work/cold" | wc -l) files, byte for byte"

# A sweep of the same trace, window and lenient reading maps the entry the runs built; with
# --no-cache it parses; the same summary.csv.
cat >"$work/sweep.yaml" <<EOF
base: $src/configs/seren.yaml
set:
  workload.trace: $work/t.csv
  workload.from: 2023-03-01
  workload.to: 2023-03-03
  workload.lenient: true
  outputs: summary
grid:
  policy.name: [fifo, backfill]
EOF
"$acmesim" -v sweep "$work/sweep.yaml" --out "$work/sweep_warm" -q 2>"$work/sweep_warm.stderr"
grep -q "trace from cache" "$work/sweep_warm.stderr" || fail "sweep: the trace was not read from the cache"
"$acmesim" -v sweep "$work/sweep.yaml" --out "$work/sweep_uncached" -q --no-cache 2>"$work/sweep_uncached.stderr"
grep -qE "trace from cache|cached in" "$work/sweep_uncached.stderr" && fail "sweep --no-cache: the cache was used"
cmp -s "$work/sweep_warm/summary.csv" "$work/sweep_uncached/summary.csv" || fail "sweep: summaries differ"
echo "ok: a sweep maps the cache, and with --no-cache parses, to the same summary.csv"

# A touched trace is parsed again.
touch -d "+5 seconds" "$work/t.csv"
run touched
grep -q "parsed, and cached in" "$work/touched.stderr" || fail "touched: the stale cache was used"
diff -r "$work/cold" "$work/touched" >/dev/null || fail "touched: outputs differ"

# A damaged cache file is parsed again, never trusted.
for f in "$work/cache"/*.acmecache; do printf 'garbage' | dd of="$f" bs=1 seek=100 conv=notrunc status=none; done
run damaged
grep -q "parsed, and cached in" "$work/damaged.stderr" || fail "damaged: the damaged cache was used"
diff -r "$work/cold" "$work/damaged" >/dev/null || fail "damaged: outputs differ"
echo "ok: a touched trace and a damaged cache file are parsed again"

# An unwritable cache folder (under a file): one warning, the same outputs.
ACMESIM_CACHE_DIR=$work/t.csv/cache run unwritable
[ "$(grep -c "trace cache: cannot write" "$work/unwritable.stderr")" = 1 ] || fail "unwritable: not one warning"
diff -r "$work/cold" "$work/unwritable" >/dev/null || fail "unwritable: outputs differ"
echo "ok: an unwritable cache folder warns once and the run goes on"
