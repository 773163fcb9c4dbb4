#!/bin/sh
# gdrun's Slurm launcher without a cluster: a stand-in srun (GDRUN_SRUN) records the command
# line and environment it gets and behaves as told, so the translation of gdrun's options,
# the refusals, the automatic choice, exit codes, --timeout and signals are checked exactly
# on any machine. run-slurm.sh runs the same paths under a real Slurm.
. "${top_srcdir:-.}/tests/common/tap.sh"
gdrun=${top_builddir:-.}/launcher/gdrun
probe=${top_builddir:-.}/tests/launcher/gdrun_probe
work=$(mktemp -d "${TMPDIR:-/tmp}/gdc-gdrun-srun.XXXXXX") || exit 1
trap 'rm -rf "$work" "$tap_log"' EXIT
fake=$work/srun
log=$work/srun.log
out=$work/out

# The stand-in: one argument per line, then the variables asked for; FAKE_SRUN_EXIT is its
# status; FAKE_SRUN_HANG=1 makes it wait, logging each SIGINT, until the second one.
cat >"$fake" <<'EOF'
#!/bin/sh
{
    for a in "$@"; do echo "arg $a"; done
    echo "env GDC_T1=${GDC_T1-unset} GDC_T2=${GDC_T2-unset}"
} >"$FAKE_SRUN_LOG"
if [ "${FAKE_SRUN_HANG:-0}" = 1 ]; then
    ints=0
    trap 'ints=$((ints + 1)); echo "SIGINT $ints" >>"$FAKE_SRUN_LOG"; [ $ints -ge 2 ] && exit 0' INT
    echo ready >>"$FAKE_SRUN_LOG"
    while :; do sleep 0.05; done
fi
exit "${FAKE_SRUN_EXIT:-0}"
EOF
chmod +x "$fake"
export GDRUN_SRUN="$fake" FAKE_SRUN_LOG="$log"
# Not inside an allocation, whatever the caller's environment says.
unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NUM_NODES SLURM_NNODES SLURM_STEP_ID GDC_LOG

args() { grep '^arg ' "$log" | sed 's/^arg //' | tr '\n' '|'; }

# Every option that has an srun counterpart.
rm -f "$log"
timeout -k 5 30 "$gdrun" --launcher slurm -n 4 -x GDC_T1=1 -x GDC_T2=x,y=z --tag-output --output-dir "$work/o%d" \
    --bind-to none -- "$probe" hello "two words" >"$out" 2>&1
st=$?
want="--mpi=pmix|--export=ALL|--kill-on-bad-exit=1|--input=0|--ntasks=4|--label|--output=$work/o%%d/rank.%t.stdout|--error=$work/o%%d/rank.%t.stderr|--|$probe|hello|two words|"
[ "$st" = 0 ] && [ "$(args)" = "$want" ] && grep -qx 'env GDC_T1=1 GDC_T2=x,y=z' "$log" && [ -d "$work/o%d" ]
tap_check "--launcher slurm: -n, -x (a value with commas), --tag-output, --output-dir (made, absolute, % doubled) become srun's" \
    $? "$log"

rm -f "$log"
timeout -k 5 30 "$gdrun" --launcher slurm "$probe" hello >"$out" 2>&1
st=$?
[ "$st" = 0 ] && [ "$(args)" = "--mpi=pmix|--export=ALL|--kill-on-bad-exit=1|--input=0|--|$probe|hello|" ]
tap_check "--launcher slurm without -n: srun's own task count" $? "$log"

# Options srun has no counterpart of, and bad values.
refuse() { # NAME MESSAGE-PART ARGS...
    name=$1; what=$2; shift 2
    rm -f "$log"
    timeout -k 5 30 "$gdrun" "$@" "$probe" hello >"$out" 2>&1
    st=$?
    [ "$st" = 2 ] && grep -q -- "$what" "$out" && [ ! -f "$log" ]
    tap_check "$name: exit 2, says why, srun not run" $? "$out"
}
refuse "--launcher slurm --bind-to core" "no equivalent of --bind-to" --launcher slurm -n 2 --bind-to core
refuse "--launcher slurm --report-bindings" "no equivalent of --report-bindings" --launcher slurm -n 2 --report-bindings
refuse "--launcher slurm --emulate-nodes 2" "no equivalent of --emulate-nodes" --launcher slurm -n 2 --emulate-nodes 2
refuse "--launcher mpi" "--launcher: 'mpi' is not one of auto, local, slurm" --launcher mpi

