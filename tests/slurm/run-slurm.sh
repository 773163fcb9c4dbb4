#!/bin/sh
# gdc under a real Slurm: a cluster of 3 emulated nodes on this machine (local-cluster.sh,
# Slurm's PMIx plugin), started here and always stopped at the end. Checks that
#  - gdc's nodes are Slurm's (not this machine's host name), on the world and on a split;
#  - the collectives suite (tests/coll/coll_test) passes across 2 and 3 nodes with uneven
#    ranks per node, every algorithm forced in turn, the hierarchical ones included;
#  - a rank that dies or exits, or never joins, ends the step with a non-zero exit, found by
#    gdc itself (srun runs without --kill-on-bad-exit), within seconds;
#  - gdrun inside a multi-node allocation runs the job through srun, with its options.
# Skipped (SKIPPED: reason) where Slurm cannot be installed or started (not root, no package).
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/slurm/srun-tasks.sh"
srcdir=${top_srcdir:-.}
build=${top_builddir:-.}
cluster="$srcdir/tests/slurm/local-cluster.sh"
launch="$srcdir/tests/common/launch"
coll="$build/tests/coll/coll_test"
probe="$build/tests/slurm/slurm_probe"
gdrun_probe="$build/tests/launcher/gdrun_probe"
gdrun="$build/launcher/gdrun"
gdinfo="$build/launcher/gdinfo"
out=${TMPDIR:-/tmp}/gdc-slurm-test.out.$$
began=$(date +%s)

export GDC_SLURM_DIR="${TMPDIR:-/tmp}/gdc-slurm-test"
export SLURM_CONF="$GDC_SLURM_DIR/slurm.conf"
export GDC_TEST_LAUNCHER=srun
# The emulated nodes share this machine's cores, which gdc cannot know (it counts the ranks
# of its own node): without yielding, the ranks of a lightly loaded node spin and starve
# the others (an allreduce suite takes 12 s instead of 2).
export GDC_YIELD=always

# Seconds since a `date +%s.%N`.
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}'; }

skip_all() {
    echo "SKIPPED: $1"
    tap_skip_all "$1"
}

started=0
stop_cluster() {
    [ "$started" = 1 ] || return 0
    started=0
    timeout -k 5 60 sh "$cluster" stop >/dev/null 2>&1
}
# Whatever happens (a failing case, a signal), the cluster goes and nothing of it stays.
trap 'stop_cluster; rm -f "$tap_log" "$out"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[ "$(id -u)" = 0 ] || skip_all "starting a local Slurm cluster needs root"
# One local cluster at a time on this machine (fixed ports): wait for another run's end.
exec 9>"${TMPDIR:-/tmp}/gdc-slurm-test.lock"
if ! flock -w 600 9; then
    tap_result "no other Slurm test run holds ${TMPDIR:-/tmp}/gdc-slurm-test.lock after 600 s" 1
    tap_done
    exit 1
fi

t0=$(date +%s.%N)
started=1
if ! timeout -k 5 240 sh "$cluster" start 3 >"$out" 2>&1; then
    sed 's/^/# /' "$out"
    reason=$(grep 'local-cluster.sh:' "$out" | tail -n 1 | sed 's/^local-cluster.sh: //')
    skip_all "the local Slurm cluster does not start: ${reason:-see the lines above}"
fi
echo "# $(cat "$out") in $(elapsed "$t0") s"

# ---------------------------------------------------------------------------------------
# gdc's nodes are Slurm's
for spec in "2 4" "2 5" "3 5"; do
    set -- $spec
    export GDC_TEST_NODES=$1
    (timeout -k 5 60 "$launch" "$2" -- "$probe" nodes) >"$out" 2>&1 </dev/null
    st=$?
    [ "$st" = 0 ] && [ "$(grep -c '^nodes rank' "$out")" = "$2" ]
    tap_check "srun -N $1 -n $2: gdc's nodes, node names and local ranks are Slurm's (world and a split)" $? "$out"
done
if "$gdinfo" --help 2>&1 | grep -q -- '--peers'; then
    GDC_TEST_NODES=2 timeout -k 5 60 "$launch" 4 -- "$gdinfo" --peers >"$out" 2>&1 </dev/null
    st=$?
    [ "$st" = 0 ] && grep -q n1 "$out" && grep -q n2 "$out"
    tap_check "srun -N 2 -n 4 gdinfo --peers names nodes n1 and n2" $? "$out"
else
    tap_skip "srun -N 2 -n 4 gdinfo --peers" "this gdinfo has no --peers yet"
