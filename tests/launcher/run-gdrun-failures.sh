#!/bin/sh
# gdrun when something goes wrong: every way a rank can fail, a program that cannot run,
# --timeout, signals to gdrun, gdrun itself killed. Each case checks gdrun's exit status,
# its one-line explanation, and that no process and no temp file is left behind.
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/launcher/gdrun-lib.sh"

# A rank of any number failing decides the status; the others (hanging in gdc) are ended.
for r in 0 1 2 3; do
    job_ends "rank $r of 4 exits with status 1$r: gdrun exits 1$r and names rank $r" "1$r" \
        "^gdrun: rank $r \(pid [0-9]+\) exited with status 1$r\$" 30 \
        "$gdrun" -n 4 "$probe" exit "$r" "1$r" "$marker"
done
job_ends "a rank of a plain program (not gdc) exits 3 while the others sleep: status 3, quickly" 3 \
    "^gdrun: rank 2 \(pid [0-9]+\) exited with status 3\$" 30 \
    "$gdrun" -n 3 sh -c 'if [ "$GDRUN_RANK" = 2 ]; then exit 3; fi; sleep 60' sh "$marker"
verdict "... and the sleeping ranks were ended at once (${secs}s, not 60)" \
    "$(awk -v s="$secs" 'BEGIN { print (s < 10) ? 0 : 1 }')"

job_ends "a rank killed by signal 9: status 137, 'killed by signal 9 (Killed)'" 137 \
    "^gdrun: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\)\$" 30 \
    "$gdrun" -n 3 "$probe" signal 1 9 "$marker"
job_ends "a rank killed by signal 15: status 143, 'killed by signal 15 (Terminated)'" 143 \
    "^gdrun: rank 3 \(pid [0-9]+\) killed by signal 15 \(Terminated\)\$" 30 \
    "$gdrun" -n 4 "$probe" signal 3 15 "$marker"
job_ends "gdc_abort(42) in rank 2: status 42" 42 \
    "^gdrun: rank 2 \(pid [0-9]+\) called gdc_abort with code 42" 30 \
    "$gdrun" -n 4 "$probe" abort 2 42 "$marker"
job_ends "a rank exits 0 without gdc_finalize while others run: status 1" 1 \
    "^gdrun: rank 1 \(pid [0-9]+\) exited without calling gdc_finalize\$" 30 \
    "$gdrun" -n 3 "$probe" nofinalize 1 "$marker"

# Success: status 0 and not a word from gdrun.
run 30 "$gdrun" -n 4 "$probe" hello "$marker"
verdict "every rank exits 0: status 0, nothing on stderr" "$([ "$rc" = 0 ] && [ ! -s "$work/err" ] && nothing_left 2; echo $?)"
run 30 "$gdrun" -n 3 true "$marker"
verdict "a program that never connects to PMIx (true) exits 0: status 0" "$([ "$rc" = 0 ] && [ ! -s "$work/err" ]; echo $?)"
job_ends "false in every rank: status 1" 1 "^gdrun: rank [0-2] \(pid [0-9]+\) exited with status 1\$" 30 \
    "$gdrun" -n 3 false "$marker"

# Programs that cannot be executed: 127 at once, naming the program.
job_ends "a missing program: status 127, named" 127 \
    "^gdrun: cannot execute \./no-such-program-$$: No such file or directory\$" 10 \
    "$gdrun" -n 4 "./no-such-program-$$"
job_ends "a command not in PATH: status 127" 127 "^gdrun: cannot execute no-such-command-$$: command not found" 10 \
    "$gdrun" -n 2 "no-such-command-$$"
printf 'not a program\n' >"$work/not-executable"
job_ends "a file without execute permission: status 127" 127 \
    "^gdrun: cannot execute .*/not-executable: Permission denied\$" 10 "$gdrun" -n 2 "$work/not-executable"
job_ends "a directory: status 127" 127 "^gdrun: cannot execute .*: Is a directory\$" 10 "$gdrun" -n 2 "$work"
printf '\177ELF garbage, not a binary\n' >"$work/garbage"
chmod +x "$work/garbage"
job_ends "an executable file execve rejects: status 127 from the child" 127 \
    "^gdrun: rank 0: cannot execute .*/garbage: Exec format error\$" 10 "$gdrun" -n 4 "$work/garbage"
