#!/usr/bin/env bash
# ranks_slurm.sh — the Slurm recipe (contrib/slurm) on a real single-node
# Slurm: Debian's munge and slurm-wlm started by this test on a private
# config, state folder, ports and munge socket, as their own users (munged
# as munge, slurmctld as slurm, slurmd as root: it launches the jobs), and
# stopped by pid when the test ends, failed or not. A 32-rank job array of
# gpuflame summarise and its dependent combining job (report
# --from-summaries) must give the all-in-one `gpuflame report` of the same
# traces byte for byte, in text, JSON and HTML; a requeued task (the array
# run again) changes nothing. Waits poll Slurm's state with a bound, never a
# fixed sleep. SKIPs (visibly) only where the daemons cannot start: not
# root, slurm-wlm or munge missing (scripts/deps.sh test installs them), or
# munged or slurmctld refusing to start (its log's last line is shown); once
# slurmctld runs, a node that never comes up is a failure.
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-}; [ -x "$GFR" ] || GFR=$GF
GFR=$(cd "$(dirname "$GFR")" && pwd)/$(basename "$GFR")
root=$(pwd)
W=32 S=3

for b in munged slurmctld slurmd sbatch squeue scontrol sinfo runuser; do
  command -v "$b" >/dev/null || PATH=$PATH:/usr/sbin
  command -v "$b" >/dev/null || { skip ranks-slurm "$b missing (scripts/deps.sh test installs munge and slurm-wlm)"; exit 0; }
done
[ "$(id -u)" = 0 ] || { skip ranks-slurm "not root: slurmd must run as root to start the jobs"; exit 0; }
id munge >/dev/null 2>&1 && id slurm >/dev/null 2>&1 || { skip ranks-slurm "no munge or slurm user (the Debian packages make them)"; exit 0; }

