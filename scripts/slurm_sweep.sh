#!/usr/bin/env bash
# A sweep as a Slurm job array: task I of N runs share I of the sweep (acmesim sweep --shard I/N),
# then a job that waits for every task (afterany) merges them (acmesim sweep --merge): the same
# summary.csv and summary_by_type.csv as one `acmesim sweep`. OUT must be on a file system every
# node sees; the jobs start in the current folder; their logs go to OUT/slurm/.
# Usage: scripts/slurm_sweep.sh SWEEP OUT N [sbatch option...]   (the options go to every job)
#   e.g. scripts/slurm_sweep.sh configs/sweeps/kalos_months.yaml /shared/out/kalos-months 8 --cpus-per-task=16
# Prints the two job ids. With --wait, returns when the merge has run, with its exit code
# (0: every run ok). ACMESIM names the executable (default: build/acmesim of this checkout).
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,9p "$0" >&2; exit 2; }
sweep=$1 out=$2 n=$3
shift 3
acmesim=${ACMESIM:-$(cd "$(dirname "$0")/.." && pwd)/build/acmesim}
mkdir -p "$out/slurm"
command=$(printf '%q ' "$acmesim" sweep "$sweep" --out "$out" -q)
array=$(sbatch --parsable --job-name=acmesim-sweep --array="0-$((n - 1))" --output="$out/slurm/%A_%a.log" "$@" \
  --wrap="exec $command --shard \$SLURM_ARRAY_TASK_ID/$n") ||
  [[ "$array" =~ ^[0-9]+$ ]] || exit 1  # with --wait, a failed task fails sbatch: merge what ran
echo "array job $array: $n shards" >&2
sbatch --parsable --job-name=acmesim-merge --dependency="afterany:$array" --output="$out/slurm/%j.log" "$@" \
  --wrap="exec $command --merge"
