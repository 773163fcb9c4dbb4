#!/bin/sh
# The fault matrix at 16 ranks under a real Slurm: 3 emulated nodes (local-cluster.sh, started
# here and always stopped at the end), srun --mpi=pmix -N 3 -n 16 --overcommit,
# GDC_YIELD=always, the soak's random collectives on random communicators as the load:
#  (a) a rank killed (SIGKILL) at a random point inside the collectives (soak --kill R:N, R
#      and N random, once within the first 4 calls, once within 150), without srun's
#      --kill-on-bad-exit: gdc itself sees the death
#      (GDC_ERR_PEER_FAILED: UCX's error handling between nodes, the pid inside a node) and
#      the survivors fail and exit, unless Slurm's PMIx plugin, which kills the step when a
#      task dies without PMIx_Finalize, is faster (or UCX aborts a reader: see below);
#  (b) a rank stopped (SIGSTOP, soak --stop R:N) with GDC_TIMEOUT=8: its peers time out,
#      those waiting for it name it; with -K (--kill-on-bad-exit) srun then ends the step,
#      the stopped task included (nothing but a signal from outside can end a stopped
#      process: without -K or --wait, srun waits for it for ever, by design);
#  (c) srun itself killed (SIGKILL) and terminated (SIGTERM) during the collectives, and
#      terminated while the ranks start.
# Every case must end within $bound s of the fault, name the culprit (srun's "task R:
# Killed" and gdc's "rank R failed"; a stall line of a peer waiting for R; for srun killed,
# there is none to name but srun) and leave nothing: no process of the step, no job in the
# queue, no gdc segment in /dev/shm, nothing in the nodes' TmpFS.
# Skipped (SKIPPED: reason) where Slurm cannot be installed or started (not root, no package).
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/slurm/srun-tasks.sh"
srcdir=${top_srcdir:-.}
build=${top_builddir:-.}
cluster="$srcdir/tests/slurm/local-cluster.sh"
soak="$build/tests/soak/soak"
out=${TMPDIR:-/tmp}/gdc-slurm-faults.out.$$
marker=gdc-slurm-faults-$$-marker
n=16
bound=20
ready=90 # seconds the 16 ranks may take to start and reach the fault
began=$(date +%s)

export GDC_SLURM_DIR="${TMPDIR:-/tmp}/gdc-slurm-test"
export SLURM_CONF="$GDC_SLURM_DIR/slurm.conf"
# The emulated nodes share this machine's cores (see run-slurm.sh).
export GDC_YIELD=always
unset GDC_TIMEOUT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.2f", b - a}'; }
random_in() {
    v=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    echo $(($1 + v % ($2 - $1 + 1)))
}

skip_all() {
    echo "SKIPPED: $1"
    tap_skip_all "$1"
}

started=0
bg=
stop_cluster() {
    [ "$started" = 1 ] || return 0
    started=0
    timeout -k 5 60 sh "$cluster" stop >/dev/null 2>&1
}
kill_leftovers() {
    for p in $(pgrep -f -- "$marker"); do
        kill -KILL "$p" 2>/dev/null
    done
}
trap '[ -n "$bg" ] && kill -KILL "$bg" 2>/dev/null; kill_leftovers; stop_cluster; rm -f "$tap_log" "$out" "$out.shm" "$out.tasks"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[ "$(id -u)" = 0 ] || skip_all "starting a local Slurm cluster needs root"
[ -x "$soak" ] || skip_all "tests/soak/soak is not built"
# One local cluster at a time on this machine (fixed ports): wait for another run's end.
exec 9>"${TMPDIR:-/tmp}/gdc-slurm-test.lock"
if ! flock -w 600 9; then
    tap_result "no other Slurm test run holds ${TMPDIR:-/tmp}/gdc-slurm-test.lock after 600 s" 1
    tap_done
    exit 1
fi