verdict "... without waiting for anything (${secs}s)" "$(awk -v s="$secs" 'BEGIN { print (s < 5) ? 0 : 1 }')"

# --timeout on ranks hanging in gdc.
job_ends "--timeout 1 on hung ranks: status 124, said so" 124 \
    "^gdrun: the job ran past --timeout 1 s; ending it \(ranks 0-2 still running\)\$" 30 \
    "$gdrun" -n 3 --timeout 1 "$probe" hang "$marker"
verdict "... within a few seconds (${secs}s)" "$(awk -v s="$secs" 'BEGIN { print (s >= 1 && s < 6) ? 0 : 1 }')"

# Ranks that ignore SIGTERM get SIGKILL after the grace period.
stubborn='trap "" TERM INT; echo "ready $GDRUN_RANK"; while :; do sleep 1; done'
job_ends "ranks ignoring SIGTERM are killed after the grace period" 124 \
    "still running 2 s after SIGTERM; killing with SIGKILL" 30 \
    "$gdrun" -n 2 --timeout 0.5 sh -c "$stubborn" sh "$marker"
verdict "... after about 2 s (${secs}s)" "$(awk -v s="$secs" 'BEGIN { print (s >= 2.3 && s < 8) ? 0 : 1 }')"

# A stopped rank (SIGSTOP) when the job ends: named, and continued so that SIGTERM reaches
# it at once rather than SIGKILL after the grace period.
stopper='if [ "$GDRUN_RANK" = 1 ]; then kill -STOP $$; fi; sleep 0.5; if [ "$GDRUN_RANK" = 0 ]; then exit 3; fi; sleep 60'
job_ends "a stopped rank when the job ends: named and continued, status 3" 3 \
    "^gdrun: rank 1 \(pid [0-9]+\) is stopped; continuing it so that it gets SIGTERM\$" 30 \
    "$gdrun" -n 3 sh -c "$stopper" sh "$marker"
verdict "... without waiting for the grace period (${secs}s)" \
    "$(awk -v s="$secs" 'BEGIN { print (s < 2.4) ? 0 : 1 }')"

# Two ranks dead by the time gdrun looks (gdrun stopped meanwhile): rank 1 killed from
# outside, rank 0 exiting 3 in reaction, as gdc's ranks do when a peer dies. gdrun reaps
# them in the order of the forks; it must blame the kill, not the reaction.
zombie() { grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
# shellcheck disable=SC2016
reaction='echo $$ >"$1/pid.$GDRUN_RANK"; echo "ready $GDRUN_RANK"
if [ "$GDRUN_RANK" = 1 ]; then while [ ! -e "$1/go" ]; do sleep 0.05; done; kill -KILL $$; fi
while [ ! -e "$1/pid.1" ]; do sleep 0.05; done; p=$(cat "$1/pid.1")
while ! grep -q "^[0-9]* (.*) Z" /proc/$p/stat 2>/dev/null; do sleep 0.05; done; exit 3'
start_bg "$gdrun" -n 2 sh -c "$reaction" sh "$work" "$marker"
ok=1
if wait_for 2 '^ready [0-9]$' 30; then
    kill -STOP "$bg"
    touch "$work/go"
    i=0
    while ! { zombie "$(cat "$work/pid.0")" && zombie "$(cat "$work/pid.1")"; } && [ "$i" -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -CONT "$bg"
    finish_bg 20
    [ "$rc" = 137 ] && grep -Eq "^gdrun: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\)\$" "$work/err" &&
        ! grep -q "exited with status 3" "$work/err" && nothing_left 2 && ok=0
else
    kill -CONT "$bg"
    finish_bg 0
fi
rm -f "$work/go" "$work"/pid.*
verdict "a rank killed and a peer exiting 3 in reaction, both found dead at once: the killed one named, status 137" "$ok"

# Signals to gdrun: forwarded, then the same clean-up. Under nohup (SIGHUP ignored here,
# so in gdrun too, which keeps it ignored as nohup asks) SIGHUP must change nothing: gdrun
# still runs a second later, and SIGTERM ends it.
hup_ignored=$(( 0x$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status) & 1 ))
for what in INT TERM HUP; do
    sig=$what
    case $sig in INT) status=130 ;; TERM) status=143 ;; HUP) status=129 ;; esac
    start_bg "$gdrun" -n 3 "$probe" hang "$marker"
    ok=1 kept=yes
    if wait_for 3 '^rank [0-9] ready$' 30; then
        if [ "$sig" = HUP ] && [ "$hup_ignored" = 1 ]; then
            kill -HUP "$bg"
            sleep 1
            kill -0 "$bg" 2>/dev/null || kept=no
            sig=TERM status=143 what="HUP (ignored: nohup) then SIGTERM"
        fi
        kill -"$sig" "$bg"
        finish_bg 20
        [ "$kept" = yes ] && [ "$rc" = "$status" ] && grep -q "^gdrun: received SIG$sig; sending SIG" "$work/err" &&
            nothing_left 2 && ok=0
    else
        finish_bg 0
    fi
    verdict "SIG$what to gdrun ends the job: status $status, nothing left" "$ok"
