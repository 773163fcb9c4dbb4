#!/bin/sh
# A real Slurm cluster of NODES emulated nodes (n1..nN) on this one machine, to run gdc under
# `srun --mpi=pmix` across nodes: each emulated node runs its own slurmd, and Slurm's PMIx
# plugin hosts the ranks of that node and exchanges with the other nodes over TCP, as on a
# real cluster (Debian's Slurm 22.05 and its pmix_v4 plugin).
#
#   local-cluster.sh start [NODES]  install (Debian packages) if needed, configure, start,
#                                   wait until every node is idle (NODES defaults to 2)
#   local-cluster.sh stop           cancel every job, stop what `start` started, remove the state
#   local-cluster.sh status         sinfo and squeue of this cluster
#   local-cluster.sh env            the line to source to use it: SLURM_CONF=...
# then: SLURM_CONF=$GDC_SLURM_DIR/slurm.conf srun --mpi=pmix -N 2 -n 4 --overcommit ./app
#
# Needs root. Adapted from the project's shared tooling (../shared/slurm/local-cluster.sh,
# which CI's clean clone does not have) for tests/slurm: its own configuration file
# (SLURM_CONF; /etc/slurm is left alone), its own ports (GDC_SLURM_PORT, so it can run beside
# the shared script's cluster), munged stopped again when this script started it, and a
# `stop` that leaves nothing running. State lives under $GDC_SLURM_DIR (default
# ${TMPDIR:-/tmp}/gdc-slurm-test).
set -eu
D=${GDC_SLURM_DIR:-${TMPDIR:-/tmp}/gdc-slurm-test}
port=${GDC_SLURM_PORT:-17200}
conf=$D/slurm.conf
cmd=${1:-status}
nodes=${2:-2}
export SLURM_CONF="$conf"

say() { echo "local-cluster.sh: $*" >&2; }

# Stop the daemons whose pid files are given, all at once (each takes about 2 s to go),
# waiting up to 5 s before SIGKILL.
stop_pidfiles() {
    pids=""
    for f in "$@"; do
        [ -f "$f" ] || continue
        pid=$(cat "$f" 2>/dev/null || true)
        [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids="$pids $pid"
        rm -f "$f"
    done
    for _ in $(seq 1 50); do
        alive=""
        for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive="$alive $pid"; done
        [ -z "$alive" ] && return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -9 $alive 2>/dev/null || true
}

# Processes that carry this cluster's marker in their environment: the step daemons our
# slurmd started (they inherit its environment) and anything started with our SLURM_CONF.
marked_pids() {
    for env in /proc/[0-9]*/environ; do
        pid=${env#/proc/}; pid=${pid%/environ}
        [ "$pid" = $$ ] && continue
        { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qxF "GDC_LOCAL_SLURM=$D" && echo "$pid"
    done
    return 0
}

# The emulated nodes share this machine's cores, and slurmstepd starts each node's tasks in
# a session of its own. With the kernel's autogroup scheduling (sched_autogroup_enabled),
# the cores are then shared between the nodes, not between the tasks: a task that waits by
# yielding (GDC_YIELD) keeps its node's share and a node with work gets no more. 16 ranks on
# 3 nodes ran the soak 10 times slower than under gdrun, and stalled for seconds. Autogroups
# apply only to tasks of the root CPU cgroup, so the daemons, and every task they start,
# run in a CPU cgroup of the cluster's own, weighing as much as one autogroup per node did.
cpu_cgroup() { # the cluster's CPU cgroup (cgroup v1's cpu hierarchy, or v2), or nothing
    if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.shares ]; then
        echo "/sys/fs/cgroup/cpu/gdc-slurm-$port"
    elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        echo "/sys/fs/cgroup/gdc-slurm-$port"
    fi
}
enter_cpu_cgroup() {
    g=$(cpu_cgroup)
    if [ -n "$g" ] && [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control || true
    fi 2>/dev/null
    if [ -n "$g" ] && mkdir -p "$g" 2>/dev/null && echo $$ >"$g/cgroup.procs" 2>/dev/null; then
        if [ -f "$g/cpu.shares" ]; then
            echo $((1024 * nodes)) >"$g/cpu.shares"
        else
            echo $((100 * nodes)) >"$g/cpu.weight"
        fi 2>/dev/null || true
        return 0
    fi
    { [ -n "$g" ] && rmdir "$g"; } 2>/dev/null || true
    say "no CPU cgroup of its own (${g:-no writable cpu controller}): the nodes share the cores by autogroup, which slows tasks that wait by yielding"
}
remove_cpu_cgroup() {
    g=$(cpu_cgroup)
    [ -n "$g" ] && [ -d "$g" ] || return 0
    for _ in $(seq 1 20); do
        rmdir "$g" 2>/dev/null && return 0
        sleep 0.1
    done
    say "cannot remove $g: $(tr '\n' ' ' <"$g/cgroup.procs" 2>/dev/null)"
}

stop() {
    if [ -f "$D/slurmctld.pid" ] && command -v scancel >/dev/null; then
        # Jobs first, while slurmctld and the slurmds can still end their steps cleanly.
        timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
        for _ in $(seq 1 20); do
            [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    stop_pidfiles "$D"/slurmd.*.pid "$D/slurmctld.pid"
    left=$(marked_pids)
    if [ -n "$left" ]; then
        say "killing what the cluster left running: $(echo $left)"
        # shellcheck disable=SC2086
        kill -9 $left 2>/dev/null || true
    fi
    if [ -f "$D/munged.ours" ]; then
        stop_pidfiles /run/munge/munged.pid
    fi
    remove_cpu_cgroup
    rm -rf "$D"
}

case "$cmd" in
stop) stop; echo "local slurm stopped"; exit 0 ;;
status) sinfo 2>&1 || true; squeue 2>&1 || true; exit 0 ;;
env) echo "export SLURM_CONF=$conf"; exit 0 ;;
start) ;;
*) echo "usage: $0 start [NODES] | stop | status | env" >&2; exit 2 ;;
esac

