#!/bin/sh
# tests/gpu/device-check.sh [OUTDIR]: gdc on a machine with NVIDIA GPUs, in one run.
#
# Made for the lent GPU machine (one H200, no network, none of Debian's libraries): there,
# from the tree's root, `. gpu-bundle/env.sh && tests/gpu/device-check.sh "$OUT"` with the
# bundle made here by tests/gpu/bundle.sh. Anywhere else gdc's own build works too (PATH
# and LD_LIBRARY_PATH reaching its gdrun, gdbench, gdinfo; the test programs in
# $GDC_BUNDLE/tests or the build tree).
#
# Steps, each with a time limit, each a line PASS/FAIL/SKIPPED in OUTDIR/summary.txt and
# its output in OUTDIR/<step>.log:
#  1. what gdc sees: gdinfo (devices, links, what it would do), and what two processes may
#     share on the GPU (tests/gpu/ipc_probe: CUDA IPC memory and events, VMM memory as a
#     file descriptor, the D2D copy rate; a small copy's cost with 1, 2 and 4 processes on
#     the GPU at once; a call's GPU work made by every process or by one, with and without
#     MPS where the image has nvidia-cuda-mps-control);
#  2. the CUDA driver wrapper's unit test and the reduction kernels for every dtype x op
#     against the host reference (test_cuda, test_reduce_cuda);
#  3. every collective on device buffers with every result checked (gdbench -d cuda -c),
#     2, 4 and 8 ranks sharing the GPUs, 1 B to 64 MiB, default selection;
#  4. every algorithm of every collective forced (gdbench -a), 4 ranks, 1 B to 1 MiB,
#     device buffers, checked, and the choice line saying it ran (but the host shared-
#     memory ones and those that need several nodes);
#  4b. the same with GDC_DEVICE_QUEUE=1 (the ipc algorithms' steps queued, one wait per
#     hand-off): every collective checked at 4 ranks, in place at 3, speed at 2 and 4;
#  4c. GDC_DEVICE_FUSED=1 (the ipc_leader reductions in one kernel): allreduce and
#     reduce_scatter checked at 2, 4 and 8 ranks, in place and other dtypes at 3, speed;
#  4d. buffers from a memory pool (gdbench -d cuda-pool): every collective checked at 4
#     ranks by default and at 2 with the per-rank ipc algorithms forced, in place at 3;
#  4e. the staged path (device buffers over a UCX without CUDA, through host memory):
#     collectives forced onto UCX's algorithms and gdbench bw, checked, each log counting
#     pipelined messages; bw pipelined and whole (GDC_STAGING=whole) at 2 ranks;
#  5. speed: gdbench -d cuda allreduce, bcast, allgather, alltoall from 8 B to 256 MiB at 2
#     and 4 ranks (JSON and text kept).
# Without a CUDA device it prints "SKIPPED: no CUDA device" and exits 77. Exit 1 when a
# step failed, 0 when all passed. Steps that would start after GDC_CHECK_BUDGET seconds
# (default 420: a device loan is 15 minutes, machine start included) are listed as
# SKIPPED (time budget), so one run always ends with its summary. GDC_CHECK_ONLY, an
# extended regular expression, runs only the steps whose names match it.
set -u

out=${1:-${OUT:-./device-check.out}}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
here=$(cd "$(dirname "$0")/../.." && pwd)
tests_dir=${GDC_BUNDLE:+$GDC_BUNDLE/tests}
failed=0
budget=${GDC_CHECK_BUDGET:-420}
started=$(date +%s)

say() { echo "$*" | tee -a "$summary"; }
find_test() { # NAME: the test program, from the bundle or the build tree
    for d in ${tests_dir:-} "$here/tests/unit" "$here/tests/kernels" "$here/tests/coll"; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}