fi

# ---------------------------------------------------------------------------------------
# The collectives suite, every algorithm forced in turn. Set k forces, for each collective,
# its k-th algorithm of the kind asked for (round robin), so that as many sets as the
# longest list force every algorithm at least once; small chunks pipeline the large
# messages, a radix of 3 makes the k-nomial trees uneven.
algorithm_sets() { # flat|hier
    "$gdinfo" --algorithms | awk -v kind="$1" '
        { if (($2 ~ /^hier/) != (kind == "hier")) next
          if ($2 ~ /^ipc/) next # device buffers only: tests/gpu/device-check.sh forces them
          c = $1; if (!(c in n)) order[++nc] = c
          name[c, n[c]++] = $2; if (n[c] > most) most = n[c] }
        END { for (k = 0; k < most; k++) {
                  line = ""
                  for (i = 1; i <= nc; i++) {
                      c = order[i]
                      line = line sprintf("%sGDC_%s_ALGO=%s", line == "" ? "" : " ", toupper(c), name[c, k % n[c]])
                  }
                  print line } }'
}
run_sets() { # flat|hier; sets_run: how many sets there were
    sets_run=0
    algorithm_sets "$1" >"$out.sets"
    while read -r set; do
        # across nodes the shared-memory (and cross-memory attach) algorithms give way
        # (logged); every other forced one must be the one chosen
        forced=$(echo "$set" | tr ' ' '\n' | grep -v -e '=shm$' -e '=shm_direct$' -e '=cma$' | tr '\n' ' ')
        for spec in "2 5" "3 5"; do
            # shellcheck disable=SC2086
            tap_run_forced "srun -N ${spec% *} -n ${spec#* } coll_test all, $1 set $sets_run: $set" 180 "$forced" \
                env GDC_TEST_NODES="${spec% *}" "$launch" "${spec#* }" $set GDC_CHUNK_SIZE=4K GDC_TREE_RADIX=3 \
                GDC_LOG=info -- "$coll" all
        done
        sets_run=$((sets_run + 1))
    done <"$out.sets"
    rm -f "$out.sets"
}
run_sets flat
run_sets hier
if [ "$sets_run" = 0 ]; then
    tap_skip "coll_test all with the hierarchical algorithms forced" \
        "gdinfo --algorithms lists none whose name starts with hier yet; the flat sets above cover every algorithm there is"
fi
for spec in "2 5" "3 5"; do
    tap_run "srun -N ${spec% *} -n ${spec#* } coll_test nonblocking" 120 \
        env GDC_TEST_NODES="${spec% *}" "$launch" "${spec#* }" -- "$coll" nonblocking
done

