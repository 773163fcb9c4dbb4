#!/bin/sh
# The sanitizer configuration of CI: gdc built with clang -fsanitize=address,undefined
# (UBSan without recovery: any report ends the process with an error) in an out-of-tree
# build, then `make check` of the unit, simulator and kernel tests and of a multi-rank
# subset under gdrun. Exits non-zero when a test fails or any sanitizer report was written,
# whatever the exit status of the process that wrote it (a rank that a test expects to fail
# still fails this run if it reported a memory error, a leak or undefined behaviour).
#
#   tests/sanitize/run.sh [TEST...]     default: the list in $default_tests below
#
# Environment:
#   GDC_SANITIZE_DIR=DIR  build in DIR (created, kept afterwards); default a temporary folder,
#                         removed when everything passed and kept (and named) otherwise
#   GDC_SANITIZE_JOBS=N   make -jN (default 2)
#   CC, GDC_SANITIZE_FLAGS  the compiler (default clang) and the sanitizer flags
#   GDC_TEST_REDUCED      passed to the tests (default 1): the simulator tests (test_algorithms,
#                         test_hier) run a reduced sweep that still covers every algorithm, and
#                         run-coll.sh and run-p2p-gdrun.sh fewer rank counts
#
# The sources: the tree this script is in, configured out of tree when it is not configured
# itself (VPATH builds refuse a configured source tree); otherwise (CI builds in the tree
# first) a copy of its files that git knows and does not ignore (tracked, with their
# uncommitted changes, and untracked ones), regenerated with autogen.sh.
#
# Reports: ASan, LSan and UBSan write to $builddir/sanitize-reports/report.<pid>; they are
# printed at the end. tests/sanitize/lsan.supp suppresses leaks inside third-party libraries
# (PMIx), never gdc's own. Ranks started by gdrun inherit its environment, so the options
# reach them; the executables are linked with -fsanitize, so no sanitizer runtime has to be
# preloaded. gdrun and gdinfo are built and run sanitized like everything else; gdbench-mpi
# is not built (--without-bench-mpi): it measures MPI, not gdc, and its tests are skipped.
set -u
cd "$(dirname "$0")/../.." || exit 1
src=$(pwd)

# Two groups, run one after the other (see "Unwinding" below): programs that test gdc's
# parts inside one process, and what starts gdc through PMIx (a singleton, gdinfo, ranks
# under gdrun).
default_tests="tests/coll/test_algorithms tests/coll/test_hier tests/coll/test_select
tests/unit/test_basics tests/unit/test_cuda tests/unit/test_cuda_abi tests/unit/test_stage
tests/kernels/test_reduce_generic tests/kernels/test_reduce_avx2 tests/kernels/test_half
tests/kernels/test_reduce_cuda tests/topo/test_topo_model tests/topo/test_topo_doctor
tests/launcher/test_gdrun_layout
tests/unit/test_args tests/topo/run-gdinfo-topo.sh tests/launcher/run-p2p-gdrun.sh
tests/coll/run-coll.sh tests/bench/run-gdbench.sh"

CC=${CC:-clang}
flags=${GDC_SANITIZE_FLAGS:--fsanitize=address,undefined -fno-sanitize-recover=all}
jobs=${GDC_SANITIZE_JOBS:-2}
inproc_tests=""
pmix_tests=""
# shellcheck disable=SC2086 # split into words on purpose
[ $# -gt 0 ] || set -- $default_tests
for t in "$@"; do
    case $t in
    *.sh | */test_args) pmix_tests="$pmix_tests $t" ;;
    *) inproc_tests="$inproc_tests $t" ;;
    esac
done

say() { echo "sanitize: $*"; }
die() { echo "sanitize: $*" >&2; exit 1; }
start=$(date +%s)

# The compiler and its sanitizer runtimes (Debian: clang libclang-rt-dev).
probe=$(mktemp -d "${TMPDIR:-/tmp}/gdc-sanitize-probe.XXXXXX") || exit 1
echo 'int main(void) { return 0; }' >"$probe/t.c"
# shellcheck disable=SC2086 # $flags: several flags
if ! $CC $flags "$probe/t.c" -o "$probe/t" >"$probe/log" 2>&1 || ! "$probe/t"; then
    cat "$probe/log" >&2
    rm -rf "$probe"
    die "$CC cannot build with $flags (Debian: apt-get install clang libclang-rt-dev, or contrib/install-deps.sh)"
fi
rm -rf "$probe"
# Reports name functions and lines, and lsan.supp names functions, through llvm-symbolizer.
command -v llvm-symbolizer >/dev/null 2>&1 || [ -n "${ASAN_SYMBOLIZER_PATH:-}" ] ||
    die "llvm-symbolizer not found (Debian: apt-get install llvm, or contrib/install-deps.sh)"

