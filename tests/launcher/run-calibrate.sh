#!/bin/sh
# The cost model's calibration (runtime/rt_calib.h): gdinfo --calibrate writes the host's
# file and gdinfo shows which numbers are in force; with GDC_CALIBRATION=auto the first job
# on a host measures once (one prober among the ranks) and every rank prices with the same
# numbers, the worst of every node's; the numbers change what gdc chooses; a bad file or
# setting is said, never a crash.
. "${top_srcdir:-.}/tests/common/tap.sh"
build=${top_builddir:-.}
gdrun=$build/launcher/gdrun
gdinfo=$build/launcher/gdinfo
bench=$build/bench/gdbench
work=$(mktemp -d "${TMPDIR:-/tmp}/gdc-calib.XXXXXX") || exit 1
trap 'rm -rf "$work"; rm -f "$tap_log"' EXIT
unset GDC_CALIBRATION

numbers_of() { # FILE: the numbers of a calibration file, one line
    awk '!/^#/ && NF == 2 {printf "%s=%s ", $1, $2}' "$1"
}

# 1. gdinfo --calibrate: a file with every number, positive (cross-memory attach may be
#    forbidden by ptrace rights: 0 is allowed for the seven numbers that need it alone).
XDG_CACHE_HOME=$work/c1 timeout -k 5 60 "$gdinfo" --calibrate >"$work/out" 2>&1
st=$?
file=$(ls "$work"/c1/gdc/calibration-* 2>/dev/null | grep -v '\.lock$' | head -1)
good=$(awk '!/^#/ && NF == 2 && ($2 > 0 || $1 ~ /^cma_|_cached_|_small_/) {n++} END {print n + 0}' \
    "${file:-/dev/null}")
