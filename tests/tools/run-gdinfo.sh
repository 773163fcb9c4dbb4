#!/bin/sh
# gdinfo's single-process reports: build summary, algorithm list, parameters, bad options,
# plans on the node's cores; and gdc_init refusing a GDC_<COLL>_ALGO that names no algorithm.
. "${top_srcdir:-.}/tests/common/tap.sh"
gdinfo=${top_builddir:-.}/launcher/gdinfo
out=${TMPDIR:-/tmp}/gdc-gdinfo.$$

"$gdinfo" >"$out" 2>&1 && grep -q '^gdc [0-9]' "$out" && grep -q 'UCX' "$out" && grep -q 'CUDA' "$out"
tap_check "gdinfo prints version and build" $? "$out"

"$gdinfo" --algorithms >"$out" 2>&1
ok=$?
# one line per algorithm: collective, name, description
[ $ok = 0 ] && [ "$(wc -l <"$out")" -ge 20 ] && ! awk 'NF < 3 { bad = 1 } END { exit !bad }' "$out" &&
    grep -q '^allreduce  *ring ' "$out" && grep -q '^alltoall  *bruck ' "$out" && grep -q '^barrier  *dissemination ' "$out"
tap_check "gdinfo --algorithms lists every algorithm" $? "$out"

for coll in allreduce bcast reduce allgather reduce_scatter alltoall alltoallv barrier gather scatter; do
    grep -q "^$coll " "$out"
    tap_check "gdinfo --algorithms has $coll" $?
done

"$gdinfo" --params >"$out" 2>&1 && grep -q '^GDC_TIMEOUT ' "$out" && grep -q '^GDC_ALLREDUCE_ALGO ' "$out"
tap_check "gdinfo --params lists GDC_* variables" $? "$out"

"$gdinfo" --no-such-option >"$out" 2>&1
[ $? = 2 ] && grep -q Usage "$out"
tap_check "gdinfo rejects a bad option with usage and exit 2" $? "$out"

GDC_ALLREDUCE_ALGO=no_such "${top_builddir:-.}/share/examples/ring" >"$out" 2>&1
[ $? != 0 ] && grep -q 'valid names: ring, recursive_doubling, rabenseifner, knomial' "$out"
tap_check "an unknown GDC_ALLREDUCE_ALGO fails gdc_init and lists the valid names" $? "$out"

GDC_TIMEOUT=soon "${top_builddir:-.}/share/examples/ring" >"$out" 2>&1
[ $? != 0 ] && grep -q 'GDC_TIMEOUT=soon is not valid' "$out"
tap_check "a malformed GDC_TIMEOUT fails gdc_init and says why" $? "$out"
# --plan prices with the node's cores: 4 ranks on 2 cores wait for peers that are not
# running, and take the one-shot shm_direct for a 4 KiB allreduce; on 4 cores, the two-shot
prof=${TMPDIR:-/tmp}/gdc-gdinfo-prof.$$
printf 'cores_per_node 2\n' >"$prof"
"$gdinfo" --plan allreduce --bytes 4K --ranks 4 --profile "$prof" >"$out" 2>&1 &&
    grep -q '^  \* shm_direct ' "$out" && grep -q '^#   2 cores per node' "$out"
tap_check "gdinfo --plan: 4 ranks on 2 cores take allreduce shm_direct at 4 KiB" $? "$out"
printf 'cores_per_node 4\n' >"$prof"
"$gdinfo" --plan allreduce --bytes 4K --ranks 4 --profile "$prof" >"$out" 2>&1 && grep -q '^  \* shm ' "$out"
tap_check "gdinfo --plan: 4 ranks on 4 cores take allreduce shm at 4 KiB" $? "$out"
"$gdinfo" --plan allreduce --bytes 4K --ranks 4 >"$out" 2>&1 && grep -q '^#   [0-9][0-9]* cores per node: ' "$out"
tap_check "gdinfo --plan without a profile counts this node's cores" $? "$out"
rm -f "$out" "$prof"
tap_done
