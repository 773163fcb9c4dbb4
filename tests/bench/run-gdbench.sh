#!/bin/sh
# gdbench in make check: options, the OSU-style table, JSON, SVG and validation (-c), with
# small sizes and few iterations. gdbench-mpi runs every test under Open MPI's mpirun;
# gdbench (gdc) runs latency, bw, bibw and every collective with -c under gdrun (Open MPI's
# mpirun when gdrun is not built). A collective gdc reports as not supported (exit status
# 3) fails its case like any other error: gdbench measures gdc's own collectives or none.
# Launcher commands and option lists are split into words on purpose:
# shellcheck disable=SC2086,SC2046
# shellcheck source=tests/common/tap.sh
. "${top_srcdir:-.}/tests/common/tap.sh"

bench=${top_builddir:-.}/bench
check="python3 ${top_srcdir:-.}/tests/bench/check_output.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdbench-test.XXXXXX")
# shellcheck disable=SC2154 # tap_log comes from tap.sh
trap 'rm -rf "$tmp" "$tap_log"' EXIT
out=$tmp/out
err=$tmp/err
log=$tmp/log
limit=60

if ! command -v python3 >/dev/null 2>&1; then
    tap_skip_all "python3 not found (the output checks need it)"
fi

mpirun_flags="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && mpirun_flags="$mpirun_flags --allow-run-as-root"
have_mpirun=no
if [ -n "${MPIRUN:-}" ] && command -v "$MPIRUN" >/dev/null 2>&1; then
    have_mpirun=yes
fi
# The gdc side: gdrun when it is built, Open MPI's mpirun as the PMIx server until then.
if [ -x "${top_builddir:-.}/launcher/gdrun" ]; then
    gdc_launch="${top_builddir:-.}/launcher/gdrun"
elif [ $have_mpirun = yes ]; then
    gdc_launch="$MPIRUN $mpirun_flags"
else
    gdc_launch=""
fi

# "1,2,4,...": the powers of two from $1 to $2.
sizes() {
    s=$1 list=""
    while [ "$s" -le "$2" ]; do
        list="$list${list:+,}$s"
        s=$((s == 0 ? 1 : s * 2))
    done
    echo "$list"
}

# run CMD...: stdout in $out, stderr in $err, status in $rc, everything in $log.
run() {
    timeout -k 5 "$limit" "$@" >"$out" 2>"$err" </dev/null
    rc=$?
    { echo "\$ $*"; echo "exit status $rc"; cat "$out" "$err"; } >"$log"
}

# table_case NAME CHECK-ARGS -- CMD...: exit 0 and the table passes check_output.py.
table_case() {
    name=$1 checkargs=$2
    shift 3
    run "$@"
    if [ "$rc" = 0 ]; then
        $check table "$out" $checkargs >>"$log" 2>&1
        tap_check "$name" $? "$log"
    else
        tap_check "$name" 1 "$log"
    fi
}

# expect_case NAME STATUS PATTERN CMD...: exit STATUS and stdout+stderr match PATTERN.
expect_case() {
    name=$1 want=$2 pattern=$3
    shift 3
    run "$@"
    if [ "$rc" = "$want" ] && cat "$out" "$err" | grep -q -e "$pattern"; then
        tap_check "$name" 0
    else
        echo "expected exit status $want and output matching '$pattern'" >>"$log"
        tap_check "$name" 1 "$log"
    fi
}

fast="-i 3 -x 1"
collectives="allreduce bcast reduce allgather reduce_scatter alltoall alltoallv gather scatter barrier"

# Sizes a collective test sweeps for -m 1:4096 on N ranks with its default datatype.
coll_sizes() { # test ranks
    case $1 in
    allreduce|reduce) sizes 4 4096 ;;
    reduce_scatter) s=4; while [ $s -lt $((4 * $2)) ]; do s=$((s * 2)); done; sizes $s 4096 ;;
    barrier) echo 0 ;;
    *) sizes 1 4096 ;;
    esac
}
coll_m() { [ "$1" = barrier ] || echo "-m 1:4096"; }
root_of() { case $1 in bcast|reduce|gather|scatter) echo "-r $(($2 - 1))" ;; esac; }

# ---------------------------------------------------------------------------------------
# Command line (no launcher needed: options are checked before any library starts)
for prog in gdbench gdbench-mpi; do
    [ -x "$bench/$prog" ] || continue
    expect_case "$prog: no test is a usage error" 2 "usage:" "$bench/$prog"
    expect_case "$prog: unknown test" 2 "unknown test 'nosuch'" "$bench/$prog" nosuch
    expect_case "$prog: unknown option" 2 "unknown option '--bogus'" "$bench/$prog" allreduce --bogus
