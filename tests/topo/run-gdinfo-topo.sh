#!/bin/sh
# gdinfo's topology reports: the summary (this node, and replayed fixtures), --doctor (each
# check ok / warn / fail / n/a; on a machine without GPUs it says so and exits 0), --peers
# (an N x N matrix of link classes and transports under a launcher; a clear refusal without).
. "${top_srcdir:-.}/tests/common/tap.sh"
gdinfo=${top_builddir:-.}/launcher/gdinfo
topo=${top_srcdir:-.}/share/topo
launch=${top_srcdir:-.}/tests/common/launch
launcher=$("$launch" --which)
out=${TMPDIR:-/tmp}/gdc-gdinfo-topo.$$
trap 'rm -f "$out" "$tap_log"' EXIT

# --- summary ---------------------------------------------------------------------------
"$gdinfo" >"$out" 2>&1 &&
    grep -Eq '^  node [^ ]+: [0-9]+ packages?, [0-9]+ NUMA nodes?, [0-9]+ cores? \([0-9]+ PUs?\); GPUs: .+; NICs: .+; UCX CUDA memory: (yes|no)$' "$out"
tap_check "gdinfo prints the node's topology summary" $? "$out"
grep -q '^  messages host ones of 16384 bytes and more to a rank of the same node: read by the receiver' "$out" &&
    GDC_MSG_CMA=0 "$gdinfo" 2>&1 | grep -q '^  messages through UCX, inside a node too (GDC_MSG_CMA=0)$'
tap_check "gdinfo says how messages inside a node go (GDC_MSG_CMA 16K by default, and 0)" $? "$out"
no_gpu=0
grep -q '; GPUs: none;' "$out" && no_gpu=1

GDC_TOPO_XML=$topo/dgx-h100.xml "$gdinfo" >"$out" 2>&1 &&
    grep -q 'GPUs: 8 x NVIDIA H100 80GB HBM3, NVSwitch; NICs: mlx5_0-7 (infiniband, RDMA), eno1 (ethernet)' "$out" &&
    [ "$(grep -c '^  GPU [0-7] .*nearest RDMA NIC: mlx5_[0-7] (same PCIe switch)$' "$out")" = 8 ] &&
    grep -q 'peer access: 28 of 28 GPU pairs over NVLink' "$out"
tap_check "GDC_TOPO_XML replays a DGX-like node: 8 GPUs, a NIC under each GPU's switch, NVLink" $? "$out"

GDC_TOPO_XML=$topo/pcie-4gpu.xml "$gdinfo" >"$out" 2>&1 &&
    grep -q '^  finding (warn): GPU 2 (.*) has no RDMA NIC on its NUMA node' "$out" &&
    grep -q '^  finding (warn): GPU 3 (.*) has no RDMA NIC on its NUMA node' "$out" &&
    ! grep -q 'finding (warn): GPU [01] ' "$out"
tap_check "the PCIe 4-GPU node: GPUs 2 and 3 have no NIC on their NUMA node (finding)" $? "$out"

GDC_TOPO_XML=/nonexistent/topo.xml "$gdinfo" >"$out" 2>&1
[ $? != 0 ] && grep -q 'cannot read the topology XML file /nonexistent/topo.xml (GDC_TOPO_XML)' "$out"
tap_check "a missing GDC_TOPO_XML fails with a clear message" $? "$out"

# --- doctor ----------------------------------------------------------------------------
"$gdinfo" --doctor >"$out" 2>&1
st=$?
checks=$(grep -Ec '^(ok|warn|fail|n/a) +[a-z0-9-]+ +[^ ].*' "$out")
others=$(grep -Evc '^(ok|warn|fail|n/a) +[a-z0-9-]+ +[^ ]|^gdinfo --doctor: |^no NVIDIA GPU on this node|^summary: ' "$out")
[ "$checks" -ge 9 ] && [ "$others" = 0 ] && grep -q '^summary: [0-9]* ok, [0-9]* warn, [0-9]* fail, [0-9]* n/a$' "$out"
tap_check "gdinfo --doctor: every check line is ok/warn/fail/n/a with a reason" $? "$out"
if [ $no_gpu = 1 ]; then
    [ $st = 0 ] && grep -q '^no NVIDIA GPU on this node' "$out" && [ "$(grep -c '^n/a ' "$out")" = "$checks" ]
    tap_check "gdinfo --doctor without GPUs says so plainly and exits 0" $? "$out"
else
    tap_skip "gdinfo --doctor without GPUs says so plainly and exits 0" "this machine has a GPU"
fi

