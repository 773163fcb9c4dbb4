# TAP helpers for the multi-process test scripts (sourced). Each case runs bounded in time;
# a failing case shows its output as TAP diagnostics.
#   tap_run NAME TIMEOUT CMD...   ok when CMD exits 0 within TIMEOUT seconds
#   tap_expect NAME STATUS TIMEOUT CMD...  ok when CMD exits with STATUS
#   tap_skip NAME REASON          tap_skip_all REASON
#   tap_check NAME CONDITION-EXIT-STATUS (0 = ok)   tap_done
#   tap_run_forced NAME TIMEOUT SET CMD...  tap_run, and every GDC_<COLL>_ALGO=NAME of SET
#                                 must show in a choice line of CMD's output (run it with
#                                 GDC_LOG=info): a forced algorithm that never ran fails
tap_n=0
tap_failed=0
tap_log=${TMPDIR:-/tmp}/gdc-tap.$$
trap 'rm -f "$tap_log"' EXIT

tap_result() { # name status(0=ok) [diagnostic file]
    tap_n=$((tap_n + 1))
    if [ "$2" = 0 ]; then
        echo "ok $tap_n - $1"
    else
        echo "not ok $tap_n - $1"
        tap_failed=$((tap_failed + 1))
        if [ -n "${3:-}" ] && [ -f "$3" ]; then
            tail -n 40 "$3" | sed 's/^/# /'
        fi
    fi
}

tap_expect() {
    name=$1; want=$2; limit=$3; shift 3
    timeout -k 5 "$limit" "$@" >"$tap_log" 2>&1 </dev/null
    got=$?
    if [ "$got" = "$want" ]; then
        tap_result "$name" 0
    else
        echo "exit status $got, expected $want (124: timed out after ${limit}s)" >>"$tap_log"
        tap_result "$name" 1 "$tap_log"
    fi
}

tap_run() {
    name=$1; limit=$2; shift 2
    tap_expect "$name" 0 "$limit" "$@"
}

# The GDC_<COLL>_ALGO=NAME settings of $2 that no "<coll> of ...: NAME" choice line of
# file $1 shows (GDC_LOG=info prints one per call shape); fails when there is one.
tap_forced_missing() {
    missing=""
    for kv in $2; do
        case $kv in
        GDC_*_ALGO=*)
            coll=$(echo "${kv%%=*}" | sed 's/^GDC_//; s/_ALGO$//' | tr 'A-Z' 'a-z')
            grep -q "info: $coll of .*): ${kv#*=} (chosen in " "$1" || missing="$missing $kv"
            ;;
        esac
    done
    [ -z "$missing" ] && return 0
    echo "forced, but never chosen for a call:$missing" >>"$1"
    return 1
}

tap_run_forced() {
    name=$1; limit=$2; set=$3; shift 3
    timeout -k 5 "$limit" "$@" >"$tap_log" 2>&1 </dev/null
    got=$?
    if [ "$got" = 0 ] && tap_forced_missing "$tap_log" "$set"; then
        tap_result "$name" 0
    else
        echo "exit status $got (124: timed out after ${limit}s)" >>"$tap_log"
        tap_result "$name" 1 "$tap_log"
    fi
}

tap_check() {
    tap_result "$1" "$2" "${3:-}"
}

tap_skip() {
    tap_n=$((tap_n + 1))
    echo "ok $tap_n - $1 # SKIP $2"
}

tap_skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

tap_done() {
    echo "1..$tap_n"
    [ "$tap_failed" = 0 ]
}