t0=$(now)
started=1
if ! timeout -k 5 240 sh "$cluster" start 3 >"$out" 2>&1; then
    sed 's/^/# /' "$out"
    reason=$(grep 'local-cluster.sh:' "$out" | tail -n 1 | sed 's/^local-cluster.sh: //')
    skip_all "the local Slurm cluster does not start: ${reason:-see the lines above}"
fi
echo "# $(cat "$out") in $(elapsed "$t0") s"

# The step in the background, its output in $out; $bg is srun.
# gdc names nothing in /dev/shm (its segments are memfds: rt_shm.h); any gdc- name that
# shows up there is a regression.
shm_before() { ls -A /dev/shm | grep '^gdc-' | sort >"$out.shm"; }
start_step() { # SRUN-OPTIONS... -- SOAK-OPTIONS...
    sopts=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do sopts="$sopts $1"; shift; done
    shift
    shm_before
    : >"$out"
    t0=$(now)
    # shellcheck disable=SC2086
    srun --mpi=pmix --export=ALL --overcommit --input=none $sopts -N 3 -n "$n" \
        "$soak" --seconds 600 --tag "$marker" "$@" >>"$out" 2>&1 </dev/null &
    bg=$!
}
bg_alive() {
    [ -r "/proc/$bg/stat" ] && ! sed 's/^[0-9]* (.*) //' "/proc/$bg/stat" 2>/dev/null | grep -q '^Z'
}
wait_out() { # REGEX SEC: until $out has a line matching REGEX (ERE)
    i=0
    while ! grep -Eq -- "$1" "$out"; do
        if [ "$i" -ge $(($2 * 10)) ] || ! bg_alive; then
            grep -Eq -- "$1" "$out" && return 0 # written as the step ended
            echo "not seen in ${i}00 ms (the step $(bg_alive && echo runs || echo has ended)): $1" >>"$out"
            # what went first, which the diagnostic's last lines would not show
            grep -E 'error:|returned -' "$out" | head -n 8 | sed 's/^/first: /' >>"$out"
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
}
finish_step() { # SEC: wait for srun, SIGKILL after SEC s; sets rc
    i=0
    while bg_alive && [ "$i" -lt $(($1 * 10)) ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$bg" 2>/dev/null
    wait "$bg" 2>/dev/null
    rc=$?
    bg=
}
# 0 once no process of the step is left (waits up to SEC s), the queue is empty, no new
# gdc name is in /dev/shm and the nodes' TmpFS dirs are empty; else says what is left (and
# removes the names). "notmp" leaves the TmpFS dirs out of the wait: what is there then is
# in $left_tmp.
nothing_left() { # SEC [notmp]
    i=0
    while :; do
        procs=$(pgrep -f -- "$marker" | tr '\n' ' ')
        jobs=$(timeout 10 squeue -h -o %i 2>/dev/null | tr '\n' ' ')
        left_shm=$(ls -A /dev/shm | grep '^gdc-' | sort | comm -13 "$out.shm" - | tr '\n' ' ')
        left_tmp=$(find "$GDC_SLURM_DIR"/tmp.n* -mindepth 1 -maxdepth 1 2>/dev/null | tr '\n' ' ')
        tmp=$left_tmp
        case " $* " in *" notmp "*) tmp= ;; esac
        [ -z "$procs$jobs$left_shm$tmp" ] && break
        if [ "$i" -ge $(($1 * 10)) ]; then
            left_msg="left behind after ${1}s: processes [$procs] jobs [$jobs] /dev/shm [$left_shm] TmpFS [$left_tmp]"
            echo "$left_msg" >>"$out"
            [ -n "$procs" ] && ps -o pid,ppid,stat,args -p "$(echo $procs | tr ' ' ',')" >>"$out"
            kill_leftovers
            [ -n "$jobs" ] && timeout 10 scancel $jobs 2>/dev/null
            for f in $left_shm; do rm -f "/dev/shm/$f"; done
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 0
}
# When rank R sent itself its signal: the time on its fault line, since srun may forward the
# line a second or more after it was written; now, if the line has none.
fault_time() { # R
    t=$(sed -n "s/^.*soak: rank $1: sending itself SIG[A-Z]* .* at \([0-9][0-9.]*\)\$/\1/p" "$out" | head -n 1)
    echo "${t:-$(now)}"
}
within() { awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(s >= lo && s < hi) }'; }
diag() { echo "srun exit status $rc, ended ${ended}s after the fault" >>"$out"; }
# A failing case's reasons in its TAP line too: that line reaches make check's summary (and
# CI's excerpt of it) where the diagnostics below it may not.
because() { [ -n "$1" ] && echo " (FAILED: ${1#; })"; }

