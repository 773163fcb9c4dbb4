#!/bin/sh
# gdrun at the sizes tests use (1..16 ranks on this machine, oversubscribed on 2 cores) and
# over many jobs: 100 short jobs back to back must each take well under a second and leave
# nothing behind (no process, no file in TMPDIR, /tmp or /dev/shm).
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/launcher/gdrun-lib.sh"

n=1
while [ "$n" -le 16 ]; do
    run 60 "$gdrun" -n "$n" "$probe" hello "$marker"
    [ "$rc" = 0 ] && [ ! -s "$work/err" ] && nothing_left 2
    verdict "gdrun -n $n on $(grep -c ^processor /proc/cpuinfo) cores: init, a token around the ring, finalize (${secs}s)" $?
    n=$((n + 1))
done

# What PMIx or UCX could leave in the shared places despite TMPDIR (gdrun's own temp dir
# is under TMPDIR, this test's own, and counted exactly there). Other tests may run at the
# same time and create such files for a moment: only what stays counts, and of gdrun's own
# places in /dev/shm (gdrun.PID.*) only those of this test's jobs, whose gdrun pids it
# keeps (another test's job may hold its own there for longer: make check runs in parallel).
shared_entries() {
    { ls -A /dev/shm | sed 's|^|/dev/shm/|'; ls -A /tmp | sed 's|^|/tmp/|'; } |
        grep -Ei '^/dev/shm/(ucx|pmix|gdrun|gdc)|^/tmp/.*(pmix|dstor|ucx)' | sort
}
: >"$work/pids"
not_another_jobs() {
    while read -r entry; do
        case $entry in
        /dev/shm/gdrun.*)
            pid=${entry#/dev/shm/gdrun.}
            grep -qx "${pid%%.*}" "$work/pids" && echo "$entry" ;;
        *) echo "$entry" ;;
        esac
    done
}
shared_entries >"$work/shared.before"
jobs=100
failed=0
slowest_ns=0
t_all=$(now_ns)
i=0
while [ "$i" -lt "$jobs" ]; do
    t_job=$(now_ns)
    # shellcheck disable=SC2016
    timeout -k 5 30 sh -c 'echo $$ >>"$1"; shift; exec "$@"' sh "$work/pids" \
        "$gdrun" -n 2 "$probe" hello "$marker" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    t_job=$(($(now_ns) - t_job))
    [ "$t_job" -gt "$slowest_ns" ] && slowest_ns=$t_job
    if [ "$rc" != 0 ] || [ -s "$work/err" ]; then
        failed=$((failed + 1))
        cp "$work/err" "$work/failed.err"
    fi
    i=$((i + 1))
done
total=$(elapsed "$t_all")
mean=$(awk -v t="$total" -v n="$jobs" 'BEGIN { printf "%.3f", t / n }')
slowest=$(awk -v ns="$slowest_ns" 'BEGIN { printf "%.3f", ns / 1e9 }')
echo "# $jobs jobs of 2 ranks: ${total}s in all, ${mean}s each on average, the slowest ${slowest}s"
[ "$failed" = 0 ]
verdict "$jobs back-to-back jobs all exit 0 quietly ($failed failed)" $?
[ "$failed" = 0 ] || sed 's/^/# /' "$work/failed.err"
# About 0.1 s each on an idle 2-core machine; the bound leaves room for a busy one, and
# still catches a job that waits for a timer (a second) before it ends.
awk -v m="$mean" 'BEGIN { exit !(m < 0.8) }'
verdict "each short job takes well under a second (${mean}s on average, slowest ${slowest}s)" $?
nothing_left 2
verdict "after $jobs jobs: no process and no file of theirs left in TMPDIR" $?
shared_entries >"$work/shared.after1"
sleep 2
shared_entries >"$work/shared.after2"
comm -13 "$work/shared.before" "$work/shared.after1" >"$work/shared.new"
left=$(comm -12 "$work/shared.new" "$work/shared.after2" | not_another_jobs | tr '\n' ' ')
echo "new files that stayed in /tmp or /dev/shm: [$left]" >"$work/err"
[ -z "$left" ]
verdict "after $jobs jobs: nothing of PMIx or UCX left in /tmp or /dev/shm" $?

tap_done
