#!/bin/sh
# The collectives suite (tests/coll/run-coll.sh: every algorithm on 1..8 ranks, on the
# world and on split communicators, nonblocking collectives, a rank that never joins, a
# rank that dies) with Open MPI's mpirun as the PMIx server, on this node.
if ! command -v "${MPIRUN:-mpirun}" >/dev/null 2>&1; then
    echo "SKIPPED: no Open MPI mpirun (${MPIRUN:-mpirun}) to launch with"
    echo "1..0 # SKIP no Open MPI mpirun to launch with"
    exit 0
fi
GDC_TEST_LAUNCHER=mpirun exec sh "${top_srcdir:-.}/tests/coll/run-coll.sh"
