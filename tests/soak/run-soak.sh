#!/bin/sh
# The soak (tests/soak/soak.c): random collectives with random datatypes, ops, counts (0 and
# odd ones), roots, in place or not, on random gdc_comm_split / gdc_comm_dup communicators
# made and freed as it goes, several nonblocking ones in flight on different communicators,
# every element, input and guard byte checked. GDC_SOAK_SECONDS (default 10; CI sets 30) at
#  - 4 ranks under gdrun,
#  - 6 ranks over 2 emulated nodes (gdrun --emulate-nodes 2, GDC_YIELD=always).
# A run passes when every rank exits 0, the summary says nothing was wrong, it did some
# work (at least 10 collectives a second and one communicator made), and the job left no
# process, no temp file and no /dev/shm segment behind. First, the soak's checks are shown
# to fail: world rank 1 breaks a result, a guard byte, an input on purpose.
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/launcher/gdrun-lib.sh"
. "${top_srcdir:-.}/tests/soak/soak-lib.sh"
seconds=${GDC_SOAK_SECONDS:-10}
clean="0 wrong elements, 0 guard bytes overwritten, 0 input elements changed, 0 communicators wrong$"

# The checks can fail: each deliberate break ends the run with status 1 and names it.
for what in "result:alltoall element|element [0-9]+ is 0x" "guard:guard byte\(s\) overwritten" \
    "input:input element 0 changed"; do
    start_bg "$gdrun" -n 4 "$soak" --seconds 2 --self-test "${what%%:*}" --tag "$marker"
    job=$bg
    finish_bg 60
    ok=1
    [ "$rc" = 1 ] && grep -Eq "soak: rank 1: WRONG at step [0-9]+: .*(${what#*:})" "$work/err" &&
        ! grep -q "$clean" "$work/out" && all_gone 5 "$(gdrun_shm "$job")" && ok=0
    verdict "--self-test ${what%%:*}: one ${what%%:*} broken on purpose fails the soak (status $rc)" "$ok"
done

soak_case() { # NAME GDRUN-ARGS...
    name=$1
    shift
    start_bg "$gdrun" "$@" "$soak" --seconds "$seconds" --tag "$marker"
    job=$bg
    finish_bg $((seconds + 120))
    calls=$(field "steps: ")
    comms=$(field "nonblocking\) on ")
    took=$(grep -m 1 ' steps: ' "$work/out" | sed -E 's/^soak: [0-9]+ ranks, ([0-9]+).*/\1/')
    ok=1
    [ "$rc" = 0 ] && grep -q "$clean" "$work/out" && [ "$calls" -ge $((seconds * 10)) ] && [ "$comms" -ge 1 ] &&
        [ "${took:-0}" -ge "$seconds" ] && all_gone 5 "$(gdrun_shm "$job")" && ok=0
    grep '^soak: ' "$work/out" | sed 's/^/# /'
    verdict "$name: $calls collectives on $comms communicators in ${secs}s, nothing wrong, nothing left" "$ok"
}
soak_case "soak, 4 ranks, $seconds s" -n 4
soak_case "soak, 6 ranks over 2 emulated nodes, GDC_YIELD=always, $seconds s" -n 6 --emulate-nodes 2 -x GDC_YIELD=always

tap_done