# ---------------------------------------------------------------------------------------
# (a) a rank SIGKILLed inside the collectives, no --kill-on-bad-exit. Each survivor must
# end in one of two ways, and in no other (no exit 0, no summary, no hang, no abort):
#  - on its own: exit 3 after a gdc call returned GDC_ERR_PEER_FAILED;
#  - killed by Slurm: its PMIx plugin kills the rest of the step (SIGKILL) when a task loses
#    its PMIx connection without finalizing, about a second after the death, racing with
#    gdc's own detection.
# No survivor may abort inside UCX: a peer that exits while a rank reads its memory with
# cross-memory attach was fatal to UCX 1.13 on an endpoint without UCX error handling, which
# is how gdc used to connect the ranks of one node; every endpoint has it now, with UCX's
# shared memory kept (rt_ucx.c, gdc_rt_ucx_keep_shm_with_error_handling). Aborts are still counted,
# so that a return of the old behaviour says what it is.
# Two kills: one within the first calls, while communicators are made and rendezvous are in
# flight (where survivors once crashed in UCX, a transfer landing in an aborted call's freed
# scratch, and took a dead peer's shared-memory errors for transport errors), one anywhere.
# GDC_TEST_FAULT_KILLS="N..." runs one kill within the first N calls for each N instead, to
# hunt a rare outcome (a live peer's withdrawn message read as a transport error took 30
# kills within 150 under load to show 4 times, before da8b7a8).
for most in ${GDC_TEST_FAULT_KILLS:-4 150}; do
    r=$(random_in 0 $((n - 1)))
    calls=$(random_in 1 "$most")
    start_step -- --kill "$r:$calls"
    ok=1
    ended=-
    exited3='?'
    by_slurm='?'
    aborted='?'
    why=
    if wait_out "soak: rank $r: sending itself SIGKILL" "$ready"; then
        t1=$(fault_time "$r")
        finish_step $((bound + 10))
        ended=$(elapsed "$t1")
        task_ends "$out" >"$out.tasks"
        by_gdc=$(grep -Ec '^soak: rank [0-9]+: .* returned -6 \(' "$out")
        exited3=$(grep -c '^[0-9]* Exited with exit code 3$' "$out.tasks")
        by_slurm=$(grep -v "^$r " "$out.tasks" | grep -Ec '^[0-9]+ (Killed|Terminated)$')
        aborted=$(grep -Ec '^[0-9]+ Aborted$' "$out.tasks")
        [ "$rc" != 0 ] && [ "$rc" != 124 ] || why="srun exited with $rc"
        within "$ended" 0 "$bound" || why="$why; srun ended ${ended}s after the fault"
        grep -qx "$r Killed" "$out.tasks" || why="$why; srun does not say task $r was killed"
        grep -Eq "^gdc\[[0-9]+\] error: rank $r failed \(" "$out" || why="$why; no 'rank R failed' line names rank $r"
        # every failing call says -6 (a rank's last lines may not make it out before srun
        # ends the step, so its exit status 3 is the count)
        [ "$exited3" = 0 ] || [ "$by_gdc" -ge 1 ] || why="$why; $exited3 exited with 3, but no call returned -6"
        other=$(grep -E '^soak: rank [0-9]+: .* returned -([0-57-9]|[0-9][0-9]+) \(' "$out" | head -n 1)
        [ -z "$other" ] || why="$why; a call failed with another status than GDC_ERR_PEER_FAILED: $other"
        [ "$aborted" = 0 ] || why="$why; $aborted aborted (in UCX?)"
        [ $((exited3 + by_slurm + aborted)) = $((n - 1)) ] || why="$why; survivors not all accounted for"
        [ "$(sort -un "$out.tasks" | wc -l)" = "$n" ] || why="$why; srun does not name every task's end"
        ! grep -q ' steps: ' "$out" || why="$why; a rank printed its summary (exit 0)"
        if [ -z "$why" ]; then
            nothing_left 10 && ok=0 || why="; $left_msg"
        fi
        if [ -n "$why" ]; then
            echo "case (a) failed:$why" | sed 's/:;/:/' >>"$out"
            grep -E "^gdc\[[0-9]+\] error: rank [0-9]+ failed \(" "$out" | head -n 20 >>"$out"
            sed 's/^/task /' "$out.tasks" >>"$out"
        fi
        rm -f "$out.tasks"
    else
        why="; rank $r's fault line never showed"
        finish_step 0
        nothing_left 10
    fi
    diag
    tap_check "srun -N 3 -n $n: rank $r SIGKILLed after $calls calls: named; of the $((n - 1)) survivors $exited3 failed with GDC_ERR_PEER_FAILED, $by_slurm were ended by Slurm, $aborted aborted; srun ends (status $rc) ${ended}s after; nothing left$(because "$why")" "$ok" "$out"
