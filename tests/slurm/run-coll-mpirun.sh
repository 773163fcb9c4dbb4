#!/bin/sh
# The collectives suite (tests/coll/run-coll.sh: every algorithm, on the world and on split
# communicators, nonblocking collectives, a rank that never joins, a rank that dies) with
# Open MPI's mpirun as the PMIx server, on this node: on 1, 2, 3 and 8 ranks (one, a power
# of two, one that is not, and oversubscribed). The algorithms are the same code under any
# launcher, and run-coll.sh runs them on every count from 1 to 8 under gdrun; what this
# adds is the launcher, and CI's 2 cores take 4 minutes for every count under mpirun.
if ! command -v "${MPIRUN:-mpirun}" >/dev/null 2>&1; then
    echo "SKIPPED: no Open MPI mpirun (${MPIRUN:-mpirun}) to launch with"
    echo "1..0 # SKIP no Open MPI mpirun to launch with"
    exit 0
fi
GDC_TEST_LAUNCHER=mpirun COLL_TEST_RANKS="1 2 3 8" exec sh "${top_srcdir:-.}/tests/coll/run-coll.sh"