GDC_TOPO_XML=$topo/pcie-4gpu.xml "$gdinfo" --doctor >"$out" 2>&1
[ $? = 1 ] && grep -q '^fail  gpu-nic .*GPU 2 ' "$out" && grep -q '^warn  gpu-nic .*GPU 0 ' "$out" &&
    grep -q '^warn  p2p .*4 of 6 GPU pairs have no peer access' "$out" && grep -q '^n/a   peermem .*replayed' "$out"
tap_check "gdinfo --doctor on the replayed PCIe node fails the far-NIC GPUs (exit 1)" $? "$out"

# --- peers -----------------------------------------------------------------------------
"$gdinfo" --peers >"$out" 2>&1
[ $? = 1 ] && grep -q 'gdinfo --peers needs a launcher' "$out"
tap_check "gdinfo --peers without a launcher says it needs one (exit 1)" $? "$out"

# check_matrix FILE TITLE N [EXPECTED...]: the N x N matrix under TITLE; without EXPECTED,
# self on the diagonal and shm elsewhere.
check_matrix() {
    file=$1 title=$2 n=$3
    shift 3
    awk -v title="$title" -v n="$n" -v want="$*" '
        BEGIN { split(want, w, " "); bad = 0; rows = 0 }
        index($0, title) == 1 { at = NR; next }
        at && NR == at + 1 { next }
        at && NR > at + 1 && NR <= at + 1 + n {
            r = NR - at - 2; rows++
            if ($1 != r || NF != n + 1) bad = 1
            for (c = 0; c < n; c++) {
                e = (want != "") ? w[r * n + c + 1] : (r == c ? "self" : "shm")
                if ($(c + 2) != e) { bad = 1; print "# row " r " column " c ": " $(c + 2) ", expected " e }
            }
        }
        END { exit !(at && rows == n && !bad) }' "$file"
}

if "$launch" --check; then
    for n in 1 2 4; do
        timeout -k 5 120 "$launch" "$n" -- "$gdinfo" --peers >"$out" 2>&1 &&
            check_matrix "$out" "link class, host buffers" "$n" && grep -q "^gdinfo --peers: $n ranks" "$out" &&
            { [ "$n" = 1 ] || grep -q '^  A = ' "$out"; }
        tap_check "$launcher -n $n gdinfo --peers: $n x $n matrix, self on the diagonal, shm elsewhere" $? "$out"
    done
    timeout -k 5 120 "$launch" 4 GDC_TOPO_XML="$topo/pcie-4gpu.xml" -- "$gdinfo" --peers >"$out" 2>&1 &&
        check_matrix "$out" "link class, host buffers" 4 &&
        check_matrix "$out" "link class, device buffers" 4 \
            self pcie shm shm  pcie self shm shm  shm shm self pcie  shm shm pcie self
    tap_check "$launcher -n 4 gdinfo --peers on the replayed PCIe node: pcie within a socket, shm across" $? "$out"
else
    tap_skip "gdinfo --peers under a launcher" "no launcher ($launcher)"
fi

# Ranks on different (emulated) nodes: shm inside a node, net between, as the rank table's
# node column says.
gdrun_bin=${top_builddir:-.}/launcher/gdrun
if [ -x "$gdrun_bin" ] && "$gdrun_bin" --help 2>&1 | grep -q -- '--emulate-nodes'; then
    timeout -k 5 120 "$gdrun_bin" -n 4 --emulate-nodes 2 -- "$gdinfo" --peers >"$out" 2>&1 &&
        awk '/^ rank  node/ { t = 1; next }
             t && NF >= 5 && $1 ~ /^[0-9]+$/ { node[$1] = $2; n++; next }
             t { t = 0 }
             index($0, "link class, host buffers") == 1 { m = NR; next }
             m && NR > m + 1 && NR <= m + 1 + n {
                 r = NR - m - 2
                 for (c = 0; c < n; c++) {
                     e = r == c ? "self" : node[r] == node[c] ? "shm" : "net"
                     if ($(c + 2) != e) { bad = 1; print "# row " r " column " c ": " $(c + 2) ", expected " e }
                 }
                 rows++
             }
             END { exit !(n == 4 && rows == 4 && !bad) }' "$out" &&
        grep -q '^gdinfo --peers: 4 ranks on 2 nodes' "$out"
    tap_check "gdrun -n 4 --emulate-nodes 2 gdinfo --peers: shm inside a node, net between" $? "$out"
else
    tap_skip "gdinfo --peers across emulated nodes" "no gdrun with --emulate-nodes in this build"
fi
tap_done
