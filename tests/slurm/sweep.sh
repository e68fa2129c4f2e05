#!/usr/bin/env bash
# Issue #23: a `cake bench` sweep end to end under a real single-node Slurm (Debian's slurmctld, slurmd and munge,
# started here in a temporary folder with a configuration of their own, and stopped at the end), on CPU with the
# stand-in CUDA driver: `cake bench --slurm 2` writes the script, the script submits a job array of two shards
# and a merge after it, and the merged results must be the one-process sweep's.
# Usage: tests/slurm/sweep.sh CAKE FAKE_LIBCUDA   (exit 77: Slurm is not installed; skipped)
set -uo pipefail
cake=$(realpath "$1") fake=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd) repo=$(cd "$(dirname "$0")/../.." && pwd)
for tool in slurmctld slurmd sbatch squeue sinfo munged mungekey; do
  command -v "$tool" > /dev/null || { echo "skipped: $tool is not installed (scripts/setup.sh installs Slurm)"; exit 77; }
done
t=$(mktemp -d /tmp/cake-slurm-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
  [ -n "${KEEP:-}" ] || rm -rf "$t"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$t"/*.log; do echo "--- $f"; tail -20 "$f"; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: a key of this run's, its own socket
mkdir -p "$t/munge" "$t/state" "$t/spool"
mungekey --create --keyfile "$t/munge/munge.key" > /dev/null 2>&1 || fail "mungekey"
chmod 600 "$t/munge/munge.key"
munged --force --foreground --key-file "$t/munge/munge.key" --socket "$t/munge/munge.sock" \
  --pid-file "$t/munge/munged.pid" --log-file "$t/munged.log" --seed-file "$t/munge/seed" > /dev/null 2>&1 &
pids+=($!)
host=$(hostname -s)
cat > "$t/slurm.conf" <<CONF
ClusterName=cake
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$t/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=cake Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$t/slurm.conf
for i in $(seq 50); do [ -S "$t/munge/munge.sock" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" > "$t/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$t/slurmd.out.log" 2>&1 &
pids+=($!)
up=
for i in $(seq 100); do
  if sinfo -h -o '%T' 2> /dev/null | grep -q idle; then up=1; break; fi
  sleep 0.2
done
[ -n "$up" ] || fail "the Slurm node did not come up"

# the sweep: one process, then through Slurm
python3 "$repo/tests/lit/cli/Inputs/bench_plan.py" "$repo" > "$t/plan.json"
export CAKE_LIBCUDA=$fake CAKE_LOG=0
"$cake" bench "$t/plan.json" -o "$t/one.json" 2> "$t/one.log" || fail "the one-process sweep"
"$cake" bench "$t/plan.json" -o "$t/sweep.json" --slurm 2 --slurm-gres "" > "$t/sweep.sh" || fail "cake bench --slurm"
bash "$t/sweep.sh" > "$t/submit.log" 2>&1 || fail "the submission"
for i in $(seq 300); do
  [ -z "$(squeue -h 2> /dev/null)" ] && [ -s "$t/sweep.json" ] && break
  sleep 0.2
done
[ -s "$t/sweep.json" ] || fail "no merged results after 60 s"
python3 "$repo/tests/lit/cli/Inputs/bench_same.py" "$t/one.json" "$t/sweep.json" || fail "the merged sweep differs"
grep -q "merged 2 shards: 5 runs, 0 failed" "$t/sweep.json.merge.log" || fail "the merge job's log"
echo "slurm sweep: 2 shards and a merge through slurmctld/slurmd, the same 5 runs as one process"
