#!/bin/sh
# Install what gdc needs to build and test on Debian 12 / Ubuntu (as root); does nothing
# when everything is already there. Packages:
#   build:    gcc make autoconf automake libtool pkg-config
#   libraries: libucx-dev libpmix-dev libhwloc-dev libevent-dev libcmocka-dev
#   tests and benchmarks: openmpi-bin libopenmpi-dev (mpirun compatibility tests, gdbench-mpi),
#             mpich libmpich-dev (gdbench-mpich, the MPICH peer of bench/compare.sh; Debian keeps
#             Open MPI as the default mpicc/mpirun: MPICH's alternatives have lower priority)
#   tools:    ucx-utils hwloc (ucx_info, lstopo: what UCX and hwloc see)
#   sanitizers and fuzzing: clang libclang-rt-dev llvm (tests/sanitize/run.sh and
#             tests/fuzz/run.sh: clang with the ASan, UBSan and libFuzzer runtimes,
#             -fsanitize=address,undefined,fuzzer, which Debian's clang only recommends and
#             --no-install-recommends below would skip; llvm-symbolizer)
#   not here: slurmctld slurmd slurm-client munge, for tests/slurm's local Slurm cluster of
#             emulated nodes: daemons a developer's machine may not want enabled, so
#             tests/slurm/local-cluster.sh installs them itself, as root, when it runs
set -eu
packages="gcc make autoconf automake libtool pkg-config libucx-dev libpmix-dev libhwloc-dev \
libevent-dev libcmocka-dev openmpi-bin libopenmpi-dev mpich libmpich-dev ucx-utils hwloc \
clang libclang-rt-dev llvm"

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing; run as root (or: sudo $0)" >&2
    exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
