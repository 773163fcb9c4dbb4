#!/bin/sh
# libFuzzer targets for what users hand gdc as text: build them with clang
# (-fsanitize=fuzzer,address,undefined) and run each for a while over its committed corpus.
#
#   tests/fuzz/run.sh [-t SECONDS] [TARGET...]
#
# Targets (tests/fuzz/fuzz_TARGET.c, seeds in tests/fuzz/corpus/TARGET/):
#   tuning   the tuning file (GDC_TUNING)
#   profile  a machine profile (GDC_PROFILE, gdinfo --profile)
#   env      GDC_* values (input NAME=VALUE: every registered parameter, GDC_LINK_<CLASS>)
#   gdrun    gdrun's command line (input: the arguments, each ended by a NUL byte)
#   calib    a calibration file (GDC_CALIBRATION=FILE, gdinfo --calibrate's cache)
# Default: all of them, 60 s each (-t; CI uses -t 20).
#
# Run it from the top of a configured tree (./configure with any compiler; the normal
# build need not be done): it takes the library's source list from the Makefile and
# config.h from the tree, the dependencies' flags from pkg-config, and builds its own
# objects with clang under tests/fuzz/build/ (again only what changed). Needs clang and
# its fuzzer runtime (Debian 12: apt-get install clang libclang-rt-dev).
#
# Each target first replays its committed corpus, then mutates it. Exit status: 0 when no
# target found anything; 1 when one crashed, leaked, broke a check of its own, tripped a
# sanitizer or hung (its log's tail is printed; the input is saved as
# tests/fuzz/build/artifacts/TARGET-crash-*, and tests/fuzz/build/fuzz_TARGET FILE replays
# it); 2 when the build failed.
#
# New inputs the runs find are kept in tests/fuzz/build/corpus/TARGET (not committed).
# When a bug is fixed, commit the input that found it to tests/fuzz/corpus/TARGET/.
#
# Environment: CLANG (default clang), FUZZ_JOBS (parallel compiles, default nproc),
# FUZZ_PARALLEL (targets run at once, default nproc), FUZZ_FLAGS (more libFuzzer flags,
# e.g. -dict=...).
set -u

seconds=60
while getopts t: flag; do
    case $flag in
    t) seconds=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=${*:-tuning profile env gdrun calib}

top=$(pwd)
fuzz=$top/tests/fuzz
build=$fuzz/build
cc=${CLANG:-clang}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

die() {
    echo "tests/fuzz/run.sh: $*" >&2
    exit 2
}

[ -f "$fuzz/fuzz.h" ] || die "run me from the top of gdc's tree"
{ [ -f config.h ] && [ -f Makefile ]; } || die "configure the tree first (./autogen.sh && ./configure)"
command -v "$cc" >/dev/null || die "no $cc (apt-get install clang libclang-rt-dev)"

deps_cflags=$(pkg-config --cflags ucx pmix hwloc libevent) || die "pkg-config: ucx, pmix, hwloc or libevent missing"
deps_libs=$(pkg-config --libs ucx pmix hwloc libevent) || die "pkg-config: ucx, pmix, hwloc or libevent missing"
# The library's sources as configure left them; the CUDA kernels are replaced by their
# stub (the parsers never reach a GPU, and nvcc objects carry no sanitizer).
# (Only the words that are C files: make may first remake the Makefile, and say so.)
sources=$(make -s --no-print-directory -f Makefile -f "$fuzz/sources.mk" fuzz-print-sources) ||
    die "cannot read the source list from the Makefile"
# shellcheck disable=SC2086 # one word a line
sources=$(printf '%s\n' $sources | grep '\.c$')
case " $sources " in
*" coll/kernels/reduce_cuda_stub.c "*) ;;
*) sources="$sources coll/kernels/reduce_cuda_stub.c" ;;
esac

mkdir -p "$build/artifacts" "$build/corpus" || die "cannot create $build"
# clang without its fuzzer runtime fails only at the first link, after every compile
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
    "$cc" -fsanitize=fuzzer,address,undefined -x c - -o "$build/probe" 2>/dev/null ||
    die "$cc cannot link a fuzzer with the sanitizers (apt-get install clang libclang-rt-dev)"
rm -f "$build/probe"
echo "fuzz: building with $($cc --version | head -n 1)"
make -s --no-print-directory -f "$fuzz/fuzz.mk" -j"$jobs" TOP="$top" BUILD="$build" CC="$cc" \
    SOURCES="$sources" DEPS_CFLAGS="$deps_cflags" DEPS_LIBS="$deps_libs" || die "the build failed"

# A UBSan report with the stack that led to it (it aborts: -fno-sanitize-recover=all).
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS

# One target: the committed corpus is read (second directory), new inputs go to the first.
# -close_fd_mask=3: gdc logs every bad input; the sanitizers' reports still get through.
run_target() {
    name=$1
    log=$build/$name.log
    mkdir -p "$build/corpus/$name"
    # shellcheck disable=SC2086 # FUZZ_FLAGS are split on purpose
    "$build/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
        -artifact_prefix="$build/artifacts/$name-" ${FUZZ_FLAGS:-} \
        "$build/corpus/$name" "$fuzz/corpus/$name" >"$log" 2>&1
    rc=$?
    stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed 's/^\(#[0-9]*\).*\(cov: [0-9]*\).*\(corp: [^ ]*\).*\(exec\/s: [0-9]*\).*/\1 runs, \2, \3, \4/')
    if [ "$rc" = 0 ]; then
        echo "fuzz: $name: ok, ${seconds}s: $stats"
        return 0
    fi
    echo "fuzz: $name: FAILED (status $rc); the end of $log:"
    tail -n 60 "$log"
    return 1
}

# FUZZ_PARALLEL targets at once (default: one a core), each for its own seconds; their
# reports are printed in order once all have ended.
parallel=${FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 2)}
running=0
for t in $targets; do
    [ -x "$build/fuzz_$t" ] || die "no target '$t' (tuning, profile, env, gdrun, calib)"
    rm -f "$build/$t.rc"
    { run_target "$t" >"$build/$t.out" 2>&1; echo $? >"$build/$t.rc"; } &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then
        wait
        running=0
    fi
done
wait
failed=""
for t in $targets; do
    cat "$build/$t.out"
    [ "$(cat "$build/$t.rc" 2>/dev/null)" = 0 ] || failed="$failed $t"
done
if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed"
    exit 1
fi
echo "fuzz: all passed ($targets)"
