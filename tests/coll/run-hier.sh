#!/bin/sh
# The hierarchical algorithms across emulated nodes (gdrun --emulate-nodes: each node its
# own PMIx node id and host name, so messages between them leave shared memory for the
# network transport): coll_test quick (every collective on the world, on the world
# interleaved across nodes and on a lopsided split) with every hierarchical algorithm
# forced in turn, small pipeline chunks so that long vectors cut into many chunks and
# segments, on nodes of equal and unequal sizes; the flat defaults across the same nodes;
# every collective with the messages between nodes through the staging pipeline (host
# test); and a forced hierarchical algorithm on one node, which must give way (logged at info).
. "${top_srcdir:-.}/tests/common/tap.sh"
bin=${top_builddir:-.}/tests/coll/coll_test
gdrun=${top_builddir:-.}/launcher/gdrun

[ -x "$gdrun" ] || tap_skip_all "gdrun is not built: --emulate-nodes needs it"

# two sets between them force every hierarchical algorithm
rails="GDC_ALLREDUCE_ALGO=hier_rails GDC_BCAST_ALGO=hier_rails GDC_ALLGATHER_ALGO=hier_rails GDC_ALLTOALL_ALGO=hier GDC_BARRIER_ALGO=hier GDC_CHUNK_SIZE=1K"
leader="GDC_ALLREDUCE_ALGO=hier_leader GDC_BCAST_ALGO=hier GDC_ALLGATHER_ALGO=hier GDC_ALLTOALL_ALGO=hier GDC_BARRIER_ALGO=hier GDC_CHUNK_SIZE=2K"

flags() { # VAR=VALUE... -> -x VAR=VALUE...
    for e in "$@"; do printf ' -x %s' "$e"; done
}

# ranks:nodes, uneven where the nodes do not divide the ranks (the first nodes get one more)
for shape in 4:2 5:2 6:3 7:3 8:4 3:3; do
    n=${shape%:*} k=${shape#*:}
    # shellcheck disable=SC2046,SC2086
    tap_run_forced "gdrun -n $n --emulate-nodes $k: coll_test quick, the rails algorithms" 120 "$rails" \
        "$gdrun" -n "$n" --emulate-nodes "$k" $(flags $rails GDC_LOG=info) -- "$bin" quick
    # shellcheck disable=SC2046,SC2086
    tap_run_forced "gdrun -n $n --emulate-nodes $k: coll_test quick, the leader algorithms" 120 "$leader" \
        "$gdrun" -n "$n" --emulate-nodes "$k" $(flags $leader GDC_LOG=info) -- "$bin" quick
done
for shape in 5:2 7:3 8:4; do
    n=${shape%:*} k=${shape#*:}
    tap_run "gdrun -n $n --emulate-nodes $k: coll_test quick, the model's choices" 120 \
        "$gdrun" -n "$n" --emulate-nodes "$k" -- "$bin" quick
done

# Every collective across emulated nodes with its messages between nodes through the
# staging pipeline of device messages, run on host buffers (GDC_STAGING_HOST_TEST=1).
tap_run_pipelined "GDC_STAGING_HOST_TEST=1 gdrun -n 4 --emulate-nodes 2: coll_test all" 120 \
    "$gdrun" -n 4 --emulate-nodes 2 -x GDC_STAGING_HOST_TEST=1 -x GDC_LOG=info -- "$bin" all

# One node: the forced hierarchical algorithms do not apply; the next cheapest runs, and
# the choice says so.
out=${TMPDIR:-/tmp}/gdc-hier-one-node.$$
# shellcheck disable=SC2046,SC2086
timeout -k 5 120 "$gdrun" -n 4 -x GDC_LOG=info $(flags $rails) -- "$bin" quick >"$out" 2>&1
st=$?
[ "$st" = 0 ] && grep -q 'allreduce(hier_rails) from GDC_\*_ALGO does not support this call (.* 1 node(s)); using the next cheapest' "$out" &&
    grep -q 'barrier(hier) from GDC_\*_ALGO does not support' "$out"
tap_check "one node: forced hier algorithms give way to the next cheapest, logged (exit $st)" $? "$out"
rm -f "$out"
tap_done