done

# A second Ctrl-C kills at once, without the grace period.
start_bg "$gdrun" -n 2 sh -c "$stubborn" sh "$marker"
ok=1
if wait_for 2 '^ready [0-9]$' 30; then
    t1=$(now_ns)
    kill -INT "$bg"
    sleep 0.3
    kill -INT "$bg"
    finish_bg 20
    after=$(elapsed "$t1")
    [ "$rc" = 130 ] && grep -q "killing every rank now" "$work/err" && nothing_left 2 &&
        awk -v s="$after" 'BEGIN { exit !(s < 1.8) }' && ok=0
else
    finish_bg 0
fi
verdict "a second SIGINT kills the ranks at once (${after:-?}s after the first, grace is 2 s)" "$ok"

# UCX's shared-memory files go in a directory of the job in /dev/shm (UCX_POSIX_DIR), which
# goes with the job: a rank killed while UCX starts cannot leave one in /dev/shm itself. A
# UCX_POSIX_DIR of the caller's stands.
run 30 "$gdrun" -n 2 sh -c 'test -d "$UCX_POSIX_DIR" && echo "$UCX_POSIX_DIR"' sh "$marker"
dir=$(sort -u "$work/out")
[ "$rc" = 0 ] && [ "$(wc -l <"$work/out")" = 2 ] && echo "$dir" | grep -Eq '^/dev/shm/gdrun\.[0-9]+\.[A-Za-z0-9]{6}$' &&
    [ ! -e "$dir" ] && nothing_left 2
verdict "the ranks' UCX_POSIX_DIR is the job's own directory in /dev/shm ($dir), gone after it" $?
UCX_POSIX_DIR=/dev/shm run 30 "$gdrun" -n 1 sh -c 'echo "$UCX_POSIX_DIR"' sh "$marker"
[ "$rc" = 0 ] && [ "$(cat "$work/out")" = /dev/shm ]
verdict "the caller's UCX_POSIX_DIR stands" $?

# gdrun killed with SIGKILL: its ranks die (parent-death signal) and its guard removes the
# temp dir and the job's directory in /dev/shm, within seconds.
start_bg "$gdrun" -n 4 "$probe" hang "$marker"
ok=1
if wait_for 4 '^rank [0-9] ready$' 30; then
    [ -n "$(ls -A "$TMPDIR")" ] || echo "gdrun's temp dir is not under TMPDIR" >>"$work/err"
    shm=$(ls -d /dev/shm/gdrun."$bg".* 2>/dev/null)
    [ -n "$shm" ] || echo "no /dev/shm/gdrun.$bg.* while the job runs" >>"$work/err"
    kill -KILL "$bg"
    finish_bg 10
    [ "$rc" = 137 ] && nothing_left 5 && [ -n "$shm" ] && [ ! -e "$shm" ] && ok=0
else
    finish_bg 0
fi
verdict "SIGKILL to gdrun: ranks, temp dir and /dev/shm directory gone within 5 s" "$ok"

tap_done