# ---------------------------------------------------------------------------------------
# Failures, without gdrun and without srun's --kill-on-bad-exit: gdc's own detection.
for spec in "2 5" "3 5"; do
    nodes=${spec% *}; n=${spec#* }
    export GDC_TEST_NODES=$nodes
    # The last rank never joins: the others fail with GDC_ERR_TIMEOUT, naming it.
    timeout -k 5 60 "$launch" "$n" GDC_TIMEOUT=2 GDC_ALLREDUCE_ALGO=recursive_doubling -- "$coll" timeout \
        >"$out" 2>&1 </dev/null
    st=$?
    [ "$st" = 0 ] && [ "$(grep -c 'timed out as expected' "$out")" = $((n - 1)) ] &&
        grep -q "waits for data from rank $((n - 1))" "$out"
    tap_check "srun -N $nodes -n $n: a rank that never joins: GDC_ERR_TIMEOUT naming it" $? "$out"

    # Rank 1 dies (SIGKILL) or exits 5 mid-allreduce: every survivor's allreduce fails (exit
    # 3), but for those Slurm's PMIx plugin kills first: it ends the step about a second
    # after a task dies without finalizing, racing with gdc's detection, which takes a
    # watch interval per rank that fails on a failed peer and exits.
    for how in peerdeath peerexit; do
        t=$(date +%s.%N)
        timeout -k 5 60 "$launch" "$n" -- "$coll" "$how" >"$out" 2>&1 </dev/null
        st=$?
        took=$(elapsed "$t")
        echo "srun exit status $st after $took s" >>"$out"
        # exit 3 is coll_test's for a failed allreduce: srun says it even where the task's
        # last line did not make it out before srun ended the step
        survivors=$(task_ends "$out" | grep -v '^1 ')
        failed=$(echo "$survivors" | grep -c ' Exited with exit code 3$')
        by_slurm=$(echo "$survivors" | grep -Ec '^[0-9]+ (Killed|Terminated)$')
        [ "$st" != 0 ] && [ "$st" != 124 ] && ! grep -q survived "$out" &&
            grep -q 'allreduce [0-9]* failed: a peer process failed' "$out" &&
            [ $((failed + by_slurm)) = $((n - 1)) ] && awk -v t="$took" 'BEGIN{exit !(t < 20)}'
        tap_check "srun -N $nodes -n $n coll_test $how: of the $((n - 1)) survivors $failed fail their allreduce, $by_slurm were ended by Slurm (exit $st, ${took} s)" $? "$out"
    done

    # The last rank dies while rank 0 waits in a bcast for rank 1, which waits for rank 0
    # (coll_test.c, test_peerchain): rank 0's bcast must fail for the failed rank of its
    # communicator, which it does not wait for. Ranks 0 and 1 share a node that the dead
    # rank is not on, so Slurm's PMIx plugin does not end rank 0 for it; rank 1 it may end
    # once rank 0 has exited.
    t=$(date +%s.%N)
    timeout -k 5 60 "$launch" "$n" -- "$coll" peerchain >"$out" 2>&1 </dev/null
    st=$?
    took=$(elapsed "$t")
    echo "srun exit status $st after $took s" >>"$out"
    ends=$(task_ends "$out")
    survivors=$(echo "$ends" | grep -v "^$((n - 1)) ")
    failed=$(echo "$survivors" | grep -c ' Exited with exit code 3$')
    by_slurm=$(echo "$survivors" | grep -v '^0 ' | grep -Ec '^[0-9]+ (Killed|Terminated)$')
    [ "$st" != 0 ] && [ "$st" != 124 ] && awk -v t="$took" 'BEGIN{exit !(t < 20)}' &&
        grep -q '^rank 0: bcast from rank 1: a peer process failed$' "$out" &&
        echo "$ends" | grep -qx '0 Exited with exit code 3' && ! grep -q 'survived' "$out" &&
        [ $((failed + by_slurm)) = $((n - 1)) ]
    tap_check "srun -N $nodes -n $n coll_test peerchain: rank 0's bcast, waiting for live rank 1, fails for the dead rank $((n - 1)) of its communicator; of the $((n - 1)) survivors $failed failed, $by_slurm were ended by Slurm (exit $st, ${took} s)" $? "$out"

    # The last rank dies and the others call gdc_finalize at once: its closing barrier must
    # not wait for the dead rank for ever. Each survivor's gdc_finalize returns
    # GDC_ERR_PEER_FAILED (exit 3), or returns GDC_SUCCESS where Slurm's PMIx server
    # completed the fence without the dead rank (it sometimes does), or Slurm ends it; a
    # hang is srun's timeout, which gdc before 10dadfb met.
    t=$(date +%s.%N)
    timeout -k 5 60 "$launch" "$n" -- "$coll" peerfinalize >"$out" 2>&1 </dev/null
    st=$?
    took=$(elapsed "$t")
    echo "srun exit status $st after $took s" >>"$out"
    survivors=$(task_ends "$out" | grep -v "^$((n - 1)) ")
    failed=$(grep -c '^rank [0-9]*: finalize: a peer process failed$' "$out")
    completed=$(grep -c '^rank [0-9]*: finalize: survived$' "$out")
    by_slurm=$(echo "$survivors" | grep -Ec '^[0-9]+ (Killed|Terminated)$')
    [ "$st" != 0 ] && [ "$st" != 124 ] && awk -v t="$took" 'BEGIN{exit !(t < 20)}' &&
        ! echo "$survivors" | grep -Eq 'exit code [^3]' && [ $((failed + completed + by_slurm)) -ge $((n - 1)) ]
    tap_check "srun -N $nodes -n $n coll_test peerfinalize: gdc_finalize after rank $((n - 1)) died does not wait for it: of the $((n - 1)) survivors $failed got GDC_ERR_PEER_FAILED, $completed saw Slurm complete the fence, $by_slurm were ended by Slurm (exit $st, ${took} s)" $? "$out"
done

# ---------------------------------------------------------------------------------------
# gdrun inside an allocation: srun for more than one node, its options carried over.
timeout -k 5 60 salloc -N 2 -n 5 --overcommit "$gdrun" -v -n 5 "$probe" nodes >"$out" 2>&1 </dev/null
st=$?
[ "$st" = 0 ] && [ "$(grep -c '^nodes rank' "$out")" = 5 ] &&
    grep -q 'gdrun: launcher: Slurm (inside Slurm job [0-9]*, which spans 2 nodes): srun --mpi=pmix' "$out"
tap_check "salloc -N 2: gdrun -v -n 5 runs through srun, says so, gdc sees Slurm's 2 nodes" $? "$out"

GDC_LOG=info timeout -k 5 60 salloc -N 2 -n 5 --overcommit "$gdrun" --launcher local -n 3 "$gdrun_probe" hello \
    >"$out" 2>&1 </dev/null
st=$?
[ "$st" = 0 ] && grep -q "gdrun: launcher: local, gdrun's own PMIx server on this node (--launcher local)" "$out"
tap_check "salloc -N 2: gdrun --launcher local keeps the embedded PMIx server (GDC_LOG=info says so)" $? "$out"

timeout -k 5 60 salloc -N 1 -n 2 --overcommit "$gdrun" -v -n 2 "$gdrun_probe" hello >"$out" 2>&1 </dev/null
st=$?
[ "$st" = 0 ] && grep -q "gdrun: launcher: local.*(Slurm job [0-9]* has one node)" "$out"
tap_check "salloc -N 1: gdrun stays local" $? "$out"

# shellcheck disable=SC2016
timeout -k 5 60 salloc -N 2 -n 3 --overcommit "$gdrun" -n 3 --tag-output -x GDC_TEST_X=a,b=c -- sh -c 'echo "$GDC_TEST_X"' \
    >"$out" 2>&1 </dev/null
st=$?
[ "$st" = 0 ] && [ "$(grep -cE '^[0-2]: a,b=c$' "$out")" = 3 ]
tap_check "salloc -N 2: gdrun --tag-output -x NAME=a,b=c: srun's 'R: ' prefixes, the value whole" $? "$out"

printf 'one\ntwo\nthree\n' | timeout -k 5 60 salloc -N 2 -n 3 --overcommit "$gdrun" -n 3 "$gdrun_probe" stdin 3 >"$out" 2>&1
tap_check "salloc -N 2: gdrun's stdin goes to rank 0 only" $? "$out"

dir="$out.dir"
# shellcheck disable=SC2016
timeout -k 5 60 salloc -N 2 -n 3 --overcommit "$gdrun" -n 3 --output-dir "$dir" -- \
    sh -c 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2' >"$out" 2>&1 </dev/null
st=$?
ok=$st
for r in 0 1 2; do
    [ "$(cat "$dir/rank.$r.stdout" 2>/dev/null)" = "out $r" ] && [ "$(cat "$dir/rank.$r.stderr" 2>/dev/null)" = "err $r" ] || ok=1
done
tap_check "salloc -N 2: gdrun --output-dir writes rank.R.stdout and rank.R.stderr" "$ok" "$out"
rm -rf "$dir"

t=$(date +%s.%N)
timeout -k 5 60 salloc -N 2 -n 4 --overcommit "$gdrun" -n 4 --timeout 3 "$gdrun_probe" hang >"$out" 2>&1 </dev/null
st=$?
took=$(elapsed "$t")
[ "$st" = 124 ] && grep -q 'ran past --timeout 3 s; ending the Slurm step' "$out" && awk -v t="$took" 'BEGIN{exit !(t < 20)}'
tap_check "salloc -N 2: gdrun --timeout 3 ends the hung step, exit 124 (${took} s)" $? "$out"

t=$(date +%s.%N)
timeout -k 5 60 salloc -N 2 -n 4 --overcommit "$gdrun" -n 4 "$gdrun_probe" exit 2 7 >"$out" 2>&1 </dev/null
st=$?
took=$(elapsed "$t")
[ "$st" != 0 ] && [ "$st" != 124 ] && grep -q 'task 2: Exited with exit code 7' "$out" && awk -v t="$took" 'BEGIN{exit !(t < 20)}'
tap_check "salloc -N 2: a rank of gdrun's step exits 7, srun ends the others (exit $st, ${took} s)" $? "$out"

# ---------------------------------------------------------------------------------------
t=$(date +%s.%N)
stop_cluster
echo "# the cluster stopped in $(elapsed "$t") s"
left=""
for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qxF "GDC_LOCAL_SLURM=$GDC_SLURM_DIR" && left="$left $pid"
done
[ -z "$left" ] && [ ! -e "$GDC_SLURM_DIR" ]
tap_check "the cluster is stopped: no daemon or step of it left (pids:${left:- none}), its state removed" $?
echo "# the Slurm suite took $(($(date +%s) - began)) s"
tap_done