case "$nodes" in
''|*[!0-9]*) say "NODES must be a number, not '$nodes'"; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { say "needs root"; exit 1; }
if ! command -v slurmd >/dev/null || ! command -v slurmctld >/dev/null || ! command -v srun >/dev/null ||
   ! command -v munged >/dev/null; then
    say "installing slurmctld slurmd slurm-client munge"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge; } >/dev/null 2>&1 || { say "cannot install Slurm's Debian packages"; exit 1; }
fi
plugin=$(ls /usr/lib/*/slurm-wlm/mpi_pmix.so /usr/lib/slurm-wlm/mpi_pmix.so /usr/lib64/slurm/mpi_pmix.so 2>/dev/null | head -n 1)
[ -n "$plugin" ] || { say "Slurm has no pmix plugin (mpi_pmix.so)"; exit 1; }
stop
mkdir -p "$D/state" "$D/log"
host=$(hostname -s)

# munge: authentication between the Slurm daemons and the commands.
[ -f /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null;
                                 chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge
if ! munge -n >/dev/null 2>&1; then
    rm -f /run/munge/munge.socket.2*
    su -s /bin/sh munge -c munged 2>/dev/null || munged --force 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do munge -n >/dev/null 2>&1 && break; sleep 0.5; done
    munge -n >/dev/null 2>&1 || { say "munged does not start"; exit 1; }
    touch "$D/munged.ours"
fi

{
    echo "# gdc local-cluster: $nodes emulated nodes on $host"
    echo "ClusterName=gdctest"
    echo "SlurmctldHost=$host"
    echo "SlurmctldPort=$port"
    echo "AuthType=auth/munge"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "MpiDefault=pmix"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$D/state"
    echo "SlurmdSpoolDir=$D/spool.%n"
    echo "TmpFS=$D/tmp.%n"
    echo "SlurmctldLogFile=$D/log/slurmctld.log"
    echo "SlurmdLogFile=$D/log/slurmd.%n.log"
    echo "SlurmctldPidFile=$D/slurmctld.pid"
    echo "SlurmdPidFile=$D/slurmd.%n.pid"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=30"
    echo "KillWait=2"
    cpus=$(nproc)
    list=""
    for i in $(seq 1 "$nodes"); do
        echo "NodeName=n$i NodeHostname=$host Port=$((port + i)) CPUs=$cpus RealMemory=4000 State=UNKNOWN"
        list="$list${list:+,}n$i"
        mkdir -p "$D/tmp.n$i" "$D/spool.n$i"
    done
    echo "PartitionName=gdc Nodes=$list Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE"
} >"$conf"

enter_cpu_cgroup
# The marker lets `stop` find whatever the daemons leave behind (see marked_pids).
GDC_LOCAL_SLURM=$D slurmctld -f "$conf" </dev/null >>"$D/log/start.log" 2>&1
for i in $(seq 1 "$nodes"); do
    GDC_LOCAL_SLURM=$D slurmd -f "$conf" -N "n$i" </dev/null >>"$D/log/start.log" 2>&1
done
for _ in $(seq 1 60); do
    idle=$(sinfo -h -o '%t %D' 2>/dev/null | awk '$1=="idle"{s+=$2} END{print s+0}')
    [ "$idle" = "$nodes" ] && { echo "local slurm up: $nodes nodes idle (partition gdc; SLURM_CONF=$conf)"; exit 0; }
    sleep 0.5
done
say "nodes did not come up; see $D/log"
sinfo >&2 || true
tail -n 20 "$D"/log/*.log >&2 || true
exit 1
