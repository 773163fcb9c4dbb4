#!/bin/sh
# tests/gpu/bundle.sh [DIR]: pack gdc for a GPU machine that has none of Debian's libraries
# (the lent H200 machine: its own glibc, CUDA driver and toolkit, nothing fetchable).
#
# DIR (default: gpu-bundle/ at the top of the tree, ignored by git) gets gdc installed from
# this build tree (bin/, lib/, share/), the test programs device-check.sh runs (tests/), every
# shared library they and UCX's transport modules load that is neither glibc's nor the
# NVIDIA driver's (lib/), UCX's modules (lib/ucx/), PMIx's help files, and env.sh, which
# points a shell at all of it:  . DIR/env.sh && tests/gpu/device-check.sh
# The tree must be configured with CUDA (configure found nvcc) and built. Prints the
# bundle's size; fails when a library cannot be found or the bundle passes 60 MiB.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/gpu-bundle}
case $out in /*) ;; *) out=$PWD/$out ;; esac
stage=$(mktemp -d "${TMPDIR:-/tmp}/gdc-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT

grep -q '^#define GDC_HAVE_CUDA 1' "$top/config.h" || {
    echo "bundle.sh: this tree is built without CUDA (configure found no nvcc): nothing to check on a GPU" >&2
    exit 1
}
make -C "$top" -s install DESTDIR="$stage" >/dev/null 2>&1 || make -C "$top" install DESTDIR="$stage"
rm -rf "$out"
mkdir -p "$out/lib/ucx" "$out/lib/hwloc" "$out/lib/pmix" "$out/tests" "$out/pmix"
cp -a "$stage/usr/local/bin" "$stage/usr/local/share" "$out/"
cp -a "$stage/usr/local/lib/"libgdc.so* "$out/lib/"
rm -f "$out/bin/gdbench-mpi" "$out/bin/gdbench-mpich" # the MPI peers: not on the GPU machine

# The test programs, as real binaries (libtool keeps those linked to libgdc.so in .libs/).
for t in tests/kernels/test_reduce_cuda tests/unit/test_cuda tests/coll/coll_test; do
    if [ -x "$top/$(dirname "$t")/.libs/$(basename "$t")" ]; then
        cp "$top/$(dirname "$t")/.libs/$(basename "$t")" "$out/tests/"
    else
        cp "$top/$t" "$out/tests/"
    fi
done

# The probe of what two processes may share on the GPU machine (tests/gpu/ipc_probe.c),
# built against the toolkit's cuda.h and its libcuda stub; the machine's driver answers.
cuda_include=$(sed -n 's/^CUDA_CFLAGS *= *-I//p' "$top/Makefile" | head -n 1)
cuda_include=${cuda_include:-/usr/local/cuda/include}
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I"$cuda_include" "$top/tests/gpu/ipc_probe.c" \
    -o "$out/tests/ipc_probe" -L"$cuda_include/../lib64/stubs" -lcuda

ucx_modules=$(find /usr/lib/x86_64-linux-gnu/ucx /usr/lib/ucx -maxdepth 1 -name '*.so*' 2>/dev/null || true)
for m in $ucx_modules; do
    cp -a "$m" "$out/lib/ucx/"
done
# hwloc's PCI discovery (how gdc finds the GPUs and NICs on the bus) and PMIx's optional
# components are plugins; the others (OpenCL, GL, libxml2) are not needed.
for m in /usr/lib/x86_64-linux-gnu/hwloc/hwloc_pci.so; do
    [ -f "$m" ] && cp -a "$m" "$out/lib/hwloc/"
done
for m in /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so; do
    [ -f "$m" ] && cp -a "$m" "$out/lib/pmix/"
done
pmix_share=$(find /usr/lib/x86_64-linux-gnu/pmix2/share /usr/share/pmix -maxdepth 0 2>/dev/null | head -n 1)
[ -n "$pmix_share" ] && cp -a "$pmix_share" "$out/pmix/share"

# Every library the binaries and modules load, but the target's own: glibc, the C++ and
# gcc runtimes, and the NVIDIA driver (libcuda, libnvidia-*) come from the GPU machine.
own() {
    case $(basename "$1") in
    ld-linux* | libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | libresolv.so* | \
        libstdc++.so* | libgcc_s.so* | libcuda.so* | libnvidia-*) return 0 ;;
    esac
    return 1
}
missing=0
for f in "$out"/bin/* "$out"/lib/libgdc.so* "$out"/lib/ucx/*.so* "$out"/lib/hwloc/*.so "$out"/lib/pmix/*.so \
    "$out"/tests/*; do
    [ -f "$f" ] || continue
    file -L "$f" | grep -q ELF || continue
    LD_LIBRARY_PATH="$out/lib" ldd "$f" | while read -r name arrow path rest; do
        if [ "$arrow" = "=>" ] && [ "$path" = "not" ] && ! own "$name"; then
            echo "bundle.sh: $f needs $name, which is not found here" >&2
            echo 1 >"$stage/missing"
        elif [ "$arrow" = "=>" ] && [ -f "$path" ] && ! own "$path" && [ ! -e "$out/lib/$(basename "$path")" ]; then
            cp -L "$path" "$out/lib/$(basename "$path")"
        fi
        : "$rest"
    done
done
[ -f "$stage/missing" ] && missing=1

cat >"$out/env.sh" <<'EOF'
# . gpu-bundle/env.sh: gdc from this bundle, whatever the machine has installed
gdc_bundle=$(cd "$(dirname "${BASH_SOURCE:-$0}")" 2>/dev/null && pwd)
[ -f "$gdc_bundle/env.sh" ] || gdc_bundle=${GDC_BUNDLE:?set GDC_BUNDLE to the bundle directory}
export PATH="$gdc_bundle/bin:$PATH"
export LD_LIBRARY_PATH="$gdc_bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export UCX_MODULE_DIR="$gdc_bundle/lib/ucx"
export PMIX_PKGLIBDIR="$gdc_bundle/lib/pmix"
export PMIX_PKGDATADIR="$gdc_bundle/pmix/share/pmix"
export HWLOC_PLUGINS_PATH="$gdc_bundle/lib/hwloc"
export GDC_PROFILE_DIR="$gdc_bundle/share/gdc/profiles"
export GDC_BUNDLE="$gdc_bundle"
EOF

# The newest glibc symbol any of it needs: the GPU machine's glibc must be as new
# (device-check.sh compares).
glibc=$(for f in "$out"/bin/* "$out"/lib/*.so* "$out"/lib/*/*.so* "$out"/tests/*; do
    objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*'
done | sort -t. -k2 -n -u | tail -n 1 | sed 's/GLIBC_//')
echo "${glibc:-2.0}" >"$out/glibc-needed"
size=$(du -sm "$out" | cut -f1)
echo "bundle.sh: $out: $(find "$out" -type f | wc -l) files, $size MiB, needs glibc $glibc or newer"
[ "$missing" = 0 ] || exit 1
[ "$size" -le 60 ] || { echo "bundle.sh: $size MiB is over the 60 MiB a device run may carry" >&2; exit 1; }