step() { # NAME LIMIT COMMAND...: run, log, one summary line
    name=$1 limit=$2
    shift 2
    t0=$(date +%s)
    if [ -n "${GDC_CHECK_ONLY:-}" ] && ! echo "$name" | grep -Eq "$GDC_CHECK_ONLY"; then
        echo "SKIPPED $name (not in GDC_CHECK_ONLY)" >>"$summary"
        return 0
    fi
    if [ $((t0 - started)) -ge "$budget" ]; then
        say "SKIPPED $name (time budget: ${budget}s spent)"
        return 0
    fi
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    rc=$?
    took=$(($(date +%s) - t0))
    if [ "$rc" = 77 ] || grep -q "^SKIPPED" "$out/$name.log"; then
        say "SKIPPED $name: $(grep -m1 '^SKIPPED' "$out/$name.log")" # never a pass
    elif [ "$rc" = 0 ]; then
        say "PASS $name (${took}s)"
    else
        say "FAIL $name (exit $rc after ${took}s; $out/$name.log)"
        failed=1
    fi
}

say "# device-check $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
if [ -n "${GDC_BUNDLE:-}" ] && [ -f "$GDC_BUNDLE/glibc-needed" ]; then
    need=$(cat "$GDC_BUNDLE/glibc-needed") have=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
    if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -t. -k1,1n -k2,2n | tail -n 1)" != "$have" ]; then
        say "FAIL: the bundle needs glibc $need, this machine has $have: build the bundle on an older system"
        exit 1
    fi
fi
for tool in gdrun gdbench gdinfo; do
    command -v "$tool" >/dev/null || { say "FAIL: $tool is not on PATH (. gpu-bundle/env.sh first)"; exit 1; }
done
command -v nvidia-smi >/dev/null && nvidia-smi -L >>"$summary" 2>&1
step gdinfo 60 gdinfo
if ! grep -Eq "^  driver  CUDA .*, [1-9][0-9]* device" "$out/gdinfo.log"; then
    say "SKIPPED: no CUDA device"
    exit 77
fi

t=$(find_test ipc_probe) && step probe 90 "$t" || say "FAIL probe: ipc_probe not found"
grep "^probe:" "$out/probe.log" >>"$summary" 2>/dev/null
for n in 1 2 4; do # what one GPU operation costs when n processes share the GPU
    t=$(find_test ipc_probe) && step "probe-shared-$n" 60 "$t" --shared "$n"
    grep "^probe:" "$out/probe-shared-$n.log" >>"$summary" 2>/dev/null
done
for n in 2 4; do # a call's GPU work from every rank's context, or from one
    t=$(find_test ipc_probe) && step "probe-calls-$n" 60 "$t" --calls "$n"
    grep "^probe:" "$out/probe-calls-$n.log" >>"$summary" 2>/dev/null
done
# The same and a 2-rank allreduce under MPS, where the image has it (one server context for
# every rank's work: no switch between contexts). Its pipe and log folders are the run's own.
if command -v nvidia-cuda-mps-control >/dev/null && [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ] &&
    { [ -z "${GDC_CHECK_ONLY:-}" ] || echo mps | grep -Eq "$GDC_CHECK_ONLY"; }; then
    CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
    export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
        for n in 2 4; do
            t=$(find_test ipc_probe) && step "mps-probe-calls-$n" 60 "$t" --calls "$n"
            sed 's/^probe:/probe (mps):/' "$out/mps-probe-calls-$n.log" 2>/dev/null | grep "^probe" >>"$summary"
        done
        step mps-speed-allreduce-2 120 gdrun -n 2 -x GDC_LOG=info gdbench allreduce -d cuda -c -m 8:256M -i 20 -x 2 \
            --json "$out/mps-speed-allreduce-2.json"
        echo quit | nvidia-cuda-mps-control
        sleep 1
    else
        say "FAIL mps: nvidia-cuda-mps-control -d did not start"
    fi
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
else
    say "# mps: not run (no nvidia-cuda-mps-control, or not asked for)"