# Exit codes.
FAKE_SRUN_EXIT=7 timeout -k 5 30 "$gdrun" --launcher slurm -n 2 "$probe" hello >"$out" 2>&1
st=$?
[ "$st" = 7 ]
tap_check "srun's exit status is gdrun's (7)" $? "$out"
GDRUN_SRUN=$work/no-such-srun timeout -k 5 30 "$gdrun" --launcher slurm -n 2 "$probe" hello >"$out" 2>&1
st=$?
[ "$st" = 127 ] && grep -q "cannot execute $work/no-such-srun" "$out"
tap_check "no srun to execute: exit 127, named" $? "$out"
rm -f "$log"
timeout -k 5 30 "$gdrun" --launcher slurm -n 2 "$work/no-such-program" >"$out" 2>&1
st=$?
[ "$st" = 127 ] && grep -q "cannot execute $work/no-such-program" "$out" && [ ! -f "$log" ]
tap_check "a program that cannot be executed: exit 127 before srun starts" $? "$out"

# --timeout and signals end the step as srun's double Ctrl-C does.
rm -f "$log"
FAKE_SRUN_HANG=1 timeout -k 5 30 "$gdrun" --launcher slurm -n 2 --timeout 1 "$probe" hello >"$out" 2>&1
st=$?
[ "$st" = 124 ] && grep -q 'ran past --timeout 1 s; ending the Slurm step' "$out" && grep -qx 'SIGINT 2' "$log"
tap_check "--timeout 1: two SIGINTs to srun, exit 124" $? "$log"

rm -f "$log"
FAKE_SRUN_HANG=1 "$gdrun" --launcher slurm -n 2 "$probe" hello >"$out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q ready "$log" 2>/dev/null && break; sleep 0.05; done
kill -TERM "$pid" 2>/dev/null
# Not under timeout(1), which signals its whole process group: bounded by hand.
for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
st=$?
[ "$st" = 143 ] && grep -q 'received SIGTERM; ending the Slurm step' "$out" && grep -qx 'SIGINT 2' "$log"
tap_check "SIGTERM to gdrun: two SIGINTs to srun, exit 143" $? "$log"

# The automatic choice, said at info level.
rm -f "$log"
SLURM_JOB_ID=42 SLURM_JOB_NUM_NODES=3 timeout -k 5 30 "$gdrun" -v -n 2 "$probe" hello >"$out" 2>&1
st=$?
[ "$st" = 0 ] && [ -f "$log" ] && grep -q 'launcher: Slurm (inside Slurm job 42, which spans 3 nodes): .*srun --mpi=pmix' "$out"
tap_check "SLURM_JOB_ID with 3 nodes: srun, and -v says why" $? "$out"
rm -f "$log"
SLURM_JOB_ID=42 SLURM_NNODES=2 GDC_LOG=info timeout -k 5 30 "$gdrun" -n 2 "$probe" hello >"$out" 2>&1
st=$?
[ "$st" = 0 ] && [ -f "$log" ] && grep -q 'launcher: Slurm (inside Slurm job 42, which spans 2 nodes)' "$out"
tap_check "SLURM_JOB_ID with SLURM_NNODES=2: srun, and GDC_LOG=info says why" $? "$out"
for case in "SLURM_JOB_NUM_NODES=1|Slurm job 42 has one node" \
            "SLURM_JOB_NUM_NODES=2 SLURM_STEP_ID=3|gdrun is a task of Slurm step 42.3" \
            "SLURM_JOB_NUM_NODES=2 GDRUN_LAUNCHER_ARG=--launcher=local|--launcher local"; do
    vars=${case%|*}; why=${case#*|}
    rm -f "$log"
    # shellcheck disable=SC2086
    env SLURM_JOB_ID=42 $vars sh -c 'exec timeout -k 5 30 "$0" -v ${GDRUN_LAUNCHER_ARG:-} -n 2 "$1" hello' "$gdrun" "$probe" \
        >"$out" 2>&1
    st=$?
    [ "$st" = 0 ] && [ ! -f "$log" ] && grep -qF "launcher: local, gdrun's own PMIx server on this node ($why" "$out"
    tap_check "$vars: gdrun's own launcher ($why)" $? "$out"
done
tap_done
