#!/usr/bin/env bash
# The documentation's commands, run as written from the repository root, so that they cannot go
# stale (scripts/test.sh runs this after the tests):
#  1. every ```sh or ```python block of a tracked Markdown file that the line `<!-- runnable -->`
#     precedes, in its own bash with `set -euo pipefail`, or /usr/bin/python3 with the module of
#     build/python on its path;
#  2. the count of tests tests/README.md states, against ctest's;
#  3. every experiment's run.sh that its README names as its **Command.**, then a check that the
#     tables they write (CSV and Markdown, README tables included) come out as committed: the
#     numbers in the docs are the numbers the scripts write. Files that hold wall times are named
#     below and not compared.
# A block that reads a downloaded AcmeTrace file (trace_seren.csv, trace_kalos.csv at the root)
# gets a synthetic stand-in from `acmesim gen`, removed at the end.
# Usage: scripts/docs_check.sh [--blocks | --experiments]   (after scripts/build.sh)
# Exit 1 naming the file and line of the first block or the files that fail.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") parts=(counts blocks experiments) ;;
  --blocks) parts=(counts blocks) ;;
  --experiments) parts=(experiments) ;;
  *) echo "usage: scripts/docs_check.sh [--blocks | --experiments]" >&2; exit 2 ;;
esac
timed=(experiments/eval_decoupling/replay_time.csv experiments/python/results.csv experiments/python/README.md)  # wall times
work=$(mktemp -d)
export ACMESIM_CACHE_DIR=$work/cache  # the trace cache of the commands run here: removed with $work
made=()
cleanup() {
  rm -rf "$work"
  for f in "${made[@]}"; do rm -f "$f"; done
}
trap cleanup EXIT

stand_in() {  # stand_in CLUSTER FROM TO: a synthetic trace_CLUSTER.csv unless the real one is there
  local file=trace_$1.csv
  [ -e "$file" ] && return
  build/acmesim gen --cluster "$1" --from "$2" --to "$3" -o "$file" 2>/dev/null
  made+=("$file")
}

blocks() {
  local n=0
  while IFS= read -r md; do
    # "LINE<TAB>command text" of each runnable block, blocks apart by a line "@@END".
    awk '
      /^<!-- runnable -->$/ { armed = NR; next }
      /^```(sh|python)$/ { if (armed == NR - 1) { inside = 1; printf "@@START\t%d\t%s\n", NR + 1, substr($0, 4) } ; armed = 0; next }
      /^```/ { if (inside) print "@@END"; inside = 0; next }
      inside { print }
      { armed = 0 }
    ' "$md" >"$work/blocks"
    local line=0 body="" lang=sh
    while IFS= read -r text; do
      case "$text" in
        @@START*) IFS=$'\t' read -r _ line lang <<<"$text"; body="" ;;
        @@END)
          n=$((n + 1))
          if grep -q 'trace_seren\.csv' <<<"$body"; then stand_in seren 2023-03-25 2023-05-05; fi
          if grep -q 'trace_kalos\.csv' <<<"$body"; then stand_in kalos 2023-05-17 2023-06-01; fi
          local run=(bash "$work/block.sh")
          if [ "$lang" = python ]; then
            printf '%s\n' "$body" >"$work/block.sh"
            run=(env PYTHONPATH="$PWD/build/python" /usr/bin/python3 "$work/block.sh")
          else
            printf 'set -euo pipefail\n%s\n' "$body" >"$work/block.sh"
          fi
          if ! "${run[@]}" >"$work/log" 2>&1; then
            echo "docs_check: FAIL: the block at $md:$line:" >&2
            cat "$work/block.sh" >&2
            tail -20 "$work/log" >&2
            exit 1
          fi
          echo "docs_check: ok: $md:$line" ;;
        *) body+="$text"$'\n' ;;
      esac
    done <"$work/blocks"
  done < <(git ls-files '*.md')
  echo "docs_check: $n runnable blocks ran as written"
}

counts() {  # the test count tests/README.md states is ctest's
  local stated actual
  stated=$(sed -nE 's/.* ([0-9]+) tests through ctest.*/\1/p' tests/README.md | head -1)
  actual=$(ctest --test-dir build -N | sed -nE 's/^Total Tests: ([0-9]+)/\1/p')
  [ "$stated" = "$actual" ] || { echo "docs_check: FAIL: tests/README.md says $stated tests, ctest has $actual" >&2; exit 1; }
  echo "docs_check: ok: tests/README.md's count of $actual tests"
}

experiments() {
  local scripts
  scripts=$(git ls-files 'experiments/*/README.md' | xargs sed -nE 's/^\*\*Command\.\*\* `(experiments\/[a-z_]+\/run\.sh)[^`]*`.*/\1/p')
  # Two at a time, each with its own log (they write folders of their own; scripts/build.sh takes
  # turns): 159 s instead of 210 on two cores (2026-12-06). xargs stops at the first that fails (255).
  export work
  # shellcheck disable=SC2016  # expanded by the inner bash
  printf '%s\n' $scripts | xargs -P 2 -I{} bash -c '
    start=$SECONDS log="$work/$(basename "$(dirname "$1")").log"
    "$1" >"$log" 2>&1 || { echo "docs_check: FAIL: $1" >&2; tail -20 "$log" >&2; exit 255; }
    echo "docs_check: ok: $1 ($((SECONDS - start)) s)"' _ {} || exit 1
  local changed
  changed=$(git diff --name-only -- '*.csv' '*.md' | grep -vxF -f <(printf '%s\n' "${timed[@]}") || true)
  if [ -n "$changed" ]; then
    echo "docs_check: FAIL: the experiments wrote other numbers than the committed ones:" >&2
    git diff --stat -- $changed >&2
    exit 1
  fi
  echo "docs_check: the experiments' tables are as committed"
}

for part in "${parts[@]}"; do "$part"; done
