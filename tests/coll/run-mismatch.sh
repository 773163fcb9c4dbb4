#!/bin/sh
# Erroneous programs under GDC_CHECK=1: collectives whose arguments differ across ranks and
# ranks that refuse their own arguments return GDC_ERR_INVALID_ARG on every rank, with a
# line naming both ranks and what differs, and the next collective is right; inside a node
# (shared memory, fast paths) and across emulated nodes (messages), blocking and not.
. "${top_srcdir:-.}/tests/common/tap.sh"
bin=${top_builddir:-.}/tests/coll/mismatch_test
launch=${top_srcdir:-.}/tests/common/launch
out=${TMPDIR:-/tmp}/gdc-mismatch.$$

"$launch" --check || tap_skip_all "no launcher to start ranks with"

for mode in blocking nonblocking; do
    for spec in "2" "3" "4 --emulate-nodes 2"; do
        n=${spec%% *}
        extra=""
        [ "$spec" != "$n" ] && extra="GDC_YIELD=always"
        case $spec in
        *emulate*)
            # shellcheck disable=SC2086
            timeout -k 5 240 "${top_builddir:-.}/launcher/gdrun" -n "$n" --emulate-nodes 2 -x GDC_CHECK=1 \
                -x GDC_TIMEOUT=60 -x $extra -- "$bin" "$mode" >"$out" 2>&1 ;;
        *)
            timeout -k 5 240 "$launch" "$n" GDC_CHECK=1 GDC_TIMEOUT=60 -- "$bin" "$mode" >"$out" 2>&1 ;;
        esac
        st=$?
        [ "$st" = 0 ] && grep -q "mismatched calls on $n ranks" "$out" &&
            grep -q 'allreduce seq [0-9]*: rank 0 count 10, rank 1 count 20; GDC_ERR_INVALID_ARG on every rank' "$out" &&
            grep -q 'rank 1 rejected its own arguments' "$out" &&
            grep -q 'rank 0 root 0, rank 1 root 1' "$out"
        tap_check "$mode, $spec ranks: every mismatch is GDC_ERR_INVALID_ARG everywhere, named, and the next call right (exit $st)" $? "$out"
    done
done

# Without GDC_CHECK a correct program runs as before (the check costs nothing when off), and
# with it a correct program is unchanged.
for check in 0 1; do
    timeout -k 5 120 "$launch" 3 GDC_CHECK=$check -- "${top_builddir:-.}/tests/coll/coll_test" quick >"$out" 2>&1
    tap_check "GDC_CHECK=$check: coll_test quick on 3 ranks" $? "$out"
done
rm -f "$out"
tap_done
