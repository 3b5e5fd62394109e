#!/usr/bin/env bash
# Traces unlike the configuration they are replayed with (issue 38): a recorded replay on a shipped
# configuration runs, and its log says which scheduler places the jobs that do not fit and which
# configured policy it does not use; a Kalos-schema trace on Seren (and the reverse), or a job of
# more nodes than the cluster has, is one warning naming the trace's schema and the cluster, and
# run.json records the schema; validate says when --cluster is not the trace's schema, reports a
# group of too few jobs as such, and stops with exit 2 and one error line when it compared no job;
# the fidelity plots never raise on an empty or a one-job group.
# Usage: tests/cli/test_cli_trace_unlike_config.sh path/to/acmesim   (ctest: cli_trace_unlike_config)
set -euo pipefail
acmesim=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$src"  # configs/ and scripts/ found from here
json() {  # json FILE EXPRESSION: the value of EXPRESSION over the parsed FILE, as `j`
  /usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}
cell() {  # cell GROUP COLUMN FILE
  /usr/bin/python3 -c 'import csv, sys
print(next(r for r in csv.DictReader(open(sys.argv[3])) if r["group"] == sys.argv[1])[sys.argv[2]])' "$@"
}

seren=$src/tests/golden/six_jobs.csv
kalos=$work/kalos.csv  # the same six jobs in Kalos's schema
/usr/bin/python3 - "$seren" "$kalos" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ["job_id", "user", "node_num", "gpu_num", "cpu_num", "mem_per_pod_GB", "shared_mem_per_pod", "type", "state",
        "submit_time", "start_time", "end_time", "fail_time", "stop_time", "duration", "queue", "gpu_time"]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(dict(r, mem_per_pod_GB=100, shared_mem_per_pod=10.0, fail_time="", stop_time=""))
PY

# A recorded replay on the shipped configuration: no extra --set, greedy places what does not fit.
"$acmesim" run configs/seren.yaml -q --set workload.trace="$seren" --set replay=recorded \
  --set outputs=jobs,run_json --out "$work/recorded" 2>"$work/stderr" || fail "recorded: exit code $? ($(cat "$work/stderr"))"
grep -q "replay: recorded: each job starts at its recorded start; one that does not fit then starts as soon as it fits, \
oldest first (policy greedy); the configured policy acme (configs/seren.yaml:[0-9]*) is not used" "$work/stderr" ||
  fail "recorded: the log does not say which scheduler: $(cat "$work/stderr")"
[ "$(json "$work/recorded/run.json" 'j["config"]["policy.name"]')" = greedy ] || fail "recorded: run.json's policy"
echo "ok: recorded replay on configs/seren.yaml"

# expect_warning NAME CONFIG TRACE SCHEMA WARNING: one warning line WARNING (a regular expression),
# and run.json's workload.schema SCHEMA.
expect_warning() {
  local name=$1 config=$2 trace=$3 schema=$4 warning=$5
  "$acmesim" run "$config" -q --set workload.trace="$trace" --set outputs=jobs,run_json --out "$work/$name" \
    2>"$work/stderr" || fail "$name: exit code $? ($(cat "$work/stderr"))"
  [ "$(grep -c "schema replayed on cluster" "$work/stderr")" = "$([ -n "$warning" ] && echo 1 || echo 0)" ] ||
    fail "$name: warnings: $(cat "$work/stderr")"
  [ -z "$warning" ] || grep -q "^warning: .*$warning" "$work/stderr" || fail "$name: no warning $warning: $(cat "$work/stderr")"
  [ "$(json "$work/$name/run.json" 'j["workload"]["schema"]')" = "$schema" ] || fail "$name: run.json's schema"
  echo "ok: $name"
}
expect_warning kalos_on_seren configs/seren.yaml "$kalos" kalos \
  "a trace of the kalos schema replayed on cluster seren (286 nodes of 8 GPUs), the seren schema's cluster"
expect_warning seren_on_kalos configs/kalos.yaml "$seren" seren "a trace of the seren schema replayed on cluster kalos"
expect_warning seren_on_seren configs/seren.yaml "$seren" seren ""
expect_warning too_large configs/seren.yaml "$src/tests/data/bad/too_large.csv" seren \
  "a trace of the seren schema replayed on cluster seren (286 nodes of 8 GPUs): 1 of its jobs need more nodes than the cluster has"

# validate: the trace's schema against --cluster; six jobs are too few to judge.
"$acmesim" validate "$kalos" --out "$work/v-kalos" -q >"$work/stdout" 2>"$work/stderr" || true
grep -q "^warning: .*a trace of the kalos schema validated with --cluster seren: .*use --cluster kalos" "$work/stderr" ||
  fail "validate: no word of the schema: $(cat "$work/stderr")"
[ "$(cell GPU result "$work/v-kalos/fidelity.csv")" = too_few ] || fail "validate: the GPU group is not too_few"
grep -q "^GPU .* too few to judge$" "$work/stdout" || fail "validate: table: $(cat "$work/stdout")"
echo "ok: validate names the schema and a group of too few jobs"

# validate that compares nothing: exit 2, one error line, no table, no report.
code=0
"$acmesim" validate "$seren" --set workload.from=2024-01-01 --out "$work/v-none" -q >"$work/stdout" 2>"$work/stderr" ||
  code=$?
[ "$code" = 2 ] || fail "nothing compared: exit code $code ($(cat "$work/stderr"))"
[ "$(grep -c "^acmesim: error: " "$work/stderr")" = 1 ] || fail "nothing compared: $(cat "$work/stderr")"
tail -n 1 "$work/stderr" | grep -q "^acmesim: error: $seren: validate compared no job: of 0 jobs (.*kept 0 of the file's 6 rows), none started" ||
  fail "nothing compared: $(cat "$work/stderr")"
[ ! -s "$work/stdout" ] && [ ! -e "$work/v-none/fidelity.csv" ] || fail "nothing compared: wrote a report"
echo "ok: validate that compares nothing exits 2"

# The plots of an empty report, and of a group of one job.
if /usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null; then
  head -n 1 "$work/v-kalos/fidelity.csv" >"$work/empty-fidelity"
  for dir in empty one; do
    mkdir -p "$work/plots-$dir"
    cp "$work/empty-fidelity" "$work/plots-$dir/fidelity.csv"
    echo "group,source,delay_s,cdf" >"$work/plots-$dir/queue_cdf.csv"
    echo "time_s,recorded_pct,simulated_pct" >"$work/plots-$dir/utilization.csv"
  done
  printf 'GPU,recorded,0,1.00000\nGPU,simulated,7,1.00000\nEval,recorded,0,1.00000\n' >>"$work/plots-one/queue_cdf.csv"
  echo "1677628800,12.5,12.5" >>"$work/plots-one/utilization.csv"
  for dir in empty one; do
    /usr/bin/python3 scripts/plot_fidelity.py "$work/plots-$dir" 2>"$work/stderr" || fail "plots $dir: exit code $?"
    ! grep -q Traceback "$work/stderr" || fail "plots $dir: $(cat "$work/stderr")"
  done
  [ -s "$work/plots-one/queue_cdf.png" ] || fail "plots one: no queue_cdf.png"
  echo "ok: plots of an empty and a one-job group"
fi
