#!/bin/sh
# bench/compare.sh: gdc against its peers, side by side, with the same benchmark.
#
# Runs gdbench (gdc) and gdbench-mpi / gdbench-mpich (the same harness over MPI) for each
# test, rank count and size, R times each, interleaved so that a noisy moment hits every
# side alike; prints Markdown for bench/RESULTS.md: the machine's memory-bandwidth floor
# (bench/membw; with allreduce, what the cores can do for one of 16 MiB on each rank
# count up to 16, membw --allreduce), the exact commands, and per test and rank count a
# table of median latencies with gdc/best-peer ratios (below 1: gdc is faster).
#
# usage: bench/compare.sh [-t TESTS] [-n RANKS] [-m [MIN:]MAX] [-R REPS] [-i ITERS]
#                         [-x WARMUP] [-p PEERS] [-T DTYPE] [-o OP] [-k] [-- GDBENCH-ARGS]
#   -t TESTS   gdbench tests, quoted list (default "allreduce")
#   -n RANKS   rank counts, quoted list (default "2")
#   -m SIZES   passed to gdbench (default 4:4M)
#   -R REPS    repetitions of every run; the table shows medians (default 3)
#   -i, -x, -T, -o   passed to gdbench (default: gdbench's, which are OSU's)
#   -p PEERS   any of: ob1 ucx mpich (default: all that are installed)
#   -k         keep the raw outputs (their directory is printed)
# environment:
#   BUILDDIR       where gdbench was built (default: this script's ../)
#   GDRUN          launcher of the gdc side (default: BUILDDIR/launcher/gdrun when it is
#                  built, else Open MPI's mpirun acting as the PMIx server)
#   MPIRUN         Open MPI's mpirun (default: mpirun.openmpi, mpirun)
#   MPIEXEC_MPICH  MPICH's launcher (default: mpiexec.mpich)
set -u

usage() {
    sed -n '/^# usage:/,/^#   MPIEXEC_MPICH/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

invocation="bench/compare.sh $*"
tests="allreduce" ranks="2" sizes="4:4M" reps=3 peers="" keep=no
passthrough=""
while getopts "t:n:m:R:i:x:p:T:o:kh" opt; do
    case $opt in
    t) tests=$OPTARG ;;
    n) ranks=$OPTARG ;;
    m) sizes=$OPTARG ;;
    R) reps=$OPTARG ;;
    i | x | T | o) passthrough="$passthrough -$opt $OPTARG" ;;
    p) peers=$OPTARG ;;
    k) keep=yes ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
passthrough="$passthrough $*"
# shellcheck disable=SC2086,SC2116 # one space between words, none at the ends
passthrough=$(echo $passthrough)
case $reps in '' | *[!0-9]* | 0) echo "compare.sh: -R needs a positive number" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
builddir=${BUILDDIR:-$(dirname "$here")}
gdbench=$builddir/bench/gdbench
gdbench_mpi=$builddir/bench/gdbench-mpi
gdbench_mpich=$builddir/bench/gdbench-mpich
membw=$builddir/bench/membw
[ -x "$gdbench" ] || { echo "compare.sh: $gdbench not found; build first (make) or set BUILDDIR" >&2; exit 2; }

mpirun=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
mpiexec_mpich=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich || true)}
cores=$(nproc 2>/dev/null || echo 1)
root_flag=""
[ "$(id -u)" = 0 ] && root_flag="--allow-run-as-root"

# Open MPI's placement: one core per rank when there are enough, else oversubscribed.
ompi_flags() { # ranks
    if [ "$1" -le "$cores" ]; then
        echo "$root_flag --bind-to core"
    else
        echo "$root_flag --oversubscribe --bind-to none"
    fi
}
mpich_flags() { # ranks
    [ "$1" -le "$cores" ] && echo "-bind-to core"
}

if [ -z "$peers" ]; then
    [ -x "$gdbench_mpi" ] && [ -n "$mpirun" ] && peers="ob1 ucx"
    [ -x "$gdbench_mpich" ] && [ -n "$mpiexec_mpich" ] && peers="$peers mpich"
fi

# The command line of one side for a test on n ranks.
side_command() { # side test n
    args="$2"
    [ "$2" = barrier ] || args="$args -m $sizes" # barrier has no sizes
    args="$args${passthrough:+ $passthrough}"
    case $1 in
    gdc)
        if [ -n "${GDRUN:-}" ]; then
            echo "$GDRUN -n $3 $gdbench $args"
        elif [ -x "$builddir/launcher/gdrun" ]; then
            echo "$builddir/launcher/gdrun -n $3 $gdbench $args"
        else
            echo "$mpirun $(ompi_flags "$3") -n $3 $gdbench $args"
        fi
        ;;
    ob1) echo "$mpirun $(ompi_flags "$3") --mca pml ob1 -n $3 $gdbench_mpi $args" ;;
    ucx)
        echo "$mpirun $(ompi_flags "$3") --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any" \
            "-n $3 $gdbench_mpi $args"
        ;;
    mpich) echo "$mpiexec_mpich $(mpich_flags "$3") -n $3 $gdbench_mpich $args" ;;
    *) echo "compare.sh: unknown peer '$1' (ob1, ucx, mpich)" >&2; exit 2 ;;
    esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/gdbench-compare.XXXXXX")