done

# (b) a rank SIGSTOPped, GDC_TIMEOUT=8, srun -K. GDC_STALL_WARN=2: the peers that wait for
# the stopped rank itself say so before any timeout (the first rank to time out, whose
# exit makes srun end the step, may be one that waits for another waiting rank). Small
# buffers: no rank may spend the timeout outside gdc (checking a large result on a loaded
# machine), which would time its peers out before the stop. 8 s, not 5: under make -j3
# check beside a busy loop, 16 ranks on 2 cores once timed out at 5 s before the stop.
stop_timeout=8
r=$(random_in 0 $((n - 1)))
calls=$(random_in 1 100)
export GDC_TIMEOUT=$stop_timeout GDC_STALL_WARN=2
start_step -K -- --max-bytes 16384 --stop "$r:$calls"
unset GDC_TIMEOUT GDC_STALL_WARN
ok=1
ended=-
why=
if wait_out "soak: rank $r: sending itself SIGSTOP" "$ready"; then
    t1=$(fault_time "$r")
    finish_step $((bound + 10))
    ended=$(elapsed "$t1")
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || why="srun exited with $rc"
    within "$ended" $((stop_timeout - 1)) "$bound" || why="$why; srun ended ${ended}s after the stop"
    grep -Eq "waits for (data from rank $r|rank $r's shared-memory signal( [0-9]+)?|rank $r to take its data) for [0-9]+ s" "$out" ||
        why="$why; no stall line names rank $r"
    grep -q "giving up with GDC_ERR_TIMEOUT (GDC_TIMEOUT=$stop_timeout)" "$out" || why="$why; no rank gave up with GDC_ERR_TIMEOUT"
    grep -Eq "^soak: rank [0-9]+: .* returned -7 \(" "$out" || why="$why; no call returned -7"
    if [ -z "$why" ]; then
        nothing_left 10 && ok=0 || why="; $left_msg"
    fi
    [ "$ok" = 0 ] || grep -E "waits for" "$out" | head -n 12 >>"$out"
else
    why="; rank $r's fault line never showed"
    finish_step 0
    nothing_left 10
fi
diag
tap_check "srun -K -N 3 -n $n, GDC_TIMEOUT=$stop_timeout: rank $r SIGSTOPped after $calls calls: peers time out, a stall line names rank $r, srun ends the step (status $rc) ${ended}s after, nothing left$(because "$why")" "$ok" "$out"

