#!/usr/bin/env bash
# The layers, checked: each top-level folder is a layer and includes only the layers its row names.
# Usage: tests/check_layers.sh [source dir]   (ctest: layers)   Prints every breach; exit 1 if any.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"

# layer      may include                                     library (CMakeLists.txt)
read -r -d '' table <<'EOF'
sim          sim                                             acmesim_sim
io           sim io                                          acmesim_io
policies     sim io policies                                 acmesim_policies
features     sim io features                                 acmesim_features
workloads    sim io workloads                                acmesim_workloads
app          sim io policies features workloads app          acmesim_app
python       sim io policies features workloads app python   -
EOF
# Third-party homes: the only folder (or file) that may include each library.
read -r -d '' homes <<'EOF'
yaml-cpp     io/
nlohmann     io/
zlib         io/gzip_text.cpp
boost        sim/topology.cpp
CLI          app/main.cpp
EOF

status=0
breach() { echo "layers: $*"; status=1; }

while read -r layer rest; do
  allowed=${rest% *}  # the last word is the library
  while IFS=: read -r file header; do
    [[ " $allowed " == *" ${header%%/*} "* ]] || breach "$file ($layer) includes $header"
  done < <(grep -rHo '#include "[a-z_]*/[^"]*"' "$layer" | sed 's/#include "\(.*\)"/\1/')
done <<<"$table"

while read -r lib home; do
  while read -r f; do
    [[ "$f" == "$home"* ]] || breach "$f includes <$lib>, which only $home may"
  done < <(grep -rl "#include <$lib" sim io policies features workloads app python)
done <<<"$homes"

# CMake: each library's sources come from its own folder, and it links no layer its row omits.
block() {  # the text of the CMake command "$1(<target> ...)" for target $2, on one line
  awk -v cmd="$1(" -v t="$2" '
    index($0, cmd t " ") == 1 || index($0, cmd t ")") == 1 { on = 1 }
    on { printf "%s ", $0; if ($0 ~ /\)/) { on = 0; print "" } }' CMakeLists.txt
}
while read -r layer rest; do
  library=${rest##* }
  [ "$library" = - ] && continue
  srcs=$(block add_library "$library" | tr ' ' '\n' | grep '\.cpp$')
  [ -n "$srcs" ] || breach "CMakeLists.txt: no add_library($library ...) with sources"
  for s in $srcs; do [[ "$s" =~ ^$layer/[a-z_]+\.cpp$ ]] || breach "CMakeLists.txt: $s is in $library"; done
  links=$(block target_link_libraries "$library")
  for other in sim io policies features workloads app; do
    [[ " $rest " == *" $other "* ]] && continue
    [[ " $links " != *" acmesim_$other "* ]] || breach "CMakeLists.txt: $library links acmesim_$other"
  done
done <<<"$table"
links=$(block target_link_libraries acmesim_sim)
for lib in yaml-cpp nlohmann_json::nlohmann_json; do
  [[ " $links " != *" $lib "* ]] || breach "CMakeLists.txt: the engine links $lib"
done
exit $status
