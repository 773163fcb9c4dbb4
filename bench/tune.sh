#!/bin/sh
# bench/tune.sh: measure every algorithm gdc has for a collective on this machine and
# write a tuning file (GDC_TUNING) that pins, per message size, the fastest one measured
# where it beats the cost model's own choice by more than 10% (the rest is noise here).
#
# The cost model chooses from a profile's numbers; where the machine differs from them
# (a VM whose cross-memory-attach copies are faster than the profile says, say), a tuning
# file made here replaces the model's choice with the measured one. Rules hold for the
# rank count they were measured at: make one file per job shape.
#
# usage: bench/tune.sh [-t TESTS] [-n RANKS] [-m [MIN:]MAX] [-R REPS] [-i ITERS] [-o FILE]
#   -t TESTS   collectives, quoted list (default "allreduce bcast allgather alltoall")
#   -n RANKS   ranks of the job to tune for (default 2)
#   -m SIZES   gdbench's sizes (default 4:16M)
#   -R REPS    runs per algorithm; the median decides (default 3)
#   -i ITERS   gdbench iterations per size (default: gdbench's)
#   -o FILE    write the tuning file there (default: standard output)
# environment: BUILDDIR (where gdc was built; default this script's ../)
# Then: GDC_TUNING=FILE gdrun -n RANKS ./app
set -u

usage() {
    sed -n '/^# usage:/,/^# environment:/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

tests="allreduce bcast allgather alltoall" ranks=2 sizes="4:16M" reps=3 iters="" out=""
margin=0.10 # a measured winner must beat the model's choice by this much: the rest is noise
while getopts "t:n:m:R:i:o:h" opt; do
    case $opt in
    t) tests=$OPTARG ;;
    n) ranks=$OPTARG ;;
    m) sizes=$OPTARG ;;
    R) reps=$OPTARG ;;
    i) iters="-i $OPTARG" ;;
    o) out=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $reps in '' | *[!0-9]* | 0) echo "tune.sh: -R needs a positive number" >&2; exit 2 ;; esac
case $ranks in '' | *[!0-9]* | 0 | 1) echo "tune.sh: -n needs at least 2 ranks" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
builddir=${BUILDDIR:-$(dirname "$here")}
gdrun=$builddir/launcher/gdrun
gdinfo=$builddir/launcher/gdinfo
gdbench=$builddir/bench/gdbench
for tool in "$gdrun" "$gdinfo" "$gdbench"; do
    [ -x "$tool" ] || { echo "tune.sh: $tool not found; build first (make) or set BUILDDIR" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gdc-tune.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset GDC_TUNING

# The model's plan for a call of `bytes` on this job shape.
plan() { # test bytes
    "$gdinfo" --plan "$1" --bytes "$2" --ranks "$ranks" 2>/dev/null
}

# The algorithms of a plan (on stdin) that apply to its call.
applicable() {
    awk '!/^#/ && $0 !~ /does not apply/ { print ($1 == "*") ? $2 : $1 }'
}

# "16K" -> 16384
bytes_of() {
    echo "$1" | awk '{ n = $0 + 0; u = substr($0, length($0)); print (u == "K" ? n * 1024 : u == "M" ? n * 1048576 : u == "G" ? n * 1073741824 : n) }'
}
case $sizes in *:*) min_bytes=$(bytes_of "${sizes%%:*}") ;; *) min_bytes=1 ;; esac
max_bytes=$(bytes_of "${sizes##*:}")

# The algorithms of a collective that apply at the smallest or the largest size.
algorithms() { # test
    { plan "$1" "$min_bytes" | applicable; plan "$1" "$max_bytes" | applicable; } | sort -u
}

{
    echo "# gdc tuning file: bench/tune.sh -t \"$tests\" -n $ranks -m $sizes -R $reps${iters:+ $iters}"
    echo "# measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n), $(nproc 2>/dev/null || echo '?') cores;" \
        "medians of gdbench's Avg Latency(us)"
} >"$work/tuning"

for test in $tests; do
    names=$(algorithms "$test")
    [ -n "$names" ] || { echo "tune.sh: gdc has no collective '$test'" >&2; exit 2; }
    : >"$work/$test.rows"
    for rep in $(seq "$reps"); do
        for algo in $names; do
            printf 'tune.sh: %s %s, run %d of %d\n' "$test" "$algo" "$rep" "$reps" >&2
            # shellcheck disable=SC2086 # iters is "-i N" or empty
            if "$gdrun" -n "$ranks" "$gdbench" "$test" -m "$sizes" $iters -a "$algo" >"$work/run" 2>"$work/err"; then
                awk -v a="$algo" '!/^#/ && NF >= 2 { print $1, a, $2 }' "$work/run" >>"$work/$test.rows"
            else
                echo "tune.sh: $test $algo failed: $(tail -n 1 "$work/err")" >&2
            fi
        done
    done
    # per size: the model's choice and the fastest applicable algorithm (median time); the
    # measured one wins when it beats the model's by more than the noise margin
    for bytes in $(awk '{ print $1 }' "$work/$test.rows" | sort -n -u); do
        plan "$test" "$bytes" >"$work/plan"
        chosen=$(awk '$1 == "*" { print $2 }' "$work/plan")
        for algo in $(applicable <"$work/plan"); do
            awk -v b="$bytes" -v a="$algo" '$1 == b && $2 == a { print $3 }' "$work/$test.rows" | sort -g |
                awk -v b="$bytes" -v a="$algo" '{ v[NR] = $1 } END { if (NR) print b, a, v[int((NR + 1) / 2)] }'
        done | sort -k3,3g | awk -v c="$chosen" -v margin="$margin" '
            { a[NR] = $2; t[NR] = $3; if ($2 == c) tc = $3; b = $1 }
            END {
                if (NR == 0) exit
                win = (tc != "" && tc <= t[1] * (1 + margin)) ? c : a[1]
                printf "%s %s %s %s %s\n", b, win, (win == c ? "model" : "measured"), c, (tc != "" ? tc : "-")
                }'
    done >"$work/$test.best"
    # consecutive sizes where the measured winner replaces the model's become one rule
    # reaching up to the next size; elsewhere the model keeps choosing
    awk -v t="$test" '
        function unit(b) { return b == 0 ? 0 : b % 1048576 == 0 ? b / 1048576 "M" : b % 1024 == 0 ? b / 1024 "K" : b }
        { size[NR] = $1; algo[NR] = $2; how[NR] = $3 }
        END {
            for (i = 1; i <= NR; i++) {
                if (how[i] != "measured") continue
                lo = i == 1 ? 0 : size[i]
                while (i < NR && how[i + 1] == "measured" && algo[i + 1] == algo[i]) i++
                hi = i < NR ? unit(size[i + 1] - 1) : unit(size[i]) # nothing pinned past what was measured
                printf "%s %s-%s %s\n", t, unit(lo), hi, algo[i]
            }
        }' "$work/$test.best" >>"$work/tuning"
    awk -v t="$test" '{ printf "# %s %s: %s (%s; the model chose %s: %s us)\n", t, $1, $2, $3, $4, $5 }' \
        "$work/$test.best" >>"$work/tuning"
done

if [ -n "$out" ]; then
    cp "$work/tuning" "$out" && echo "tune.sh: wrote $out; use it with GDC_TUNING=$out" >&2
else
    cat "$work/tuning"
fi
