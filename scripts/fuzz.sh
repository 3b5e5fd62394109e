#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang into build-fuzz/ (ACMESIM_FUZZ=ON:
# libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer) and runs each for the given seconds,
# from its seed corpus tests/fuzz/corpus/<target>/ plus what earlier runs here added to
# build-fuzz/corpus/<target>/. An InputError is the readers' answer to bad input; a crash, a
# sanitizer report, any other exception, a timeout or running out of memory is a finding: its
# input is left in build-fuzz/artifacts/<target>/ and the script exits 1 once every target has run.
# Usage: scripts/fuzz.sh [--keep] [--cpu] [seconds-per-target] [target...]   (default 20 s;
#        targets: trace_reader run_config sweep). Each target runs on one core for the seconds
#        given, of wall time; with --cpu, of its own CPU time (it is stopped, SIGINT, once it has
#        used them, however loaded the machine): `scripts/fuzz.sh --cpu 3600` gives every parser
#        one CPU-hour, and several targets may then run at once (one command each).
# --keep: after a target's run, the inputs of build-fuzz/corpus/<target>/ that reach code the
# repository's corpus does not are minimized into tests/fuzz/corpus/<target>/ (libFuzzer -merge=1),
# to be committed, so that CI's short runs start from what the long ones found.
# Long runs, one target per core in the background (the corpus keeps growing in build-fuzz/):
#   nohup scripts/fuzz.sh --keep 3600 sweep > fuzz-sweep.log 2>&1 &
# A finding, replayed (the file is printed with the report): build-fuzz/tests/fuzz/fuzz_<target> FILE
# Add it to tests/fuzz/corpus/<target>/ once fixed, so that every later run tries it first.
set -euo pipefail
cd "$(dirname "$0")/.."
"$(dirname "$0")/setup.sh"
keep=false cpu=false
[ "${1:-}" != --keep ] || { keep=true; shift; }
[ "${1:-}" != --cpu ] || { cpu=true; shift; }
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(trace_reader run_config sweep)

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACMESIM_FUZZ=ON \
  -DACMESIM_WERROR=ON -DACMESIM_TESTS=OFF -DACMESIM_BENCHMARKS=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

# Inputs the size of a few trace rows or a configuration file; one input should take milliseconds.
declare -A dictionary=([trace_reader]=trace_reader.dict [run_config]=yaml.dict [sweep]=yaml.dict)
# One target's run: `seconds` of wall time, or with --cpu until its process has used `seconds` of
# CPU time (polled every 2 s; SIGINT makes libFuzzer print its final stats and exit 72, its
# interrupted code, which is then success). libFuzzer's per-input timeout is wall time: 10 s, or
# 60 s with --cpu, whose runs share a loaded machine (a slow input there is the load, not a hang).
run_target() {
  local timeout=10
  ! $cpu || timeout=60
  local fuzzer=(build-fuzz/tests/fuzz/fuzz_"$1" -max_len=4096 -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1
                -dict=tests/fuzz/"${dictionary[$1]}" -artifact_prefix="$3/" "$2" tests/fuzz/corpus/"$1")
  $cpu || { "${fuzzer[@]}" -max_total_time="$seconds"; return; }
  "${fuzzer[@]}" &
  local pid=$! ticks=0 now stopped=false rc=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 2
    now=$(awk '{print $14 + $15}' /proc/"$pid"/stat 2>/dev/null) || break  # gone: the last count stands
    ticks=$now
    if [ "$ticks" -ge $((seconds * $(getconf CLK_TCK))) ]; then kill -INT "$pid"; stopped=true; break; fi
  done
  wait "$pid" || rc=$?
  if $stopped && [ "$rc" -eq 72 ]; then rc=0; fi
  echo "fuzz $1: $(( ticks / $(getconf CLK_TCK) )) CPU-s used"
  return "$rc"
}
failed=()
export TMPDIR="$PWD/build-fuzz/tmp"  # the targets' temporary files, and what a crash leaves of them
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target artifacts=build-fuzz/artifacts/$target log=build-fuzz/logs/$target.log
  mkdir -p "$corpus" "$artifacts" "$TMPDIR" build-fuzz/logs
  if run_target "$target" "$corpus" "$artifacts" >"$log" 2>&1; then
    echo "fuzz $target: $(grep -E '^stat::(number_of_executed_units|average_exec_per_sec)|CPU-s used' "$log" | tr '\n' ' ')"
    if $keep; then
      before=$(find tests/fuzz/corpus/"$target" -type f | wc -l)
      build-fuzz/tests/fuzz/fuzz_"$target" -merge=1 -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        tests/fuzz/corpus/"$target" "$corpus" >>"$log" 2>&1
      echo "fuzz $target: $(( $(find tests/fuzz/corpus/"$target" -type f | wc -l) - before )) new inputs kept in tests/fuzz/corpus/$target/"
    fi
  else
    failed+=("$target")
    tail -n 60 "$log" >&2
    echo "fuzz $target: FOUND A PROBLEM (log $log, input in $artifacts/)" >&2
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: findings in ${failed[*]}" >&2; exit 1; }
