#!/usr/bin/env bash
# Everything on a fresh machine: installs what is missing, then
#   (i)   builds build/ (Release, warnings as errors), runs every test through ctest, then the
#         documentation's commands (scripts/docs_check.sh);
#   (ii)  builds build-sanitize/ (GCC with AddressSanitizer and UndefinedBehaviorSanitizer, -O1 -g1,
#         warnings as errors; only what ctest runs: no benchmarks, no Python module, no
#         experiment programs; -g1: line tables only, enough for the reports' stacks, and quicker
#         to build) and runs the same tests there: any sanitizer report fails its test;
#   (iii) builds build-tsan/ (ThreadSanitizer) with only the tests of the threads that read the
#         trace, map the cache, read ahead and write the outputs, and runs them;
#   (iv)  runs each libFuzzer target for 10 s (scripts/fuzz.sh, build-fuzz/).
# Usage: scripts/test.sh [--fast | --sanitize | --tsan | --fuzz]   (none: all four; one: only i, ii, iii or iv)
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  ""|--all) stages=(normal sanitize tsan fuzz) ;;
  --fast) stages=(normal) ;;
  --sanitize) stages=(sanitize) ;;
  --tsan) stages=(tsan) ;;
  --fuzz) stages=(fuzz) ;;
  *) echo "usage: scripts/test.sh [--fast | --sanitize | --tsan | --fuzz]" >&2; exit 2 ;;
esac

normal() {
  scripts/build.sh -DACMESIM_WERROR=ON
  ctest --test-dir build --output-on-failure -j "$(nproc)"
  scripts/docs_check.sh  # the docs' commands as written, and the experiments' tables as committed
}

sanitize() {
  scripts/setup.sh
  local mpi=(); command -v mpicc >/dev/null && mpi=(-DACMESIM_MPI=ON)
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DACMESIM_SANITIZE=ON -DACMESIM_WERROR=ON -DACMESIM_BENCHMARKS=OFF -DACMESIM_PYTHON=OFF "${mpi[@]}" >/dev/null
  cmake --build build-sanitize -j "$(nproc)" --target acmesim acmesim_tests acmesim_newcomer
  # Leaks are errors too; the suppressions name only Open MPI's libraries (see the file). The
  # random traces and random workloads run fewer cases here than in the Release build.
  ACMESIM_RANDOM_TRACE_CASES=2 ACMESIM_INVARIANT_CASES=60 ASAN_OPTIONS=detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1 \
    UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp" \
    ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)"
}

tsan() {
  scripts/setup.sh
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DACMESIM_TSAN=ON -DACMESIM_WERROR=ON -DACMESIM_BENCHMARKS=OFF -DACMESIM_PYTHON=OFF >/dev/null
  cmake --build build-tsan -j "$(nproc)" --target acmesim acmesim_thread_tests
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --test-dir build-tsan --output-on-failure -j "$(nproc)"
}

fuzz() {
  scripts/fuzz.sh 10  # CI's short run from the committed corpora; long runs: scripts/fuzz.sh --cpu
}

for stage in "${stages[@]}"; do
  start=$SECONDS
  "$stage"
  echo "test.sh: stage $stage passed in $((SECONDS - start)) s"
done
