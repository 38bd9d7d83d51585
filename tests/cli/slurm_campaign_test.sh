#!/usr/bin/env bash
# The README's Slurm recipe, for real: a single-node Slurm (slurmctld + slurmd + munged on this
# host, private config/state/sockets/ports under the scratch dir, started here and stopped by PID),
# `sbatch --array=0-1` over `ftroute campaign --shard I/2` with an OpenSM engine through ibsim
# (opensm:ftree-misroute) and an in-process one, then `ftroute campaign-merge` as a job with
# --dependency=afterok on the array; the merged results.csv equals a single-machine run (every
# column but route_seconds, which is time). Skips (exit 77, reason printed) when Slurm or munge is
# not installed or the daemons do not come up.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
for p in slurmctld slurmd munged mungekey sbatch squeue sinfo sacct; do
  command -v $p > /dev/null || [ $p = sacct ] || skip "$p not installed (Debian packages slurm-wlm, munge)"
done
rm -rf "$D"; mkdir -p "$D"/{state,spool,log,munge}; cd "$D"
PIDS=()
cleanup() {  # stop what this script started, by PID
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2> /dev/null || true; done
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do
    for _ in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$p" 2> /dev/null || true
  done
}
trap cleanup EXIT

# munge with its own key and socket
mungekey -c -k "$D/munge/munge.key" > /dev/null 2>&1 || mungekey -k "$D/munge/munge.key" > /dev/null 2>&1 \
  || dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2> /dev/null
chmod 600 "$D/munge/munge.key"; chmod 700 "$D/munge"
munged -F --force --key-file="$D/munge/munge.key" --socket="$D/munge/munge.sock" \
  --pid-file="$D/munge/munged.pid" --log-file="$D/log/munged.log" --seed-file="$D/munge/seed" > "$D/log/munged.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [ -S "$D/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$D/munge/munge.sock" ] || { cat "$D/log/munged.out" "$D/log/munged.log" 2>/dev/null; skip "munged did not start"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
H=$(hostname -s)
cat > slurm.conf <<CONF
ClusterName=ftroute-test
SlurmctldHost=$H
SlurmUser=$(id -un)
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
NodeName=$H CPUs=$(nproc) State=UNKNOWN
PartitionName=ft Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$D/log/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" -N "$H" > "$D/log/slurmd.out" 2>&1 &
PIDS+=($!)
up=0
for _ in $(seq 100); do
  st=$(timeout 5 sinfo -h -o '%T' 2> /dev/null || true)
  case $st in idle*|mixed*|allocated*) up=1; break ;; esac
  sleep 0.2
done
if [ $up -ne 1 ]; then
  tail -5 "$D"/log/slurmctld.log "$D"/log/slurmd.log "$D"/log/*.out 2> /dev/null || true  # logs may not exist
  skip "single-node Slurm did not come up (sinfo state '${st:-none}')"
fi
echo "ok: Slurm up on $H ($(sinfo -h -o '%P %D %T %c'))"

CAMP=(campaign --gen fattree:4,2 --engines ftree-misroute,opensm:ftree-misroute --link-failures 0,1 --seeds 2 -j 1 -q
      --opensm-timeout 60)
# the README recipe: one array task per shard, then the merge after all of them succeeded
arr=$(sbatch --parsable --array=0-1 -o "$D/log/shard-%a.out" --chdir="$D" \
        --wrap "\"$FT\" ${CAMP[*]} --shard \${SLURM_ARRAY_TASK_ID}/2 --out camp/shard-\${SLURM_ARRAY_TASK_ID}")
merge=$(sbatch --parsable --dependency=afterok:"$arr" -o "$D/log/merge.out" --chdir="$D" \
          --wrap "\"$FT\" campaign-merge camp/shard-0 camp/shard-1 --out camp/merged")
echo "ok: submitted array $arr and merge $merge (afterok:$arr)"
# the single-machine reference meanwhile
"$FT" "${CAMP[@]}" --out single > /dev/null
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$arr,$merge" 2> /dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -j "$arr,$merge" 2> /dev/null)" ] || { squeue; fail "jobs still queued/running after 300 s"; }
cat log/shard-0.out log/shard-1.out log/merge.out 2> /dev/null | tail -5
[ -s camp/merged/results.csv ] || { cat log/*.out; fail "no merged results (did a shard fail? merge runs only afterok)"; }
n0=$(($(wc -l < camp/shard-0/results.csv) - 1)); n1=$(($(wc -l < camp/shard-1/results.csv) - 1))
[ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] || fail "empty shard ($n0, $n1)"
strip() { python3 -c 'import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))
for x in r: x.pop("route_seconds")
print("\n".join(sorted(",".join(x.values()) for x in r)))' "$1"; }
diff <(strip single/results.csv) <(strip camp/merged/results.csv) || fail "merged Slurm shards differ from the single-machine run"
grep -q 'opensm:ftree-misroute' camp/merged/results.csv || fail "no OpenSM rows"
echo "PASS: Slurm array ($n0 + $n1 rows) + afterok merge == single-machine campaign"