# the daemons' own folder: readable by munge and slurm (the test's $T is 0700)
R=$(mktemp -d /tmp/gf-slurm.XXXXXX)
chmod 755 "$R"
stop() {
  for p in "$R/slurm/state/slurmd.pid" "$R/slurm/state/slurmctld.pid" "$R/munge/munged.pid"; do
    [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
  done
  # bounded wait for them to go, so the folder can be removed
  for _ in $(seq 1 100); do
    alive=0
    for p in "$R/slurm/state/slurmd.pid" "$R/slurm/state/slurmctld.pid" "$R/munge/munged.pid"; do
      [ -s "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null && alive=1
    done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  rm -rf "$R" "$T"
}
trap stop EXIT

# ---- munge: a private key, socket and state ----
mkdir -p "$R/munge" "$R/run"
chown munge:munge "$R/munge" "$R/run"
chmod 700 "$R/munge"
chmod 755 "$R/run"
head -c 1024 /dev/urandom >"$R/munge/munge.key"
chown munge:munge "$R/munge/munge.key"
chmod 400 "$R/munge/munge.key"
sock=$R/run/munge.socket
if ! runuser -u munge -- munged --key-file="$R/munge/munge.key" --socket="$sock" --pid-file="$R/munge/munged.pid" \
     --log-file="$R/munge/munged.log" --seed-file="$R/munge/munged.seed" 2>"$T/munged.err"; then
  skip ranks-slurm "munged does not start: $(tail -1 "$T/munged.err")"; exit 0
fi

# ---- slurm: one node, this machine, private ports ----
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mkdir -p "$R/slurm/state" "$R/slurm/spool" "$R/slurm/log"
chown slurm:slurm "$R/slurm/state" "$R/slurm/log"
host=$(hostname -s)
plugins=$(dirname "$(find /usr/lib -name auth_munge.so -path '*slurm*' 2>/dev/null | head -1)")
cat >"$R/slurm/slurm.conf" <<EOF
ClusterName=gftest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
PluginDir=$plugins
StateSaveLocation=$R/slurm/state
SlurmdSpoolDir=$R/slurm/spool
SlurmctldPidFile=$R/slurm/state/slurmctld.pid
SlurmdPidFile=$R/slurm/state/slurmd.pid
SlurmctldLogFile=$R/slurm/log/slurmctld.log
SlurmdLogFile=$R/slurm/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,sched_min_interval=100000,default_queue_depth=1000
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(awk '/^MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo) State=UNKNOWN
PartitionName=gf Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$R/slurm/slurm.conf
if ! runuser -u slurm -- slurmctld -f "$SLURM_CONF" -i 2>"$T/ctld.err"; then
  skip ranks-slurm "slurmctld does not start: $(tail -1 "$T/ctld.err") $(tail -1 "$R/slurm/log/slurmctld.log" 2>/dev/null)"; exit 0
fi
slurmd -f "$SLURM_CONF" 2>"$T/slurmd.err" || { fail ranks-slurm-slurmd "slurmd does not start: $(tail -1 "$T/slurmd.err")"; exit 0; }
# bounded wait: the node reports in and is idle
up=0
for _ in $(seq 1 300); do
  [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && { up=1; break; }
  sleep 0.2
done
if [ "$up" = 1 ]; then pass ranks-slurm-node-idle
else fail ranks-slurm-node-idle "the node never became idle (slurmctld started): $(tail -1 "$R/slurm/log/slurmctld.log")"; exit 0; fi

# ---- the job: 32 ranks, two process groups ----
cc -O2 -o "$T/gen_trace" bench/gen_trace.c || { fail gen-build "bench/gen_trace.c does not build"; exit 0; }
mkdir -p "$R/traces"
for r in $(seq 0 $((W - 1))); do
  "$T/gen_trace" 100 1 --rank "$r" --world "$W" --pg 2 --steps "$S" | gzip -1 >"$R/traces/rank$r.json.gz"
done
traces=("$R"/traces/rank*.json.gz)
chmod -R a+rX "$R/traces"
mkdir -p "$R/out"
chmod 777 "$R/out"
t0=$(date +%s)
"$root/contrib/slurm/submit.sh" -o "$R/out" -n 8 -g "$GFR" -r v1 -d "$R/out/store.db" "${traces[@]}" >"$T/submit.out" 2>&1
expect_eq ranks-slurm-submitted "$?" 0
read -r array combine <"$R/out/jobs" || { fail ranks-slurm "no job ids: $(cat "$T/submit.out")"; exit 0; }
# bounded wait on Slurm's own state for the combining job (a failed task
# leaves it pending for ever: DependencyNeverSatisfied ends the wait too)
state() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
wait_job() { # JOBID: its final state, or the reason it will never run
  local st=
  for _ in $(seq 1 6000); do # at most 10 minutes (a busy shared machine)
    st=$(state "$1")
    case $st in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
    scontrol show job -o "$1" 2>/dev/null | grep -q 'Reason=DependencyNeverSatisfied' && { st=NEVER; break; }
    sleep 0.1
  done
  echo "$st"
}
st=$(wait_job "$combine")
expect_eq ranks-slurm-combine-completed "$st" COMPLETED
echo "note: the array of $W tasks and the combine took $(($(date +%s) - t0)) s"
done_tasks=$(scontrol show job -o "$array" 2>/dev/null | grep -c 'JobState=COMPLETED')
expect_eq ranks-slurm-array-tasks "$done_tasks" "$W"
expect_eq ranks-slurm-summaries "$(ls "$R/out/summaries" | grep -c '\.summary\.json\.zst$')" "$W"

# the combine equals the all-in-one report, in every format
"$GFR" report "${traces[@]}" >"$T/all.txt" 2>/dev/null
"$GFR" report --format json "${traces[@]}" >"$T/all.json" 2>/dev/null
"$GFR" report --format html "${traces[@]}" >"$T/all.html" 2>/dev/null
expect_same ranks-slurm-text-equals-report "$R/out/report.txt" "$T/all.txt"
expect_same ranks-slurm-json-equals-report "$R/out/report.json" "$T/all.json"
expect_same ranks-slurm-html-equals-report "$R/out/report.html" "$T/all.html"
# and it found both groups' stragglers (ranks 5 and 21: a third into each half)
expect_grep ranks-slurm-straggler-a "^  1 +group_a +16 +3 +0 +rank 5 " "$R/out/report.txt"
expect_grep ranks-slurm-straggler-b "^  2 +group_b +16 +3 +0 +rank 21 " "$R/out/report.txt"

# the combine stored the ranks: one run per rank, labelled with the array's job id
stored() { "$GFR" store list --db "$R/out/store.db" --label "run=$1" --json | python3 -c "import json,sys; r=json.load(sys.stdin); print(len(r), sorted(set(x['kind'] for x in r)), sorted(int(x['labels']['rank']) for x in r) == list(range($W)))"; }
expect_eq ranks-slurm-stored "$(stored "$array")" "$W ['summary'] True"
# the combine run again (a requeue): the same reports, the run not stored twice
GF_SUMS=$R/out/summaries GF_OUT=$R/out GF_RUN=$array GF_RELEASE=v1 GF_DB=$R/out/store.db GPUFLAME=$GFR \
  bash "$root/contrib/slurm/combine.sbatch" >"$T/recombine.out" 2>&1
expect_eq ranks-slurm-recombine-rc "$?" 0
expect_same ranks-slurm-recombine-same-report "$R/out/report.txt" "$T/all.txt"
expect_eq ranks-slurm-stored-once "$(stored "$array")" "$W ['summary'] True"

# a retry: the array's tasks and the combine run again change nothing
cp "$R/out/report.txt" "$T/first.txt"
cp -r "$R/out/summaries" "$T/first-sums"
"$root/contrib/slurm/submit.sh" -o "$R/out" -n 8 -g "$GFR" -r v1 -d "$R/out/store.db" "${traces[@]}" >"$T/submit2.out" 2>&1
read -r array2 combine2 <"$R/out/jobs"
st=$(wait_job "$combine2")
expect_eq ranks-slurm-retry-completed "$st" COMPLETED
# the run id differs (a new array): the summaries' run field, nothing else
same=1
for f in "$T"/first-sums/*.zst; do
  zstd -dcq "$f" | sed 's/"run": "[0-9]*"/"run": "X"/' >"$T/a.json"
  zstd -dcq "$R/out/summaries/$(basename "$f")" | sed 's/"run": "[0-9]*"/"run": "X"/' >"$T/b.json"
  cmp -s "$T/a.json" "$T/b.json" || same=0
done
expect_eq ranks-slurm-retry-same-summaries "$same" 1
expect_same ranks-slurm-retry-same-report "$R/out/report.txt" "$T/first.txt"
[ "$array2" != "$array" ] && pass ranks-slurm-retry-new-array || fail ranks-slurm-retry-new-array "same job id $array"
exit 0