[ "$st" = 0 ] && [ -n "$file" ] && [ "$good" = 13 ] && grep -q "kept in $file" "$work/out" &&
    ! ls "$work"/c1/gdc/*.tmp.* >/dev/null 2>&1
tap_check "gdinfo --calibrate writes thirteen measured numbers ($(numbers_of "${file:-/dev/null}"))" $? "$work/out"

# 2. gdinfo says what is in force and where from.
XDG_CACHE_HOME=$work/c1 GDC_CALIBRATION=auto "$gdinfo" >"$work/out" 2>&1
grep -q "costs   measured: memcpy" "$work/out" && grep -q "from $file (GDC_CALIBRATION=auto)" "$work/out"
tap_check "gdinfo shows the measured numbers in force and their file" $? "$work/out"
XDG_CACHE_HOME=$work/c1 GDC_CALIBRATION=off "$gdinfo" >"$work/out" 2>&1
grep -q "costs   built-in numbers (GDC_CALIBRATION=off); this host's measured ones, not in force, are in $file" \
    "$work/out"
tap_check "gdinfo shows the built-in numbers in force when off, and the file not used" $? "$work/out"
XDG_CACHE_HOME=$work/c1 "$gdinfo" >"$work/out" 2>&1
grep -q "costs   built-in numbers, but for cross-memory attach and the copies out of a peer's shared memory" \
    "$work/out" && grep -q "which each job measures at gdc_init (GDC_CALIBRATION=job)" "$work/out"
tap_check "gdinfo says by default that each job measures cross-memory attach and the copies" $? "$work/out"

# 3. First use: one rank of four measures, all four price with the same numbers.
XDG_CACHE_HOME=$work/c2 GDC_CALIBRATION=auto GDC_LOG=debug timeout -k 5 120 \
    "$gdrun" -n 4 --emulate-nodes 2 "$bench" allreduce -m 4:4 -i 10 >"$work/out" 2>&1
st=$?
probers=$(grep -c "calibration: this host's costs measured in" "$work/out")
lines=$(grep -o "calibration in force.*memcpy.*" "$work/out" | sed 's/.*\(memcpy.*\)/\1/' | sort -u | wc -l)
ranks=$(grep -c "calibration in force" "$work/out")
[ "$st" = 0 ] && [ "$probers" = 1 ] && [ "$ranks" = 4 ] && [ "$lines" = 1 ] &&
    ls "$work"/c2/gdc/calibration-* >/dev/null 2>&1
tap_check "first use: 1 prober of 4 ranks (got $probers), 4 ranks with one set of numbers (got $ranks, $lines)" $? \
    "$work/out"

# 4. Two nodes with different numbers: every rank takes the worst of each (node 1's file,
#    of a gdc before cma_us and the in-cache rates, lacks them: unmeasured there, so for all).
printf 'copy_GBs 20\nreduce_GBs 5\nsignal_us 0.1\ncma_GBs 8\ncma_us 0.7\nucx_shm_us 0.5\nucx_shm_GBs 12\n' \
    >"$work/node0"
printf 'copy_GBs 10\nreduce_GBs 9\nsignal_us 0.3\ncma_GBs 0\nucx_shm_us 0.25\nucx_shm_GBs 6\n' >"$work/node1"
cat >"$work/by-node.sh" <<EOF
#!/bin/sh
# ranks 0-1 on emulated node 0, 2-3 on node 1 (blocks)
if [ "\$PMIX_RANK" -lt 2 ]; then GDC_CALIBRATION=$work/node0; else GDC_CALIBRATION=$work/node1; fi
export GDC_CALIBRATION
exec "\$@"
EOF
chmod +x "$work/by-node.sh"
GDC_LOG=debug timeout -k 5 120 "$gdrun" -n 4 --emulate-nodes 2 "$work/by-node.sh" "$bench" allreduce -m 4:4 -i 10 \
    >"$work/out" 2>&1
st=$?
want="memcpy 10.0 GB/s (in cache 0.0 out of a peer's shared memory, 0.0 of a few KiB; 0.0 into one's own), reduce"
want="$want 5.0 GB/s (in cache 0.0), signal 0.30 us, cross-memory attach 0.00 us"
want="$want and 0.0 GB/s"
want="$want (in cache 0.0, of 4 MiB 0.00 times a copy's time), UCX shared memory 0.50 us and 6.0 GB/s"
ranks=$(grep "calibration in force" "$work/out" | grep -c "$want\$")
[ "$st" = 0 ] && [ "$ranks" = 4 ] && grep -q "the worst of 2 nodes' calibrations" "$work/out"
tap_check "two nodes' numbers: all 4 ranks price with the worst of each (got $ranks)" $? "$work/out"

# 5. The numbers are in force: shared memory made slow moves a 64K allreduce off the
#    shared-memory algorithms; UCX made slow keeps it there.
printf 'copy_GBs 0.5\nreduce_GBs 0.5\nsignal_us 50\ncma_GBs 1\nucx_shm_us 0.01\nucx_shm_GBs 100\n' >"$work/slow-shm"
printf 'copy_GBs 20\nreduce_GBs 12\nsignal_us 0.1\ncma_GBs 1\nucx_shm_us 50\nucx_shm_GBs 0.5\n' >"$work/slow-ucx"
for case in slow-shm slow-ucx; do
    GDC_CALIBRATION=$work/$case GDC_LOG=info timeout -k 5 120 "$gdrun" -n 4 "$bench" allreduce -m 64K:64K -i 10 \
        >"$work/out.$case" 2>&1
    echo "exit status $?" >>"$work/out.$case"
done
grep -q "exit status 0" "$work/out.slow-shm" && grep -q "exit status 0" "$work/out.slow-ucx" &&
    grep "info: allreduce of 16384 x float32 sum on 4 ranks" "$work/out.slow-shm" | grep -vq ": shm" &&
    ! grep "info: allreduce of 16384 x float32 sum on 4 ranks" "$work/out.slow-shm" | grep -q ": shm" &&
    grep "info: allreduce of 16384 x float32 sum on 4 ranks" "$work/out.slow-ucx" | grep -q ": shm"
tap_check "calibrated numbers change the choice: $(grep -ho 'info: allreduce of 16384 x float32 sum.*: [a-z_]*' \
    "$work/out.slow-shm" "$work/out.slow-ucx" | sed 's/.*: //' | sort -u | tr '\n' ' ')" $? "$work/out.slow-shm"

# 6. Cross-memory attach's call in force: cheap, a 2-rank bcast of 128 KiB takes bcast cma;
#    dear, bcast shm.
for us in 0.3 50; do
    printf 'copy_GBs 20\nreduce_GBs 12\nsignal_us 0.1\ncma_GBs 8\ncma_us %s\nucx_shm_us 0.4\nucx_shm_GBs 8\n' "$us" \
        >"$work/cma-$us"
    GDC_CALIBRATION=$work/cma-$us GDC_LOG=info timeout -k 5 120 "$gdrun" -n 2 "$bench" bcast -m 128K:128K -i 10 \
        >"$work/out.cma-$us" 2>&1
    echo "exit status $?" >>"$work/out.cma-$us"
done
chosen() { # FILE: the algorithms the ranks logged for the bcast of 128 KiB
    grep -ho "info: bcast of 131072 x uint8 from root 0 on 2 ranks.*: [a-z_]*" "$1" | sed 's/.*: //' | sort -u |
        tr '\n' ' '
}
grep -q "exit status 0" "$work/out.cma-0.3" && grep -q "exit status 0" "$work/out.cma-50" &&
    [ "$(chosen "$work/out.cma-0.3")" = "cma " ] && [ "$(chosen "$work/out.cma-50")" = "shm " ]
tap_check "cma_us changes the choice: $(chosen "$work/out.cma-0.3")at 0.3 us, $(chosen "$work/out.cma-50")at 50 us" $? \
    "$work/out.cma-0.3"

# 7. The cma algorithms of GDC_COLL_ALGO_FLAG_MEASURED are the model's to choose where the
#    calibration measured cross-memory attach and the copies in cache: allgather cma at 64 KiB
#    on 2 ranks with them, allgather shm without.
base='copy_GBs 20\nreduce_GBs 12\nsignal_us 0.1\ncma_GBs 8\ncma_us 0.8\nucx_shm_us 0.4\nucx_shm_GBs 8\n'
printf "$base" >"$work/cma-rates-no"
printf "${base}copy_cached_GBs 15\ncma_cached_GBs 22\n" >"$work/cma-rates-yes"
for case in no yes; do
    GDC_CALIBRATION=$work/cma-rates-$case GDC_LOG=info timeout -k 5 120 "$gdrun" -n 2 "$bench" allgather -c \
        -m 64K:64K -i 10 >"$work/out.cma-rates-$case" 2>&1
    echo "exit status $?" >>"$work/out.cma-rates-$case"
done
chosen_ag() { # FILE: the algorithms the ranks logged for the allgather of 64 KiB
    grep -ho "info: allgather of 65536 x uint8 on 2 ranks.*: [a-z_]*" "$1" | sed 's/.*: //' | sort -u | tr '\n' ' '
}
grep -q "exit status 0" "$work/out.cma-rates-no" && grep -q "exit status 0" "$work/out.cma-rates-yes" &&
    [ "$(chosen_ag "$work/out.cma-rates-no")" = "shm " ] && [ "$(chosen_ag "$work/out.cma-rates-yes")" = "cma " ]
st=$?
tap_check "measured in-cache rates let the model take allgather cma: $(chosen_ag "$work/out.cma-rates-no")without, $(
    chosen_ag "$work/out.cma-rates-yes")with" $st "$work/out.cma-rates-yes"

# 7b. Where cross-memory attach's rate from memory is not measured (a job's case), the read
#     of 4 MiB against a copy prices it: the built-in copy's rate over that ratio. A 2-rank
#     alltoall of 256 MiB (buffers past any cache) takes cma at 1.2, shm at 4.
rates='copy_GBs 20\nreduce_GBs 12\nsignal_us 0.1\ncma_GBs 0\ncma_us 0.7\ncopy_cached_GBs 18\ncma_cached_GBs 20\n'
rates="${rates}reduce_cached_GBs 18\nucx_shm_us 0.4\nucx_shm_GBs 5\n"
ratio_plan="" ratio_ok=0
for ratio in 1.2 4; do
    printf "${rates}cma_copy_ratio $ratio\n" >"$work/ratio-$ratio"
    GDC_CALIBRATION=$work/ratio-$ratio "$gdinfo" --plan alltoall --bytes 256M --ranks 2 >"$work/out.ratio-$ratio" 2>&1 ||
        ratio_ok=1
    ratio_plan="$ratio_plan$ratio:$(awk '$1 == "*" {print $2}' "$work/out.ratio-$ratio") "
done
[ "$ratio_ok" = 0 ] && [ "$ratio_plan" = "1.2:cma 4:shm " ] &&
    grep -q "cross-memory attach 0.70 us and 16.7 GB/s" "$work/out.ratio-1.2" &&
    grep -q "cross-memory attach 0.70 us and 5.0 GB/s" "$work/out.ratio-4"
tap_check "the read across of 4 MiB against a copy prices cma from memory: $ratio_plan" $? "$work/out.ratio-4"

# 8. By default (GDC_CALIBRATION=job) a job measures cross-memory attach and the copies
#    out of a peer's shared memory itself: on 2 ranks both price with one set of numbers,
#    and choose as gdinfo --plan chooses with those numbers in a file beside the built-in
#    ones (allgather from 16 KiB to 1 MiB, where on the development VMs the choice turns on
#    them), and the results are right (gdbench -c).
# (bound to a core each: where the scheduler put both on one, the probe would refuse it, case 12)
GDC_LOG=debug timeout -k 5 120 "$gdrun" -n 2 --bind-to core "$bench" allgather -c -m 16K:1M -i 10 \
    >"$work/out.job" 2>&1
st=$?
num='\([0-9.e+-]*\)'
hdr=$(GDC_CALIBRATION=off "$gdinfo" --plan allgather --bytes 1K --ranks 2)
rank0_numbers() { # LOG: the line of the numbers rank 0 of the job of LOG measured
    grep "gdc\[0\] info: calibration in force (measured by this job at gdc_init, the worst of 1 node(s)" "$1" |
        sed 's/.*): //'
}
# job_numbers LOG FILE: those numbers, as words, and FILE a calibration file of them beside
# the built-in ones
job_numbers() {
    set -- "$1" "$2" $(rank0_numbers "$1" | sed -n "s/^cross-memory attach $num us (in cache $num GB\/s, of 4 MiB $num \
times a copy.s time); out of a peer.s shared memory in cache: copy $num GB\/s ($num GB\/s of a few KiB), reduction \
$num GB\/s; into one.s own: copy $num GB\/s\$/\\1 \\2 \\3 \\4 \\5 \\6 \\7/p")
    builtin=$(echo "$hdr" | sed -n "s/^#   reduce $num GB\/s (GPU [0-9]*), copy $num GB\/s (GPU [0-9]*), cross-memory \
attach [0-9.]* us and $num GB\/s, .*shared-memory signal $num us.*/reduce_GBs \\1 copy_GBs \\2 signal_us \\4/p")
    shm=$(echo "$hdr" | awk '$1 == "#" && $2 == "shm" {print "ucx_shm_us", $3, "ucx_shm_GBs", $5}')
    # cma_GBs 0: not measured, as in the job, which prices the read from memory at the ratio
    echo "$builtin $shm cma_GBs 0 cma_us $3 cma_cached_GBs $4 cma_copy_ratio $5 copy_cached_GBs $6 copy_peer_small_GBs $7 \
reduce_cached_GBs $8 copy_shared_cached_GBs $9" | xargs -n 2 >"$2"
    shift 2
    echo "$*"
}
set -- $(job_numbers "$work/out.job" "$work/as-job")
mine=$(rank0_numbers "$work/out.job")
theirs=$(grep "gdc\[1\] debug: calibration in force: " "$work/out.job" | sed 's/.*in force: //')
differ=""
for size in 16384 32768 65536 131072 262144 524288 1048576; do
    ran=$(grep -o "gdc\[0\] info: allgather of $size x uint8 on 2 ranks (1 node(s)): [a-z_]*" "$work/out.job" |
        sed 's/.*: //')
    planned=$(GDC_CALIBRATION=$work/as-job "$gdinfo" --plan allgather --bytes "$size" --ranks 2 |
        awk '$1 == "*" {print $2}')
    [ -n "$ran" ] && [ "$ran" = "$planned" ] || differ="$differ $size:$ran/$planned"
    chosen_job="${chosen_job:-}$ran "
