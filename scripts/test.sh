#!/usr/bin/env bash
# Everything on a fresh machine: installs what is missing, then
#   (i)   builds build/ (Release, warnings as errors), runs every test through ctest, then the
#         documentation's commands (scripts/docs_check.sh);
#   (ii)  builds build-sanitize/ (GCC with AddressSanitizer and UndefinedBehaviorSanitizer, -O1 -g,
#         warnings as errors) and runs the same tests there: any sanitizer report fails its test;
#   (iii) runs each libFuzzer target for 20 s (scripts/fuzz.sh, build-fuzz/).
# Usage: scripts/test.sh [--fast | --sanitize | --fuzz]   (only i, only ii, only iii)
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") stages=(normal sanitize fuzz) ;;
  --fast) stages=(normal) ;;
  --sanitize) stages=(sanitize) ;;
  --fuzz) stages=(fuzz) ;;
  *) echo "usage: scripts/test.sh [--fast | --sanitize | --fuzz]" >&2; exit 2 ;;
esac

normal() {
  scripts/build.sh -DACMESIM_WERROR=ON
  ctest --test-dir build --output-on-failure -j "$(nproc)"
  scripts/docs_check.sh  # the docs' commands as written, and the experiments' tables as committed
}

sanitize() {
  scripts/setup.sh
  local mpi=(); command -v mpicc >/dev/null && mpi=(-DACMESIM_MPI=ON)
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DACMESIM_SANITIZE=ON -DACMESIM_WERROR=ON "${mpi[@]}" >/dev/null
  cmake --build build-sanitize -j "$(nproc)"
  # Leaks are errors too; the suppressions name only Open MPI's libraries (see the file).
  ASAN_OPTIONS=detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1 \
    UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp" \
    ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)"
}

fuzz() {
  scripts/fuzz.sh 20
}

for stage in "${stages[@]}"; do
  start=$SECONDS
  "$stage"
  echo "test.sh: stage $stage passed in $((SECONDS - start)) s"
done