done
expect_case "gdbench --help lists every test" 0 "bibw" "$bench/gdbench" --help
expect_case "-m with a bad size" 2 "is not \[MIN:\]MAX" "$bench/gdbench" allreduce -m 1:abc
expect_case "-m with MIN above MAX" 2 "minimum size is larger" "$bench/gdbench" allreduce -m 8:4
expect_case "-i 0" 2 "number of iterations" "$bench/gdbench" allreduce -i 0
expect_case "-T unknown" 2 "unknown datatype" "$bench/gdbench" allreduce -T complex
expect_case "-o unknown" 2 "unknown operation" "$bench/gdbench" allreduce -o nand
expect_case "-o band on a float" 2 "needs an integer datatype" "$bench/gdbench" allreduce -T float32 -o band
expect_case "-o on a data-movement test" 2 "not a reduction" "$bench/gdbench" bcast -o sum
expect_case "-r on a test without root" 2 "has no root" "$bench/gdbench" allreduce -r 1
expect_case "-l on bcast" 2 "no in-place form" "$bench/gdbench" bcast -l
expect_case "-a on a point-to-point test" 2 "no algorithm to choose" "$bench/gdbench" latency -a ring
expect_case "-d none of host, cuda, cuda-pool" 2 "none of host, cuda, cuda-pool" "$bench/gdbench" allreduce -d gpu
expect_case "-m on barrier" 2 "moves no data" "$bench/gdbench" barrier -m 8
expect_case "missing option argument" 2 "needs an argument" "$bench/gdbench" allreduce -m
expect_case "--with-barrier on a point-to-point test" 2 "collectives only" "$bench/gdbench" latency --with-barrier
expect_case "--with-barrier with -c" 2 "not with -c" "$bench/gdbench" bcast -c --with-barrier

# ---------------------------------------------------------------------------------------
# gdbench-mpi under Open MPI: every test, validated
if [ ! -x "$bench/gdbench-mpi" ]; then
    tap_skip "gdbench-mpi" "not built (configure found no MPI)"
elif [ $have_mpirun = no ]; then
    tap_skip "gdbench-mpi" "Open MPI's mpirun not found (apt-get install openmpi-bin)"