done
[ "$st" = 0 ] && [ $# = 7 ] && [ "$mine" = "$theirs" ] && [ -z "$differ" ] && [ "$(wc -l <"$work/as-job")" = 13 ]
tap_check "a job's own numbers ($*), on both ranks, chose as the plan does with them: \
$chosen_job${differ:+(differ:$differ)}" $? "$work/out.job"

# 9. Every collective right under the job's own numbers, as gdc runs by default (coll_test
#    checks every result; which algorithms the numbers pick is this host's).
GDC_LOG=info timeout -k 5 300 "$gdrun" -n 2 --bind-to core "${top_builddir:-.}/tests/coll/coll_test" all \
    >"$work/out.all" 2>&1
st=$?
[ "$st" = 0 ] && grep -q "calibration in force (measured by this job" "$work/out.all"
tap_check "coll_test all on 2 ranks under the job's numbers (cma chosen $(grep -c "info: [a-z_]* of .*: cma" \
    "$work/out.all") times)" $? "$work/out.all"

# 10. Two nodes (emulated, 2 ranks each): every rank prices with the same numbers, the worst
#     of both nodes' measurements, or none at all where a node could not measure.
GDC_LOG=debug timeout -k 5 120 "$gdrun" -n 4 --emulate-nodes 2 "$bench" allgather -c -m 64K:64K -i 10 \
    >"$work/out.nodes" 2>&1
st=$?
agreed=$(grep -o "calibration in force.*cross-memory attach.*" "$work/out.nodes" | sed 's/.*\(cross-memory.*\)/\1/' |
    sort -u | wc -l)
ranks=$(grep -c "calibration in force" "$work/out.nodes")
measured=$(grep -c "calibration: node .* measured in" "$work/out.nodes")
{ [ "$ranks" = 4 ] && [ "$agreed" = 1 ] && [ "$measured" = 2 ] &&
    grep -q "the worst of 2 node(s)" "$work/out.nodes"; } ||
    { [ "$ranks" = 0 ] && grep -q "did not measure cross-memory attach" "$work/out.nodes"; }
ok=$?
[ "$st" = 0 ] && [ "$ok" = 0 ]
tap_check "2 emulated nodes: $measured measured, $ranks of 4 ranks price with $agreed set(s) of numbers" $? \
    "$work/out.nodes"

# 11. Where the ranks outnumber the cores (twice as many), the node's first two measure on
#     two CPUs while the others sleep: measured, every rank prices with one set, and the
#     alltoall from 64 KiB to 1 MiB (cma's to take there under measured numbers, on the
#     development VM from 128 KiB) chooses as gdinfo --plan does with them, its results right.
cores=$(echo "$hdr" | sed -n 's/^#   \([0-9]*\) cores per node.*/\1/p')
if [ -n "$cores" ] && [ "$cores" -le 4 ]; then
    over=$((2 * cores))
    GDC_LOG=debug timeout -k 5 120 "$gdrun" -n $over "$bench" alltoall -c -m 64K:1M -i 10 >"$work/out.over" 2>&1
    st=$?
    ranks=$(grep -c "calibration in force" "$work/out.over")
    agreed=$(grep -o "calibration in force.*cross-memory attach.*" "$work/out.over" |
        sed 's/.*\(cross-memory.*\)/\1/' | sort -u | wc -l)
    set -- $(job_numbers "$work/out.over" "$work/as-job-over")
    differ="" chosen_over=""
    for size in 65536 131072 262144 524288 1048576; do
        ran=$(grep -o "gdc\[0\] info: alltoall of $size x uint8 on $over ranks (1 node(s)): [a-z_]*" \
            "$work/out.over" | sed 's/.*: //')
        planned=$(GDC_CALIBRATION=$work/as-job-over "$gdinfo" --plan alltoall --bytes "$size" --ranks $over |
            awk '$1 == "*" {print $2}')
        [ -n "$ran" ] && [ "$ran" = "$planned" ] || differ="$differ $size:$ran/$planned"
        chosen_over="$chosen_over$ran "
    done
    [ "$st" = 0 ] && grep -q "calibration: node .* measured in" "$work/out.over" && [ "$ranks" = "$over" ] &&
        [ "$agreed" = 1 ] && [ $# = 7 ] && [ -z "$differ" ]
    tap_check "$over ranks on $cores cores: measured, $ranks ranks price with $agreed set(s) of numbers, alltoall \
chose as the plan does: $chosen_over${differ:+(differ:$differ)}" $? "$work/out.over"
else
    tap_skip "$((2 * ${cores:-0})) ranks on ${cores:-?} cores" "more than 8 ranks to outnumber this node's cores"
fi

# 12. Two ranks held to one CPU (taskset) take turns on one core: what the probe would
#     measure is that core's own cache, not used (said), and every rank keeps the built-in
#     numbers.
if command -v taskset >/dev/null 2>&1; then
    GDC_LOG=info timeout -k 5 120 taskset -c 0 "$gdrun" -n 2 "$bench" allgather -c -m 64K:64K -i 10 \
        >"$work/out.onecpu" 2>&1
    st=$?
    [ "$st" = 0 ] && grep -q "local ranks 0 and 1 ran on one CPU at" "$work/out.onecpu" &&
        ! grep -q "calibration in force" "$work/out.onecpu"
    tap_check "2 ranks on one CPU: the probe's numbers not used" $? "$work/out.onecpu"
else
    tap_skip "2 ranks on one CPU" "no taskset"
fi

# 13. GDC_CALIBRATION=off: no probe, and allgather cma is not the model's to choose.
GDC_CALIBRATION=off GDC_LOG=debug timeout -k 5 120 "$gdrun" -n 2 "$bench" allgather -c -m 1M:1M -i 10 \
    >"$work/out.off" 2>&1
st=$?
[ "$st" = 0 ] && ! grep -q "calibration" "$work/out.off" &&
    [ "$(grep -c "info: allgather of 1048576 x uint8 on 2 ranks (1 node(s)): shm" "$work/out.off")" = 2 ]
tap_check "GDC_CALIBRATION=off: no probe, allgather shm at 1 MiB" $? "$work/out.off"

# 14. A file that cannot be read: said, and the built-in numbers; a bad setting fails init.
GDC_CALIBRATION=$work/none GDC_LOG=info timeout -k 5 60 "$gdrun" -n 2 "$bench" allreduce -m 4:4 -i 10 \
    >"$work/out" 2>&1
st=$?
[ "$st" = 0 ] && grep -q "calibration: cannot read $work/none" "$work/out" &&
    grep -q "has no measured costs" "$work/out"
tap_check "a missing calibration file is said and the job runs on the built-in numbers" $? "$work/out"
GDC_CALIBRATION=sometimes timeout -k 5 60 "$gdrun" -n 2 "$bench" allreduce -m 4:4 -i 10 >"$work/out" 2>&1
st=$?
[ "$st" != 0 ] && grep -q "GDC_CALIBRATION=sometimes is not valid: expected job, auto, off or the path" "$work/out"
tap_check "GDC_CALIBRATION=sometimes fails gdc_init with what is expected (status $st)" $? "$work/out"

tap_done
