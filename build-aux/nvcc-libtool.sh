#!/bin/sh
# nvcc-libtool.sh NVCC ARGS...: run nvcc where libtool expects a C compiler.
#
# `libtool --mode=compile` adds C-compiler flags of its own (-fPIC -DPIC for the shared
# object) and the flags of the build (CPPFLAGS) may carry gcc options too. nvcc rejects
# the host-compiler ones unless they come as -Xcompiler=FLAG, so this wrapper rewrites:
#   -fPIC, -fpic, -pthread, other -f* and -m*  ->  -Xcompiler=FLAG
#   -Wl,A,B                                    ->  -Xlinker=A,B
#   -W* that nvcc does not know (-Wall, ...)   ->  -Xcompiler=FLAG
# and passes everything else (nvcc's own flags, -I, -D, -O, -g, -c, -o, files) unchanged.
#
# Write host-compiler options in NVCCFLAGS as -Xcompiler=OPT (one word): libtool treats a
# separate "-Xcompiler" word as its own option and drops it.
set -e

if test $# -lt 1; then
    echo "usage: $0 NVCC [ARGS...]" >&2
    exit 2
fi
nvcc=$1
shift

# Rewrite "$@" in place: each argument is shifted off the front and its translation
# appended at the back.
for arg
do
    shift
    case $arg in
    # nvcc's own -f, -m and -W options
    -ftz=* | -fmad=* | -ftemplate-* | -fdevice-* | -frandom-seed* | -forward-unknown-* | \
    -fatbin | -force-cl-env-setup | -m64 | -maxrregcount* | -Werror | -Werror=* | \
    -Wreorder | -Wdefault-stream-launch | -Wmissing-launch-bounds | \
    -Wext-lambda-captures-this | -Wno-deprecated-declarations | -Wno-deprecated-gpu-targets)
        set -- "$@" "$arg" ;;
    -Wl,*)
        set -- "$@" "-Xlinker=${arg#-Wl,}" ;;
    -pthread | -f* | -m* | -W*)
        set -- "$@" "-Xcompiler=$arg" ;;
    *)
        set -- "$@" "$arg" ;;
    esac
done

exec "$nvcc" "$@"