if [ -n "${GDC_SANITIZE_DIR:-}" ]; then
    work=$GDC_SANITIZE_DIR
    keep=yes
    mkdir -p "$work" || exit 1
    work=$(cd "$work" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/gdc-sanitize.XXXXXX") || exit 1
    keep=no
fi
say "building in $work"

# The source tree to configure.
if [ ! -f "$src/config.status" ] && [ -x "$src/configure" ]; then
    srcdir=$src
else
    if ! command -v git >/dev/null 2>&1 || ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        die "$src is configured in place (or has no configure) and is not a git checkout: run this from a clean tree"
    fi
    srcdir=$work/src
    say "copying the sources that git knows to $srcdir"
    rm -rf "$srcdir" && mkdir -p "$srcdir" || exit 1
    # tracked files (as in the working tree) and untracked ones that are not ignored
    if ! git -C "$src" ls-files -z --cached --others --exclude-standard >"$work/files" ||
        ! tar -C "$src" --null --no-recursion --ignore-failed-read -T "$work/files" -cf "$work/src.tar" ||
        ! tar -C "$srcdir" -xf "$work/src.tar"; then
        die "copying the sources failed"
    fi
    rm -f "$work/files" "$work/src.tar"
    (cd "$srcdir" && ./autogen.sh >"$work/autogen.log" 2>&1) || { cat "$work/autogen.log"; die "autogen.sh failed"; }
fi

build=$work/build
mkdir -p "$build" || exit 1
cd "$build" || exit 1
if [ ! -f Makefile ]; then
    say "configure CC=$CC CFLAGS='-O1 -g $flags -fno-omit-frame-pointer'"
    "$srcdir/configure" CC="$CC" CFLAGS="-O1 -g $flags -fno-omit-frame-pointer" \
        LDFLAGS="$flags" --without-bench-mpi >configure.out 2>&1 ||
        { tail -n 40 configure.out; die "configure failed (see $build/config.log)"; }
fi
say "make -j$jobs"
make -j"$jobs" >make.out 2>&1 || { grep -E -B2 -A8 'error|Error' make.out | tail -n 80; die "build failed"; }
say "built in $(($(date +%s) - start)) s"

reports=$build/sanitize-reports
rm -rf "$reports" && mkdir -p "$reports" || exit 1
# halt_on_error with -fno-sanitize-recover: the first report ends the process, exit 1 (a
# status the tests notice; abort() would look like a crash the failure tests expect).
# protect_shadow_gap=0 lets the CUDA driver map memory where ASan would not (GPU machines).
ASAN_OPTIONS="log_path=$reports/report:detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=1:protect_shadow_gap=0:detect_stack_use_after_return=1"
LSAN_OPTIONS="suppressions=$srcdir/tests/sanitize/lsan.supp:print_suppressions=0:exitcode=1"
UBSAN_OPTIONS="log_path=$reports/report:print_stacktrace=1:halt_on_error=1:exitcode=1"
GDC_TEST_REDUCED=${GDC_TEST_REDUCED:-1}
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS GDC_TEST_REDUCED
# hwloc's PCI discovery (gdinfo; ranks on a node with CUDA) runs in a plugin that loads
# libpciaccess, whose cache of device names is held by a static of libpciaccess. hwloc
# unloads the plugin, and libpciaccess with it, when its last topology is destroyed; the
# cache is then unreachable and LeakSanitizer reports it, with frames in an unloaded
# library that no suppression can name (the slow unwinder reaches hwloc's frames, but the
# one function to name there, hwloc_topology_load, would also hide a topology gdc forgot
# to destroy). Preloading libpciaccess keeps it mapped and its cache reachable: nothing
# is suppressed.
if ldconfig -p 2>/dev/null | grep -q 'libpciaccess\.so\.0 '; then
    LD_PRELOAD=libpciaccess.so.0${LD_PRELOAD:+ $LD_PRELOAD}
    export LD_PRELOAD
fi

# Unwinding: LeakSanitizer suppresses PMIx's own leaks by the PMIx functions that allocate
# them (lsan.supp). PMIx is built without frame pointers, so the fast unwinder stops at its
# first frame, and those functions are found only by the slow unwinder on every malloc,
# which makes the allocation-heavy simulator ~5 times slower. The in-process tests, which
# never start PMIx, keep the fast one.
status=0
t0=$(date +%s)
check() { # NAME ASAN-OPTIONS-TO-ADD TESTS: make check of TESTS, its log test-suite-NAME.log
    [ -n "$3" ] || return 0
    say "make check TESTS='$3'"
    t1=$(date +%s)
    ASAN_OPTIONS="$ASAN_OPTIONS$2" make -j"$jobs" check TESTS="$3" TEST_SUITE_LOG="test-suite-$1.log" \
        >"check-$1.out" 2>&1
    st=$?
    say "$1 tests took $(($(date +%s) - t1)) s"
    # what did not pass, then the counts
    grep -E '^(FAIL|ERROR|XPASS|SKIP):' "check-$1.out"
    grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' "check-$1.out"
    if [ "$st" != 0 ]; then
        [ -f "test-suite-$1.log" ] && cat "test-suite-$1.log"
        say "make check failed (status $st)"
        status=$st
    fi
}
check inproc "" "$inproc_tests"
check pmix ":fast_unwind_on_malloc=0" "$pmix_tests"
say "tests took $(($(date +%s) - t0)) s"

found=0
for f in "$reports"/*; do
    [ -f "$f" ] || continue
    found=$((found + 1))
    echo "=== sanitizer report $(basename "$f")"
    cat "$f"
done
if [ "$found" != 0 ]; then
    say "$found sanitizer report(s), above"
    status=1
fi

say "stage took $(($(date +%s) - start)) s"
if [ "$status" = 0 ]; then
    say "passed"
    [ "$keep" = no ] && cd / && rm -rf "$work"
else
    say "FAILED; the build is kept in $build"
fi
exit "$status"