# (c) srun killed, or terminated, while the ranks run collectives
for sig in KILL TERM; do
    start_step --
    ok=1
    ended=-
    why=
    if wait_out "^soak: $n ranks, 600 s, seed" "$ready"; then
        sleep "$(random_in 1 3).$(random_in 0 9)"
        t1=$(now)
        kill -"$sig" "$bg"
        finish_step $((bound + 10))
        nothing_left "$bound" && ok=0 || why=$left_msg
        ended=$(elapsed "$t1")
        within "$ended" 0 "$bound" || { ok=1; why="$why; ended ${ended}s after"; }
    else
        why="the soak never started"
        finish_step 0
        nothing_left 10
    fi
    diag
    tap_check "srun -N 3 -n $n: SIG$sig to srun during the collectives: every task, the job and its files gone ${ended}s after$(because "$why")" "$ok" "$out"
done

# ... and while the ranks start: up to half a second after the first task shows, inside
# gdc_init (which made named segments in /dev/shm once: a rank killed before its node's
# peers had mapped them left its own there for ever, since no launcher but gdrun knew of
# them).
start_step --
ok=1
ended=-
why=
i=0
while bg_alive && [ "$i" -lt $((ready * 50)) ] && [ -z "$(pgrep -f -- "$marker" | grep -vx "$bg")" ]; do
    sleep 0.02
    i=$((i + 1))
done
sleep "0.$(random_in 0 5)"
if bg_alive; then
    t1=$(now)
    grep -q "^soak: $n ranks" "$out" && echo "(the soak had started: the kill came after gdc_init)" >>"$out"
    kill -TERM "$bg"
    finish_step $((bound + 10))
    nothing_left "$bound" notmp && ok=0 || why=$left_msg
    ended=$(elapsed "$t1")
    within "$ended" 0 "$bound" || { ok=1; why="$why; ended ${ended}s after"; }
else
    why="srun ended before the signal"
    finish_step 0
    nothing_left 10
fi
diag
tap_check "srun -N 3 -n $n: SIGTERM to srun while the ranks start: every task and the job gone ${ended}s after$(because "$why")" "$ok" "$out"
# Slurm's own: a slurmstepd whose step is cancelled while its tasks connect to its PMIx
# server may hang for good in PMIx_server_finalize (Slurm 22.05, PMIx 4.2.2; a mutex in
# pmix_rte_finalize), keeping its spmix_appdir in the node's TmpFS until the cluster
# stops. Not gdc's: reported as TODO when it happens.
i=0
while [ -n "$left_tmp" ] && [ "$i" -lt 100 ]; do # a normal clean-up may take a few seconds
    sleep 0.1
    i=$((i + 1))
    left_tmp=$(find "$GDC_SLURM_DIR"/tmp.n* -mindepth 1 -maxdepth 1 2>/dev/null | tr '\n' ' ')
done
if [ -z "$left_tmp" ]; then
    tap_result "... and nothing left in the nodes' TmpFS" 0
else
    tap_n=$((tap_n + 1))
    echo "not ok $tap_n - ... and nothing left in the nodes' TmpFS # TODO Slurm's: after 10 s more, $left_tmp (its slurmstepd hung in PMIx_server_finalize?)"
fi

# ---------------------------------------------------------------------------------------
t=$(now)
stop_cluster
echo "# the cluster stopped in $(elapsed "$t") s"
left=""
for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qxF "GDC_LOCAL_SLURM=$GDC_SLURM_DIR" && left="$left $pid"
done
[ -z "$left" ] && [ ! -e "$GDC_SLURM_DIR" ]
tap_check "the cluster is stopped: no daemon or step of it left (pids:${left:- none}), its state removed" $?
echo "# the Slurm fault suite took $(($(date +%s) - began)) s"
tap_done
