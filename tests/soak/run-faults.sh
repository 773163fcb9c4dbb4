#!/bin/sh
# The fault matrix at 16 ranks under gdrun on this machine (GDC_YIELD=always: 16 ranks share
# the cores), with the soak's random collectives on random communicators as the load:
#  (a) a rank killed (SIGKILL) at a random point inside the collectives: soak --kill R:N,
#      where world rank R arms a 0-3 ms timer after its N-th collective call, R and N
#      random (rank 0, the one that leads the soak, once);
#  (b) a rank stopped (SIGSTOP) the same way, with GDC_TIMEOUT=5;
#  (c) gdrun itself killed (SIGKILL, during the ranks' start and during the collectives)
#      and terminated (SIGTERM).
# Every case must end within $bound s of the fault, say who failed (gdrun names the killed
# rank; the stopped one is named by its peers' lines saying what they wait for, and by
# gdrun when it ends the job; the guard says when gdrun itself was killed), and leave
# nothing behind: no process of the job, nothing in its temp dir, no /dev/shm segment of
# the job.
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/launcher/gdrun-lib.sh"
. "${top_srcdir:-.}/tests/soak/soak-lib.sh"
n=16
bound=20
ready=60 # seconds the 16 ranks may take to start and reach the fault

# Start the soak at 16 ranks; EXTRA... are gdrun's options before the program, then the
# soak's own after --.
start_soak() {
    gopts=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do gopts="$gopts $1"; shift; done
    shift
    # shellcheck disable=SC2086
    start_bg "$gdrun" -n "$n" -x GDC_YIELD=always $gopts "$soak" --seconds 600 --tag "$marker" "$@"
    job=$bg
}

# (a) a rank SIGKILLed inside the collectives
for r in 0 $(random_in 1 $((n - 1))) $(random_in 1 $((n - 1))); do
    calls=$(random_in 1 150)
    start_soak -- --kill "$r:$calls"
    ok=1
    ended=-
    if wait_for 1 "^soak: rank $r: sending itself SIGKILL" "$ready" "$work/err"; then
        t1=$(now_ns)
        finish_bg $((bound + 10))
        ended=$(elapsed "$t1")
        [ "$rc" = 137 ] && grep -Eq "^gdrun: rank $r \(pid [0-9]+\) killed by signal 9 \(Killed\)\$" "$work/err" &&
            awk -v s="$ended" -v b="$bound" 'BEGIN { exit !(s < b) }' && all_gone 5 "$(gdrun_shm "$job")" && ok=0
    else
        finish_bg 0
        all_gone 5 "$(gdrun_shm "$job")"
    fi
    verdict "rank $r of $n SIGKILLed after $calls collective calls: status 137, rank $r named, ended ${ended}s after, nothing left" "$ok"
done

