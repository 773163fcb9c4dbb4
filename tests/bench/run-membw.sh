#!/bin/sh
# bench/membw --allreduce in make check: every way runs, checks its own results (a wrong sum
# in any output makes it exit 1) and prints its line; bad arguments get the usage's exit 2.
# Times are not checked: they are measurements, for bench/RESULTS.md.
# shellcheck source=tests/common/tap.sh
. "${top_srcdir:-.}/tests/common/tap.sh"

membw=${top_builddir:-.}/bench/membw
tmp=$(mktemp -d "${TMPDIR:-/tmp}/membw-test.XXXXXX")
# shellcheck disable=SC2154 # tap_log comes from tap.sh
trap 'rm -rf "$tmp" "$tap_log"' EXIT

[ -x "$membw" ] || tap_skip_all "bench/membw not built"

for ranks in 2 3; do
    timeout -k 5 120 "$membw" --allreduce $ranks >"$tmp/out" 2>&1 </dev/null
    tap_check "membw --allreduce $ranks: exits 0 (every output checked)" $? "$tmp/out"
    # direct, shared and chain with both stores, cma with ordinary ones: 7 lines of
    # "allreduce_floor WAY STORES RANKS BYTES us busbw", positive figures
    awk -v n=$ranks '$1 == "allreduce_floor" {
            seen[$2 " " $3]++
            if ($4 != n || $5 != 16777216 || $6 <= 0 || $7 <= 0) bad = 1
        }
        END {
            split("direct shared chain", w, " ")
            for (i in w) if (seen[w[i] " cached"] != 1 || seen[w[i] " streamed"] != 1) bad = 1
            if (seen["cma cached"] != 1 || length(seen) != 7) bad = 1
            exit bad
        }' "$tmp/out"
    tap_check "membw --allreduce $ranks: a line for each way and store, positive figures" $? "$tmp/out"
done
for args in "--allreduce 1" "--allreduce 65" "--allreduce x" "--allreduce 2 3" "--bogus"; do
    # shellcheck disable=SC2086 # the arguments split into words on purpose
    tap_expect "membw $args: usage error, exit 2" 2 10 "$membw" $args
done
tap_done
