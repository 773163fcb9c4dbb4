#!/bin/sh
# Point-to-point under a launcher nobody here wrote: Open MPI's mpirun as the PMIx server,
# on 1, 2, 3 and 8 ranks on this machine (one, a power of two, one that is not, and
# oversubscribed; run-p2p-gdrun.sh runs every count from 1 to 8 under gdrun: the point-to-
# point code is the same, what this adds is the launcher), plus a singleton run with no
# launcher.
. "${top_srcdir:-.}/tests/common/tap.sh"
bin=${top_builddir:-.}/tests/mpi/p2p_test

if [ -z "${MPIRUN:-}" ] || ! command -v "$MPIRUN" >/dev/null 2>&1; then
    tap_skip_all "Open MPI's mpirun not found (apt-get install openmpi-bin)"
fi
mpirun_flags="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && mpirun_flags="$mpirun_flags --allow-run-as-root"

for n in 1 2 3 8; do
    for case in ring allpairs sizes truncate nonblocking comms self progress; do
        # shellcheck disable=SC2086
        tap_run "mpirun -n $n p2p_test $case" 120 "$MPIRUN" $mpirun_flags -n "$n" "$bin" "$case"
    done
done

# No launcher at all: a singleton of size 1 (PMIx variables of an outer job removed).
tap_run "singleton without a launcher" 60 env -i PATH="$PATH" HOME="${HOME:-/}" "$bin" singleton
# A launcher's variables but its PMIx server unreachable (refused): gdc_init fails and says
# so, rather than running alone while the job's other ranks wait for this one.
out=${TMPDIR:-/tmp}/gdc-unreach.$$
env -i PATH="$PATH" HOME="${HOME:-/}" PMIX_NAMESPACE=gdc-unreach PMIX_RANK=0 \
    PMIX_SERVER_URI41="gdc-unreach.0;tcp4://127.0.0.1:1" PMIX_SERVER_URI4="gdc-unreach.0;tcp4://127.0.0.1:1" \
    PMIX_SERVER_URI3="gdc-unreach.0;tcp4://127.0.0.1:1" PMIX_SERVER_URI2="gdc-unreach.0;tcp4://127.0.0.1:1" \
    timeout -k 5 60 "$bin" singleton >"$out" 2>&1
[ $? = 1 ] && grep -q "its PMIx server cannot be reached" "$out" && grep -q "gdc_init(&argc, &argv) returned" "$out"
tap_check "a launcher's rank whose PMIx server cannot be reached fails gdc_init, saying so" $? "$out"
rm -f "$out"
tap_done
