#!/usr/bin/env bash
# A sweep on a real Slurm: a one-node cluster (slurmctld, slurmd and munged on this machine, their
# configuration, key and state in a temporary folder, stopped at the end) runs the sweep as a job
# array of three shards and a merge (scripts/slurm_sweep.sh), and, with an MPI build, as
# `srun --mpi=pmix -n 2` of the MPI sweep. Both merged summaries are byte-identical to one
# process's. Exit 77 (ctest's SKIP_RETURN_CODE) only when Slurm or munge is not installed
# (scripts/setup.sh installs slurm-wlm and munge).
# Usage: tests/cli/test_sweep_slurm.sh path/to/acmesim mpi|nompi
set -euo pipefail
acmesim=$(realpath "$1")
mpi=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
sweep=$root/tests/data/sweep_small.yaml
PATH=$PATH:/usr/sbin:/sbin
for tool in slurmctld slurmd sbatch srun sinfo munged mungekey; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (scripts/setup.sh installs slurm-wlm, munge)"; exit 77; }
done
unset $(compgen -e | grep '^SLURM_' || true)  # not the job this test may itself run in
d=$(mktemp -d)
stop() {  # the daemons this test started, by the process ids they wrote
  for daemon in slurmd slurmctld munged; do
    [ -s "$d/$daemon.pid" ] || continue
    pid=$(cat "$d/$daemon.pid")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$d"
}
trap stop EXIT
fail() { echo "FAIL: $*" >&2; tail -n 20 "$d"/log/*.log >&2 2>/dev/null || true; exit 1; }

mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
chmod 700 "$d/munge"
mungekey --create --keyfile="$d/munge/munge.key"
munged --force --socket="$d/munge/socket" --key-file="$d/munge/munge.key" --pid-file="$d/munged.pid" \
  --log-file="$d/log/munged.log" --seed-file="$d/munge/seed"
read -r ctld_port slurmd_port < <(/usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
user=$(id -un)
# linuxproc and task/none: no cgroups in a container; config_overrides: the node is what this
# file says (2 CPUs) whatever the machine has.
cat > "$d/slurm.conf" <<CONF
ClusterName=acmesim-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
SchedulerParameters=sched_interval=1
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$d/slurm.conf
slurmctld -i || fail "slurmctld did not start"
slurmd -N localhost || fail "slurmd did not start"
for _ in $(seq 100); do [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break; sleep 0.2; done
[ "$(sinfo -h -o %t)" = idle ] || fail "the node is not idle: $(sinfo -h -o '%t %E')"

cd "$d"
"$acmesim" sweep "$sweep" --out one -q --jobs 1 2>/dev/null

# The job array: three shards of two runs each, then the merge.
ACMESIM=$acmesim timeout 80 "$root/scripts/slurm_sweep.sh" "$sweep" array 3 --wait >/dev/null ||
  fail "the job array or its merge failed: $(cat array/slurm/*.log)"
for i in 0 1 2; do
  grep -q "shard $i/3: 2 runs ok, 0 failed" array/slurm/*_$i.log || fail "shard $i: $(cat array/slurm/*_$i.log)"
done
cmp one/summary.csv array/summary.csv || fail "the array's summary.csv differs"
cmp one/summary_by_type.csv array/summary_by_type.csv || fail "the array's summary_by_type.csv differs"
echo "Slurm job array of 3 shards + merge: summary.csv and summary_by_type.csv identical to one process"

if [ "$mpi" = mpi ]; then
  # Under AddressSanitizer, whole stacks for tests/sanitizers/lsan.supp (as tests/cli/test_sweep_mpi.sh).
  [ -z "${ASAN_OPTIONS+set}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
  timeout 60 srun --mpi=pmix -n 2 "$acmesim" sweep "$sweep" --out srun -q 2>srun.log || fail "srun: $(cat srun.log)"
  grep -q "6 to run on 2 processes" srun.log || fail "expected 2 ranks: $(cat srun.log)"
  cmp one/summary.csv srun/summary.csv || fail "srun's summary.csv differs"
  cmp one/summary_by_type.csv srun/summary_by_type.csv || fail "srun's summary_by_type.csv differs"
  echo "srun --mpi=pmix -n 2: summary.csv and summary_by_type.csv identical to one process"
fi
