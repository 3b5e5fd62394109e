#!/usr/bin/env bash
# The layers, checked: which folder may include which, and one library per layer in CMake.
#
#   sim/            the engine           includes only sim/ (not sim/io/, not sim/app/)
#   sim/io/         reading and writing  includes sim/ and sim/io/
#   policies/       the policies         include sim/ and sim/io/ (Params), never sim/app/
#   workloads/      the workloads        include sim/ and sim/io/, never sim/app/
#   sim/app/        the composition root the only part of sim/ that includes policies/ or workloads/
#
# Libraries (CMakeLists.txt): acmesim_sim <- acmesim_io <- {acmesim_policies, acmesim_workloads}
# <- acmesim_app; the engine does not link yaml-cpp nor nlohmann_json.
# Usage: tests/check_layers.sh [source dir]   (ctest: layers)   Prints every breach; exit 1 if any.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
status=0
breach() { echo "layers: $*"; status=1; }

# What a folder's files include, as "file:header" lines (files directly in the folder only, or
# the whole tree under it when $2 is "tree").
includes() {
  local depth=(-maxdepth 1); [ "${2:-}" = tree ] && depth=()
  find "$1" "${depth[@]}" -type f \( -name '*.h' -o -name '*.cpp' \) -print0 |
    xargs -0 grep -H -o '#include "[^"]*"' | sed 's/#include "\(.*\)"/\1/'
}

# The rule anyone can run: only sim/app/ includes policies/ or workloads/.
found=$(grep -rl '#include "\(policies\|workloads\)/' sim | grep -v '^sim/app/')
[ -z "$found" ] || breach "only sim/app/ may include policies/ or workloads/; these do: $found"

while IFS=: read -r file header; do
  case "$header" in sim/io/* | sim/app/* | policies/* | workloads/*) breach "$file (engine) includes $header" ;; esac
done < <(includes sim)
while IFS=: read -r file header; do
  case "$header" in sim/app/* | policies/* | workloads/*) breach "$file (io) includes $header" ;; esac
done < <(includes sim/io tree)
for layer in policies workloads; do
  while IFS=: read -r file header; do
    case "$header" in sim/app/*) breach "$file ($layer) includes $header" ;; esac
  done < <(includes "$layer" tree)
done
while IFS=: read -r file header; do
  case "$header" in workloads/*) breach "$file (policies) includes $header" ;; esac
done < <(includes policies tree)

# Third-party homes: yaml-cpp only in sim/io/, nlohmann/json only in sim/io/, Boost.Graph only in
# the topology, CLI11 only in sim/app/main.cpp.
for lib in yaml-cpp nlohmann; do
  while read -r f; do breach "$f includes $lib"; done < <(grep -rl "#include <$lib" sim policies workloads | grep -v '^sim/io/')
done

# CMake: the sources of each library come from its own folder, and each links only the layers
# below it.
block() {  # the text of the CMake command "$1(<target> ...)" for target $2, on one line
  awk -v cmd="$1(" -v t="$2" '
    index($0, cmd t " ") == 1 || index($0, cmd t ")") == 1 { on = 1 }
    on { printf "%s ", $0; if ($0 ~ /\)/) { on = 0; print "" } }' CMakeLists.txt
}
check_sources() {  # target, pattern every source must match
  local srcs; srcs=$(block add_library "$1" | tr ' ' '\n' | grep '\.cpp$')
  [ -n "$srcs" ] || breach "CMakeLists.txt: no add_library($1 ...) with sources"
  for s in $srcs; do [[ "$s" =~ $2 ]] || breach "CMakeLists.txt: $s is in $1"; done
}
check_sources acmesim_sim '^sim/[a-z_]+\.cpp$'
check_sources acmesim_io '^sim/io/[a-z_]+\.cpp$'
check_sources acmesim_policies '^policies/[a-z_]+\.cpp$'
check_sources acmesim_workloads '^workloads/[a-z_]+\.cpp$'
check_sources acmesim_app '^sim/app/[a-z_]+\.cpp$'
check_links() {  # target, then the libraries it must not link
  local t=$1 links; shift
  links=$(block target_link_libraries "$t")
  for bad in "$@"; do [[ " $links " != *" $bad "* ]] || breach "CMakeLists.txt: $t links $bad"; done
}
check_links acmesim_sim yaml-cpp nlohmann_json::nlohmann_json acmesim_io acmesim_policies acmesim_workloads acmesim_app
check_links acmesim_io acmesim_policies acmesim_workloads acmesim_app
check_links acmesim_policies acmesim_workloads acmesim_app
check_links acmesim_workloads acmesim_policies acmesim_app
exit $status