# (b) a rank SIGSTOPped, GDC_TIMEOUT=5: its peers time out, gdrun ends the job, names the
# stopped rank and continues it so that it gets SIGTERM. GDC_STALL_WARN=2: the peers that
# wait for the stopped rank itself say so (a warning naming it) before any timeout; the
# first to time out may be one that waits for another waiting rank, and its exit ends the
# job. Small buffers: no rank may spend 5 s outside gdc (checking a large result on a
# loaded machine), which would time its peers out before the stop.
for r in $(random_in 0 $((n - 1))) $(random_in 0 $((n - 1))); do
    calls=$(random_in 1 100)
    start_soak -x GDC_TIMEOUT=5 -x GDC_STALL_WARN=2 -- --max-bytes 16384 --stop "$r:$calls"
    ok=1
    ended=-
    if wait_for 1 "^soak: rank $r: sending itself SIGSTOP" "$ready" "$work/err"; then
        t1=$(now_ns)
        finish_bg $((bound + 10))
        ended=$(elapsed "$t1")
        if [ "$rc" != 3 ]; then
            why="status $rc, not 3"
        elif ! grep -Eq "^gdrun: rank [0-9]+ \(pid [0-9]+\) exited with status 3\$" "$work/err"; then
            why="gdrun names no rank exiting with status 3"
        elif ! grep -Eq "^gdrun: rank $r \(pid [0-9]+\) is stopped; continuing it so that it gets SIGTERM\$" "$work/err"; then
            why="gdrun does not name rank $r as stopped"
        elif ! grep -Eq "waits for (data from rank $r|rank $r's shared-memory signal( [0-9]+)?|rank $r to take its data) for [0-9]+ s" "$work/err"; then
            why="no stall line names rank $r"
        elif ! grep -q "giving up with GDC_ERR_TIMEOUT (GDC_TIMEOUT=5)" "$work/err"; then
            why="no GDC_ERR_TIMEOUT"
        elif ! awk -v s="$ended" -v b="$bound" 'BEGIN { exit !(s >= 4 && s < b) }'; then
            why="ended ${ended}s after the stop, not within 4-$bound s (the timeout is 5 s from the last progress, which may come a little before the stop)"
        elif ! all_gone 5 "$(gdrun_shm "$job")"; then
            why="something was left"
        else
            ok=0
        fi
        if [ "$ok" != 0 ]; then
            {
                grep -E "giving up|^gdrun" "$work/err" | head -n 8
                echo "failed: $why"
            } >>"$work/err"
        fi
    else
        finish_bg 0
        all_gone 5 "$(gdrun_shm "$job")"
    fi
    verdict "rank $r of $n SIGSTOPped after $calls calls, GDC_TIMEOUT=5: peers time out, a stall line and gdrun name rank $r, status 3, ended ${ended}s after, nothing left" "$ok"
done

# (c) gdrun killed: its guard kills the ranks and removes the temp dir and the job's
# segments, whether the ranks were still starting or deep in the collectives.
for when in start collectives; do
    start_soak --
    ok=1
    ended=-
    if [ "$when" = start ]; then
        sleep "0.$(random_in 1 9)"
        got=0
    else
        wait_for 1 "^soak: $n ranks, 600 s, seed" "$ready"
        got=$?
        sleep "$(random_in 1 3).$(random_in 0 9)"
    fi
    if [ "$got" = 0 ]; then
        t1=$(now_ns)
        kill -KILL "$bg"
        finish_bg $((bound + 10))
        all_gone "$bound" "$(gdrun_shm "$job")" && ok=0
        ended=$(elapsed "$t1")
        [ "$ok" = 0 ] && [ "$rc" = 137 ] && awk -v s="$ended" -v b="$bound" 'BEGIN { exit !(s < b) }' || ok=1
        if [ "$when" = collectives ]; then
            grep -Eq "^gdrun: gdrun \(pid $job\) ended without cleaning up; its guard killed $n rank process group" \
                "$work/err" || ok=1
        fi
    else
        finish_bg 0
        all_gone 5 "$(gdrun_shm "$job")"
    fi
    verdict "gdrun SIGKILLed during the ranks' $when: ranks, temp dir and segments gone ${ended}s after" "$ok"
done

start_soak --
ok=1
ended=-
if wait_for 1 "^soak: $n ranks, 600 s, seed" "$ready"; then
    sleep "$(random_in 1 3)"
    t1=$(now_ns)
    kill -TERM "$bg"
    finish_bg $((bound + 10))
    ended=$(elapsed "$t1")
    [ "$rc" = 143 ] && grep -q "^gdrun: received SIGTERM; sending SIG" "$work/err" &&
        awk -v s="$ended" -v b="$bound" 'BEGIN { exit !(s < b) }' && all_gone 5 "$(gdrun_shm "$job")" && ok=0
else
    finish_bg 0
    all_gone 5 "$(gdrun_shm "$job")"
fi
verdict "gdrun SIGTERMed during the collectives: status 143, said so, ended ${ended}s after, nothing left" "$ok"

tap_done