fi
t=$(find_test test_cuda) && step unit-cuda 60 "$t" || say "FAIL unit-cuda: test_cuda not found"
t=$(find_test test_reduce_cuda) && step kernels 120 "$t" || say "FAIL kernels: test_reduce_cuda not found"

colls="allreduce bcast reduce allgather reduce_scatter alltoall alltoallv gather scatter"
for n in 2 4 8; do
    for c in $colls; do
        step "check-$c-$n" 120 gdrun -n "$n" gdbench "$c" -d cuda -c -m 1:64M -i 5 -x 1
    done
done

# in place, at an odd number of ranks; other datatypes and operations
for c in allreduce reduce allgather reduce_scatter gather scatter; do
    step "inplace-$c-3" 120 gdrun -n 3 gdbench "$c" -d cuda -c -l -m 1:64M -i 5 -x 1
done
for t in float16:sum bfloat16:max float64:prod int64:min int32:bxor float32:avg; do
    step "dtype-allreduce-${t%%:*}-${t#*:}-3" 60 gdrun -n 3 gdbench allreduce -d cuda -c -T "${t%%:*}" -o "${t#*:}" -m 1:4M -i 5 -x 1
    step "dtype-reduce_scatter-${t%%:*}-${t#*:}-4" 60 gdrun -n 4 gdbench reduce_scatter -d cuda -c -T "${t%%:*}" -o "${t#*:}" -m 4:4M -i 5 -x 1
done

# GDC_DEVICE_QUEUE=1: the ipc algorithms' steps queued, one wait per hand-off
for c in allreduce bcast reduce allgather reduce_scatter alltoall gather scatter; do
    step "queue-check-$c-4" 120 gdrun -n 4 -x GDC_DEVICE_QUEUE=1 gdbench "$c" -d cuda -c -m 1:64M -i 5 -x 1
done
step "queue-inplace-allreduce-3" 60 gdrun -n 3 -x GDC_DEVICE_QUEUE=1 gdbench allreduce -d cuda -c -l -m 1:16M -i 5 -x 1
for n in 2 4; do
    for c in allreduce allgather; do
        step "queue-speed-$c-$n" 120 gdrun -n "$n" -x GDC_DEVICE_QUEUE=1 gdbench "$c" -d cuda -m 8:256M -i 20 -x 2 \
            --json "$out/queue-speed-$c-$n.json"
    done
done

# GDC_DEVICE_FUSED=1: the ipc_leader reductions in one kernel over every rank's buffers
for n in 2 4 8; do
    for c in allreduce reduce_scatter; do
        step "fused-check-$c-$n" 120 gdrun -n "$n" -x GDC_DEVICE_FUSED=1 gdbench "$c" -d cuda -c -m 1:64M -i 5 -x 1
    done
done
step "fused-inplace-allreduce-3" 60 gdrun -n 3 -x GDC_DEVICE_FUSED=1 gdbench allreduce -d cuda -c -l -m 1:16M -i 5 -x 1
for t in float16:sum bfloat16:max float64:prod int64:min int32:bxor float32:avg; do
    step "fused-dtype-allreduce-${t%%:*}-${t#*:}-3" 60 gdrun -n 3 -x GDC_DEVICE_FUSED=1 gdbench allreduce -d cuda -c \
        -T "${t%%:*}" -o "${t#*:}" -m 1:4M -i 5 -x 1
done
for n in 2 4; do
    step "fused-speed-allreduce-$n" 120 gdrun -n "$n" -x GDC_DEVICE_FUSED=1 gdbench allreduce -d cuda -m 8:256M -i 20 -x 2 \
        --json "$out/fused-speed-allreduce-$n.json"
done

