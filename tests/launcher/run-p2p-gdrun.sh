#!/bin/sh
# Point-to-point under gdrun: the cases of tests/mpi/run-p2p-mpirun.sh (same p2p_test),
# 1..8 ranks on this machine (oversubscribed), then across emulated nodes, where gdc
# takes the inter-node path between ranks of different nodes.
# (tests/mpi/run-p2p-mpirun.sh stays: gdc must keep working under Open MPI's mpirun.)
. "${top_srcdir:-.}/tests/common/tap.sh"
gdrun=${top_builddir:-.}/launcher/gdrun
bin=${top_builddir:-.}/tests/mpi/p2p_test

# The sanitizers' run (GDC_TEST_REDUCED) leaves out 4, 6 and 7 ranks: CI's time on 2 cores.
ranks="1 2 3 4 5 6 7 8"
[ "${GDC_TEST_REDUCED:-0}" != 0 ] && ranks="1 2 3 5 8"
for n in $ranks; do
    for case in ring allpairs sizes truncate nonblocking large comms self progress; do
        tap_run "gdrun -n $n p2p_test $case" 120 "$gdrun" -n "$n" "$bin" "$case"
    done
done
# Between emulated nodes UCX goes over TCP, much slower here than shared memory (the
# comms case takes ~10 s on 2 busy cores): the quick cases on three layouts, sizes on one.
for layout in "4 2 ring allpairs nonblocking sizes progress" "5 3 ring allpairs nonblocking" "8 4 ring allpairs nonblocking"; do
    set -- $layout
    n=$1 nodes=$2
    shift 2
    for case in "$@"; do
        tap_run "gdrun -n $n --emulate-nodes $nodes p2p_test $case" 120 "$gdrun" -n "$n" --emulate-nodes "$nodes" "$bin" "$case"
    done
done

# Host messages of GDC_MSG_CMA bytes and more between ranks of a node are read by the
# receiver by cross-memory attach (runtime/rt_msg.c): the ranks' closing count says that
# they were; with GDC_MSG_CMA=0 none is, and the same cases pass through UCX alone.
for case in large sizes; do
    tap_run "GDC_LOG=info gdrun -n 3 p2p_test $case" 120 "$gdrun" -x GDC_LOG=info -n 3 "$bin" "$case"
    grep -Eq 'info: messages read by cross-memory attach: [1-9][0-9]*, [1-9][0-9]* bytes' "$tap_log"
    tap_check "$case: messages read by cross-memory attach, counted" $? "$tap_log"
done
tap_run "GDC_MSG_CMA=0 gdrun -n 3 p2p_test large" 120 "$gdrun" -x GDC_LOG=info -x GDC_MSG_CMA=0 -n 3 "$bin" large
! grep -q 'read by cross-memory attach' "$tap_log"
tap_check "GDC_MSG_CMA=0: no message read by cross-memory attach" $? "$tap_log"
# a send to a rank that never receives ends with GDC_ERR_TIMEOUT naming it, told (waiting
# for the answer) or sent through UCX
for setting in 16K 0; do
    tap_run "GDC_TIMEOUT=2 GDC_MSG_CMA=$setting gdrun -n 3 p2p_test timeout" 60 \
        "$gdrun" -x GDC_TIMEOUT=2 -x GDC_MSG_CMA=$setting -n 3 "$bin" timeout
    [ "$(grep -c 'send timed out as expected' "$tap_log")" = 2 ] &&
        grep -q 'waits for rank 2 to receive it for 2 s: giving up with GDC_ERR_TIMEOUT' "$tap_log"
    tap_check "GDC_MSG_CMA=$setting: both sends to the absent rank 2 time out, naming it" $? "$tap_log"
done
# more told sends in flight than a rank has words for tales (256): those past them go through
# UCX, and all 300 arrive in order (each rank reads exactly 256)
for n in 2 3; do
    tap_run "GDC_LOG=info gdrun -n $n p2p_test inflight" 120 "$gdrun" -x GDC_LOG=info -n "$n" "$bin" inflight
    [ "$(grep -c 'info: messages read by cross-memory attach: 256, 4194304 bytes$' "$tap_log")" = "$n" ]
    tap_check "$n ranks: 256 of 300 sends in flight told, the rest through UCX" $? "$tap_log"
done
# a told send that timed out withdraws its tale: the late receive fails, saying so, with the
# send's reason (GDC_ERR_TIMEOUT), and does not deliver the buffer the sender has had back since
tap_run "GDC_TIMEOUT=3 gdrun -n 2 p2p_test withdrawn" 60 "$gdrun" -x GDC_TIMEOUT=3 -n 2 "$bin" withdrawn
grep -q 'rank 0 withdrew a message of 65536 bytes before this rank read it (its send ended first: timed out without progress)' "$tap_log" &&
    grep -q 'send timed out as expected' "$tap_log" && grep -q 'withdrawn message was refused as expected' "$tap_log"
tap_check "a timed-out told send's late receive fails with GDC_ERR_TIMEOUT, naming the withdrawal" $? "$tap_log"
# a threshold of 1K: messages from 1 KiB on are told, on 2 and 5 ranks
for n in 2 5; do
    for case in sizes allpairs truncate progress; do
        tap_run "GDC_MSG_CMA=1K gdrun -n $n p2p_test $case" 120 "$gdrun" -x GDC_MSG_CMA=1K -n "$n" "$bin" "$case"
    done
done

# The staging pipeline of device messages (runtime/rt_stage.c), run on host buffers with
# host copies in the device's place (GDC_STAGING_HOST_TEST=1): every byte through the bounce
# buffers and UCX's generic datatype, on shared memory and between emulated nodes (TCP).
staged="-x GDC_STAGING_HOST_TEST=1 -x GDC_LOG=info"
for n in 2 3; do
    for case in sizes large; do
        # shellcheck disable=SC2086
        tap_run_pipelined "GDC_STAGING_HOST_TEST=1 gdrun -n $n p2p_test $case" 120 "$gdrun" $staged -n "$n" "$bin" "$case"
    done
    # a staged message too long for its receive: truncated, no byte moved (none is counted)
    # shellcheck disable=SC2086
    tap_run "GDC_STAGING_HOST_TEST=1 gdrun -n $n p2p_test truncate" 120 "$gdrun" $staged -n "$n" "$bin" truncate
done
# shellcheck disable=SC2086
tap_run_pipelined "GDC_STAGING_HOST_TEST=1 gdrun -n 4 --emulate-nodes 2 p2p_test large" 120 \
    "$gdrun" $staged -n 4 --emulate-nodes 2 "$bin" large
# a pool of one pinned buffer: the messages in flight outgrow it and take memory of their own
# shellcheck disable=SC2086
tap_run_pipelined "GDC_STAGING_HOST_TEST=1 GDC_STAGING_BUFFERS=1 gdrun -n 3 p2p_test large" 120 \
    "$gdrun" $staged -x GDC_STAGING_BUFFERS=1 -n 3 "$bin" large
grep -Eq 'info: staging: .*; [1-9][0-9]* slots in unpinned memory past the pool' "$tap_log"
tap_check "GDC_STAGING_BUFFERS=1: slots past the pool counted" $? "$tap_log"
tap_done