else
    mpi="$MPIRUN $mpirun_flags"
    # 3 ranks (not a power of two) for every collective, 2 and 4 for a few
    for case in $(echo $collectives | sed 's/\([a-z_]*\)/\1:3/g') allreduce:2 reduce_scatter:2 alltoall:4 bcast:4; do
        t=${case%:*} n=${case#*:}
        table_case "gdbench-mpi $t, $n ranks, -c -f" "--test $t --ranks $n --sizes $(coll_sizes $t $n) --full --validate" -- \
            $mpi -n $n "$bench/gdbench-mpi" $t $(coll_m $t) $fast -c -f $(root_of $t $n)
    done
    for t in latency bw bibw; do
        table_case "gdbench-mpi $t, -c" "--test $t --ranks 2 --sizes $(sizes 1 65536) --validate" -- \
            $mpi -n 2 "$bench/gdbench-mpi" $t -m 1:64K $fast -c
    done
    # every datatype MPI has, every operation, in place, through the reductions
    for T in int8 uint8 int16 uint16 int32 uint32 int64 uint64 float32 float64; do
        table_case "gdbench-mpi allreduce -T $T, 3 ranks, -c" "--test allreduce --ranks 3 --sizes $(sizes 8 1024) --validate" -- \
            $mpi -n 3 "$bench/gdbench-mpi" allreduce -T $T -m 8:1K $fast -c
    done
    for o in sum prod min max avg band bor bxor; do
        table_case "gdbench-mpi reduce_scatter -T int32 -o $o -l, 3 ranks, -c" \
            "--test reduce_scatter --ranks 3 --sizes $(sizes 16 1024) --validate" -- \
            $mpi -n 3 "$bench/gdbench-mpi" reduce_scatter -T int32 -o $o -l -m 1:1K $fast -c
    done
    for o in prod avg; do
        table_case "gdbench-mpi reduce -T float64 -o $o -r 1, 3 ranks, -c" "--test reduce --ranks 3 --sizes $(sizes 8 1024) --validate" -- \
            $mpi -n 3 "$bench/gdbench-mpi" reduce -T float64 -o $o -r 1 -m 1:1K $fast -c
    done
    for t in allreduce allgather alltoall gather scatter; do
        table_case "gdbench-mpi $t -l, 3 ranks, -c" "--test $t --ranks 3 --sizes $(coll_sizes $t 3) --validate" -- \
            $mpi -n 3 "$bench/gdbench-mpi" $t -l -m 1:4096 $fast -c $(root_of $t 3)
    done

    # a wrong element must fail the run, and say where
    expect_case "gdbench-mpi -c catches a wrong element" 1 "validation failed on rank 2: allgather" \
        $mpi -n 3 "$bench/gdbench-mpi" allgather -m 1:64 $fast -c --inject-error
    expect_case "gdbench-mpi -c catches a wrong element (reduce at root 1)" 1 "validation failed on rank 1: reduce" \
        $mpi -n 3 "$bench/gdbench-mpi" reduce -r 1 -m 4:64 $fast -c --inject-error

    # JSON and SVG
    run $mpi -n 2 "$bench/gdbench-mpi" allreduce -m 4:64K $fast -c -f --json "$tmp/run.json" --plot "$tmp/run.svg"
    if [ "$rc" = 0 ]; then
        $check json "$tmp/run.json" --test allreduce --ranks 2 --sizes "$(sizes 4 65536)" --validate >>"$log" 2>&1
        tap_check "gdbench-mpi --json writes well-formed JSON with every row" $? "$log"
        $check svg "$tmp/run.svg" >>"$log" 2>&1
        tap_check "gdbench-mpi --plot writes a well-formed SVG with both panels" $? "$log"
    else
        tap_check "gdbench-mpi --json" 1 "$log"
        tap_check "gdbench-mpi --plot" 1 "$log"
    fi

    # what MPI cannot do, said clearly (exit 3), and jobs that cannot run this test
    expect_case "gdbench-mpi -T float16 is unsupported" 3 "no standard float16 datatype" \
        $mpi -n 2 "$bench/gdbench-mpi" allreduce -T float16 $fast
    expect_case "gdbench-mpi -a is unsupported" 3 "cannot force an algorithm" \
        $mpi -n 2 "$bench/gdbench-mpi" allreduce -a ring $fast
    expect_case "gdbench-mpi latency on 3 ranks" 1 "needs exactly 2 ranks" \
        $mpi -n 3 "$bench/gdbench-mpi" latency $fast
    expect_case "gdbench-mpi -r beyond the job" 2 "the root must be a rank" \
        $mpi -n 2 "$bench/gdbench-mpi" bcast -r 2 $fast
    expect_case "gdbench-mpi: no size holds an element" 2 "no size from 1 to 2" \
        $mpi -n 2 "$bench/gdbench-mpi" allreduce -m 1:2 $fast

    # -d cuda: runs where there is a GPU, says why not where there is none
    if "$bench/gdbench-mpi" --version | grep -q "CUDA buffers: yes"; then
        run $mpi -n 2 "$bench/gdbench-mpi" allreduce -d cuda -m 4:4K $fast -c
        if grep -q "no CUDA device is usable" "$err"; then
            tap_check "gdbench-mpi -d cuda without a GPU fails clearly (exit 1)" $((rc != 1)) "$log"
        elif grep -q "not CUDA-aware" "$err"; then
            tap_check "gdbench-mpi -d cuda with a non-CUDA-aware MPI is unsupported (exit 3)" $((rc != 3)) "$log"
        else
            tap_check "gdbench-mpi -d cuda, -c" "$rc" "$log"
        fi
    else
        expect_case "gdbench-mpi -d cuda in a build without CUDA" 3 "built without CUDA" \
            $mpi -n 2 "$bench/gdbench-mpi" allreduce -d cuda $fast
    fi
fi

# ---------------------------------------------------------------------------------------
# gdbench-mpich under MPICH's mpiexec, when both are here
if [ -x "$bench/gdbench-mpich" ] && [ -n "${MPIEXEC_MPICH:-}" ]; then
    for t in allreduce latency; do
        m="-m 4:4096"
        sz=$(sizes 4 4096)
        table_case "gdbench-mpich $t, 2 ranks, -c" "--test $t --ranks 2 --sizes $sz --validate" -- \
            "$MPIEXEC_MPICH" -n 2 "$bench/gdbench-mpich" $t $m $fast -c
    done
else
    tap_skip "gdbench-mpich" "not built or mpiexec.mpich not found (apt-get install mpich libmpich-dev)"
fi

# ---------------------------------------------------------------------------------------
# gdbench (gdc)
expect_case "gdbench latency alone (a singleton) needs 2 ranks" 1 "needs exactly 2 ranks" \
    env -i PATH="$PATH" HOME="${HOME:-/}" "$bench/gdbench" latency $fast
if [ -z "$gdc_launch" ]; then
    tap_skip "gdbench under a launcher" "neither gdrun nor Open MPI's mpirun found"
else
    for t in latency bw bibw; do
        table_case "gdbench $t, -c -f" "--test $t --ranks 2 --sizes $(sizes 1 65536) --full --validate" -- \
            $gdc_launch -n 2 "$bench/gdbench" $t -m 1:64K $fast -c -f
    done
    expect_case "gdbench -c catches a wrong element (latency)" 1 "validation failed on rank 1: latency" \
        $gdc_launch -n 2 "$bench/gdbench" latency -m 1:64 $fast -c --inject-error
    run $gdc_launch -n 2 "$bench/gdbench" bw -m 1:64K $fast --json "$tmp/gdc.json" --plot "$tmp/gdc.svg"
    if [ "$rc" = 0 ]; then
        $check json "$tmp/gdc.json" --test bw --ranks 2 --sizes "$(sizes 1 65536)" >>"$log" 2>&1 &&
            $check svg "$tmp/gdc.svg" >>"$log" 2>&1
        tap_check "gdbench bw --json --plot" $? "$log"
    else
        tap_check "gdbench bw --json --plot" 1 "$log"
    fi

    # --with-barrier: every row, and the JSON says the barrier was timed with the call
    run $gdc_launch -n 3 "$bench/gdbench" bcast -m 1:4096 $fast --with-barrier --json "$tmp/barrier.json"
    if [ "$rc" = 0 ]; then
        $check json "$tmp/barrier.json" --test bcast --ranks 3 --sizes "$(sizes 1 4096)" >>"$log" 2>&1 &&
            grep -q '"with_barrier": true' "$tmp/barrier.json"
        tap_check "gdbench bcast --with-barrier --json" $? "$log"
    else
        tap_check "gdbench bcast --with-barrier --json" 1 "$log"
    fi

    # The collectives, validated.
    for case in $(echo $collectives | sed 's/\([a-z_]*\)/\1:3/g') allreduce:2 alltoall:4; do
        t=${case%:*} n=${case#*:}
        table_case "gdbench $t, $n ranks, -c -f" "--test $t --ranks $n --sizes $(coll_sizes $t $n) --full --validate" -- \
            $gdc_launch -n $n "$bench/gdbench" $t $(coll_m $t) $fast -c -f $(root_of $t $n)
    done
    for t in allreduce reduce reduce_scatter allgather alltoall gather scatter; do
        table_case "gdbench $t -l, 3 ranks, -c" "--test $t --ranks 3 --sizes $(coll_sizes $t 3) --validate" -- \
            $gdc_launch -n 3 "$bench/gdbench" $t -l -m 1:4096 $fast -c $(root_of $t 3)
    done
    for T in int8 float16 bfloat16; do
        table_case "gdbench allreduce -T $T, 3 ranks, -c" "--test allreduce --ranks 3 --sizes $(sizes 8 1024) --validate" -- \
            $gdc_launch -n 3 "$bench/gdbench" allreduce -T $T -m 8:1K $fast -c
    done
    for o in prod max avg bxor; do
        table_case "gdbench allreduce -T int32 -o $o, 3 ranks, -c" "--test allreduce --ranks 3 --sizes $(sizes 4 1024) --validate" -- \
            $gdc_launch -n 3 "$bench/gdbench" allreduce -T int32 -o $o -m 4:1K $fast -c
    done
    table_case "gdbench reduce_scatter -T bfloat16 -o avg, 3 ranks, -c" \
        "--test reduce_scatter --ranks 3 --sizes $(sizes 8 1024) --validate" -- \
        $gdc_launch -n 3 "$bench/gdbench" reduce_scatter -T bfloat16 -o avg -m 1:1K $fast -c
fi

# bench/tune.sh writes a tuning file gdc accepts, and results stay right under it.
if [ -x "${top_builddir:-.}/launcher/gdrun" ]; then
    tuning=$tmp/gdc.tuning
    BUILDDIR=${top_builddir:-.}
    export BUILDDIR # tune.sh finds gdrun and gdbench there (a VPATH build is not beside it)
    run sh "${top_srcdir:-.}/bench/tune.sh" -t "allreduce bcast" -n 2 -m 4:4K -R 1 -i 5 -o "$tuning"
    if [ "$rc" = 0 ] && grep -q "^# allreduce 4096: " "$tuning" && grep -q "^# bcast 4: " "$tuning"; then
        GDC_TUNING=$tuning GDC_LOG=info run "${top_builddir:-.}/launcher/gdrun" -n 2 "$bench/gdbench" allreduce \
            -m 4:4K $fast -c
        grep -q "tuning file .*rule(s)" "$err" || rc=1
    else
        cat "$tuning" >>"$log" 2>/dev/null
        rc=1
    fi
    tap_check "bench/tune.sh: a tuning file gdc loads, allreduce -c under it" "$rc" "$log"
    run sh "${top_srcdir:-.}/bench/tune.sh" -n 1
    [ "$rc" = 2 ] && grep -q "at least 2 ranks" "$err"
    tap_check "bench/tune.sh -n 1: usage error" $? "$log"
fi
tap_done