# Buffers from a memory pool (cudaMallocAsync): no legacy CUDA IPC handle, so gdc runs the
# ipc algorithms on copies in its own device memory; default selection and per-rank ipc
for c in allreduce bcast reduce allgather reduce_scatter alltoall gather scatter; do
    step "pool-check-$c-4" 120 gdrun -n 4 gdbench "$c" -d cuda-pool -c -m 1:16M -i 5 -x 1
    step "pool-ipc-$c-2" 120 gdrun -n 2 gdbench "$c" -d cuda-pool -a ipc -c -m 1:16M -i 5 -x 1
done
step "pool-inplace-allreduce-3" 60 gdrun -n 3 gdbench allreduce -d cuda-pool -c -l -m 1:16M -i 5 -x 1
step "pool-inplace-allgather-3" 60 gdrun -n 3 gdbench allgather -d cuda-pool -c -l -m 1:16M -i 5 -x 1

gdinfo --algorithms >"$out/algorithms.txt" 2>&1
while read -r c a rest; do
    case $c in allreduce | bcast | reduce | allgather | reduce_scatter | alltoall | alltoallv | gather | scatter) ;;
    *) continue ;; esac
    case $rest in
    "one node:"* | *"needs several nodes"*) continue ;; # host shared memory; several nodes
    esac
    step "forced-$c-$a" 90 gdrun -n 4 -x GDC_LOG=info gdbench "$c" -d cuda -c -a "$a" -m 1:1M -i 5 -x 1
    if [ -f "$out/forced-$c-$a.log" ] && ! grep -q "$c of .*: $a\b" "$out/forced-$c-$a.log" &&
        grep -q "^PASS forced-$c-$a " "$summary"; then
        say "FAIL forced-$c-$a: passed, but no choice line says $a ran"
        failed=1
    fi
done <"$out/algorithms.txt"

# The staged path: device buffers over UCX through host memory (the bundle's UCX has no
# CUDA transport). Collectives forced onto UCX's algorithms and gdbench bw, checked, each
# log saying that messages went through the staging pipeline; then bw at 2 ranks pipelined
# and whole, next to the probe's d2h and h2d (the floor: one copy each way).
staged_step() { # NAME LIMIT COMMAND...: a step whose log must count pipelined messages
    step "$@"
    if [ -f "$out/$1.log" ] && grep -q "^PASS $1 " "$summary" &&
        ! grep -Eq 'info: staging: [1-9][0-9]* messages pipelined in [0-9]+ chunks, [1-9][0-9]* bytes through the bounce' \
            "$out/$1.log"; then
        say "FAIL $1: passed, but no rank says a message went through the staging pipeline"
        failed=1
    fi
}
for c_a in allreduce:ring bcast:chain allgather:ring reduce_scatter:ring alltoall:pairwise; do
    staged_step "staged-check-${c_a%%:*}-4" 120 gdrun -n 4 -x GDC_LOG=info gdbench "${c_a%%:*}" -d cuda -c \
        -a "${c_a#*:}" -m 1:64M -i 3 -x 1
done
staged_step staged-check-bw-2 60 gdrun -n 2 -x GDC_LOG=info gdbench bw -d cuda -c -m 1:64M -i 3 -x 1
step staged-speed-bw-2 90 gdrun -n 2 -x GDC_LOG=info gdbench bw -d cuda -m 64K:64M -i 10 -x 2
step staged-whole-bw-2 90 gdrun -n 2 -x GDC_STAGING=whole gdbench bw -d cuda -m 64K:64M -i 10 -x 2

for n in 2 4; do
    for c in allreduce bcast allgather alltoall; do
        step "speed-$c-$n" 120 gdrun -n "$n" -x GDC_LOG=info gdbench "$c" -d cuda -m 8:256M -i 20 -x 2 --json "$out/speed-$c-$n.json"
    done
done

say "# $(grep -c '^PASS' "$summary") passed, $(grep -c '^FAIL' "$summary") failed, $(grep -c '^SKIPPED' "$summary") skipped"
exit "$failed"
