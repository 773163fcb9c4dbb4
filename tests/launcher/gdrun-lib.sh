# Shared by gdrun's test scripts (sourced after tests/common/tap.sh).
#
# Every job runs with TMPDIR set to a private, empty directory, so that what gdrun or PMIx
# leave behind is counted exactly; every rank gets "$marker" among its arguments, so that
# leftover processes are found with pgrep -f.
#   run LIMIT CMD...       run CMD (stdin /dev/null) with a time limit; sets rc and secs;
#                          output in $work/out and $work/err
#   start_bg CMD...        run CMD in the background ($bg), output as above
#   wait_for N REGEX SEC [FILE]
#                          wait until $work/out (or FILE) has N lines matching REGEX (ERE)
#   finish_bg SEC          wait for $bg (SIGKILL after SEC s); sets rc
#   nothing_left SEC       0 once no process has the marker and TMPDIR is empty (waits up to SEC s)
#   verdict NAME STATUS    TAP result (STATUS 0 = ok); a failure shows the last job's output
#   job_ends NAME STATUS REGEX LIMIT CMD...
#                          ok when CMD exits with STATUS, its stderr matches REGEX (ERE),
#                          and it left nothing behind
builddir=$(cd "${top_builddir:-.}" && pwd) || exit 1
gdrun=$builddir/launcher/gdrun
probe=$builddir/tests/launcher/gdrun_probe
work=$(mktemp -d "${TMPDIR:-/tmp}/gdrun-test.XXXXXX") || exit 1
mkdir "$work/tmp" || exit 1
TMPDIR=$work/tmp
export TMPDIR
marker=gdrun-test-$$-marker
rc=0
secs=0
bg=

# Processes of this test that are still there (found by the marker), ended by pid.
kill_leftovers() {
    for p in $(pgrep -f -- "$marker"); do
        kill -KILL "$p" 2>/dev/null
    done
}

cleanup() {
    [ -n "$bg" ] && kill -KILL "$bg" 2>/dev/null
    kill_leftovers
    rm -rf "$work" "$tap_log"
}
trap cleanup EXIT

now_ns() { date +%s%N; }
elapsed() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

run() {
    limit=$1
    shift
    t0=$(now_ns)
    timeout -k 5 "$limit" "$@" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    secs=$(elapsed "$t0")
}

start_bg() {
    t0=$(now_ns)
    # Emptied here, not by the background shell: wait_for must not read the last job's.
    : >"$work/out"
    : >"$work/err"
    "$@" >>"$work/out" 2>>"$work/err" </dev/null &
    bg=$!
}

# A finished child stays a zombie until waited for: alive means not a zombie.
bg_alive() {
    [ -r "/proc/$bg/stat" ] && ! sed 's/^[0-9]* (.*) //' "/proc/$bg/stat" 2>/dev/null | grep -q '^Z'
}

wait_for() {
    i=0
    while [ "$(grep -Ec -- "$2" "${4:-$work/out}")" -lt "$1" ]; do
        [ "$i" -ge $(($3 * 10)) ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 0
}

finish_bg() {
    i=0
    while bg_alive && [ "$i" -lt $(($1 * 10)) ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$bg" 2>/dev/null
    wait "$bg" 2>/dev/null # dash reports a killed job ("Killed") on stderr
    rc=$?
    bg=
    secs=$(elapsed "$t0")
}

nothing_left() {
    i=0
    while :; do
        procs=$(pgrep -f -- "$marker" | tr '\n' ' ')
        files=$(ls -A "$TMPDIR" | tr '\n' ' ')
        if [ -z "$procs" ] && [ -z "$files" ]; then
            return 0
        fi
        if [ "$i" -ge $(($1 * 10)) ]; then
            echo "left behind after ${1}s: processes [$procs] files in TMPDIR [$files]" >>"$work/err"
            [ -n "$procs" ] && ps -o pid,ppid,pgid,stat,args -p "$(echo $procs | tr ' ' ',')" >>"$work/err"
            kill_leftovers
            rm -rf "${TMPDIR:?}"/* 2>/dev/null
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
}

verdict() {
    if [ "$2" = 0 ]; then
        tap_result "$1" 0
    else
        {
            echo "exit status $rc after ${secs}s"
            echo "--- stdout (last lines)"
            tail -n 12 "$work/out"
            echo "--- stderr (last lines)"
            tail -n 12 "$work/err"
        } >"$work/diag" 2>&1
        tap_result "$1" 1 "$work/diag"
    fi
}

job_ends() {
    name=$1 want=$2 regex=$3 limit=$4
    shift 4
    run "$limit" "$@"
    ok=1
    if [ "$rc" = "$want" ] && grep -Eq -- "$regex" "$work/err" && nothing_left 2; then
        ok=0
    fi
    verdict "$name" "$ok"
}
