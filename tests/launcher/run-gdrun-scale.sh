#!/bin/sh
# gdrun at the sizes tests use (1..16 ranks on this machine, oversubscribed on 2 cores) and
# over many jobs: 200 short jobs back to back must each take well under a second and leave
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

# What PMIx, UCX or gdrun could leave in the shared places (everything else under
# TMPDIR is counted exactly, since TMPDIR is this test's own).
shared_entries() {
    ls -A /dev/shm | sed 's|^|/dev/shm/|'
    ls -A /tmp | grep -Ei 'pmix|gdrun|dstor|ucx|gdc' | sed 's|^|/tmp/|'
}
shared_entries | sort >"$work/shared.before"
jobs=200
failed=0
slowest_ns=0
t_all=$(now_ns)
i=0
while [ "$i" -lt "$jobs" ]; do
    t_job=$(now_ns)
    timeout -k 5 30 "$gdrun" -n 2 "$probe" hello "$marker" >"$work/out" 2>"$work/err" </dev/null
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
awk -v m="$mean" 'BEGIN { exit !(m < 0.5) }'
verdict "each short job takes well under a second (${mean}s on average, slowest ${slowest}s)" $?
nothing_left 2
verdict "after $jobs jobs: no process and no file of theirs left in TMPDIR" $?
# Files others create and remove meanwhile may come and go: only what stays counts.
sleep 1
shared_entries | sort >"$work/shared.after"
left=$(comm -13 "$work/shared.before" "$work/shared.after" | grep -Ei 'pmix|gdrun|dstor|ucx|gdc' | tr '\n' ' ')
others=$(comm -13 "$work/shared.before" "$work/shared.after" | grep -Eiv 'pmix|gdrun|dstor|ucx|gdc' | tr '\n' ' ')
[ -n "$others" ] && echo "# new in /dev/shm meanwhile, not from PMIx, UCX or gdrun (other users?): $others"
echo "files left in /tmp or /dev/shm: [$left]" >"$work/err"
[ -z "$left" ]
verdict "after $jobs jobs: nothing of PMIx, UCX or gdrun left in /tmp or /dev/shm" $?

tap_done