[ $keep = no ] && trap 'rm -rf "$work"' EXIT

# "size time busbw" per row of a gdbench table (time: the Avg Latency column, which for
# bw and bibw is the time per message of the window).
rows_of() { # test file
    case $1 in bw | bibw) col=3 ;; *) col=2 ;; esac
    awk -v col=$col '!/^#/ && NF >= 3 { print $1, $col, $NF }' "$2"
}

# Median of the values on stdin ("-" when there are none).
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---------------------------------------------------------------------------------------
echo "## gdbench comparison: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $cores cores"
echo
echo "Run: \`$invocation\`"
echo
if [ -x "$membw" ]; then
    "$membw" >"$work/membw" 2>&1
    field() { awk -v k="$1" '$1 == k { print $2 }' "$work/membw"; }
    echo "Memory-bandwidth floor (bench/membw, 64 MiB): one core: memcpy $(field memcpy_gbps) GB/s," \
        "float y += x $(field float_sum_gbps) GB/s of input; all $(field cores) cores at once: memcpy" \
        "$(field memcpy_all_gbps) GB/s, float y += x $(field float_sum_all_gbps) GB/s."
    echo
    # what the cores can do for a 16 MiB allreduce in each way (up to 16 ranks: 32 MiB each)
    case " $tests " in *" allreduce "*)
        for n in $ranks; do
            if [ "$n" -gt 16 ] || ! "$membw" --allreduce "$n" >"$work/membw.$n" 2>&1; then
                continue
            fi
            way() {
                awk -v w="$1" -v s="$2" '$1 == "allreduce_floor" && $2 == w && $3 == s { print $7 }' \
                    "$work/membw.$n"
            }
            echo "allreduce floor, $n ranks (bench/membw --allreduce $n, 16 MiB, busbw GB/s; outputs" \
                "through the cache, around it): one address space $(way direct cached)," \
                "$(way direct streamed); through shared memory $(way shared cached)," \
                "$(way shared streamed); as a chain $(way chain cached), $(way chain streamed); by" \
                "cross-memory attach $(way cma cached)."
            echo
        done
        ;;
    esac
fi
echo "Median of $reps runs each, interleaved; time is gdbench's Avg Latency(us) (for bw and"
echo "bibw, per message); gdc/best < 1 means gdc is faster than the best peer at that size."
echo

for test in $tests; do
    for n in $ranks; do
        echo "### $test, $n ranks"
        echo
        echo "Commands:"
        echo
        for side in gdc $peers; do
            echo "    $(side_command "$side" "$test" "$n")"
        done
        echo
        : >"$work/all"
        for rep in $(seq 1 "$reps"); do
            for side in gdc $peers; do
                f="$work/$test.$n.$side.$rep"
                # shellcheck disable=SC2046
                timeout 1800 $(side_command "$side" "$test" "$n") >"$f.out" 2>"$f.err" </dev/null
                echo $? >"$f.rc"
                rows_of "$test" "$f.out" | sed "s/^/$side /" >>"$work/all"
            done
        done
        header="| Size | gdc (us)"
        rule="| ---: | ---:"
        for side in $peers; do
            header="$header | $side (us)"
            rule="$rule | ---:"
        done
        echo "$header | best peer | gdc/best | gdc busbw (GB/s) |"
        echo "$rule | --- | ---: | ---: |"
        awk '{ print $2 }' "$work/all" | sort -n -u >"$work/sizes"
        while read -r size; do
            gdc_t=$(awk -v s="$size" '$1 == "gdc" && $2 == s { print $3 }' "$work/all" | median)
            gdc_bus=$(awk -v s="$size" '$1 == "gdc" && $2 == s { print $4 }' "$work/all" | median)
            line="| $size | $gdc_t"
            best="-" best_t=""
            for side in $peers; do
                t=$(awk -v side="$side" -v s="$size" '$1 == side && $2 == s { print $3 }' "$work/all" | median)
                line="$line | $t"
                if [ "$t" != "-" ] && { [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; }; then
                    best=$side best_t=$t
                fi
            done
            ratio="-"
            if [ "$gdc_t" != "-" ] && [ -n "$best_t" ]; then
                ratio=$(awk -v a="$gdc_t" -v b="$best_t" 'BEGIN { printf "%.2f", a / b }')
            fi
            echo "$line | $best | $ratio | $gdc_bus |"
        done <"$work/sizes"
        # say why a side has no numbers
        for side in gdc $peers; do
            f="$work/$test.$n.$side.1"
            if [ "$(cat "$f.rc")" != 0 ]; then
                echo
                echo "$side failed (exit status $(cat "$f.rc")): $(grep -E '^gdbench[a-z-]*: ' "$f.err" | tail -n 1)"
            fi
        done
        echo
    done
done
[ $keep = yes ] && echo "Raw outputs: $work" >&2
exit 0
