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
    tap_name=$1; tap_want=$2; tap_limit=$3; shift 3
    timeout -k 5 "$tap_limit" "$@" >"$tap_log" 2>&1 </dev/null
    tap_got=$?
    if [ "$tap_got" = "$tap_want" ]; then
        tap_result "$tap_name" 0
    else
        echo "exit status $tap_got, expected $tap_want (124: timed out after ${tap_limit}s)" >>"$tap_log"
        tap_result "$tap_name" 1 "$tap_log"
    fi
}

tap_run() {
    tap_run_name=$1; tap_run_limit=$2; shift 2
    tap_expect "$tap_run_name" 0 "$tap_run_limit" "$@"
}

# The GDC_<COLL>_ALGO=NAME settings of $2 that no "<coll> of ...: NAME" choice line of
# file $1 shows (GDC_LOG=info prints one per call shape); fails when there is one.
tap_forced_missing() {
    # sh has no local variables: every name here is tap_'s, so that no caller's changes
    tap_missing=""
    for tap_kv in $2; do
        case $tap_kv in
        GDC_*_ALGO=*)
            tap_coll=$(echo "${tap_kv%%=*}" | sed 's/^GDC_//; s/_ALGO$//' | tr 'A-Z' 'a-z')
            grep -Eq "info: $tap_coll of .*\): ${tap_kv#*=}( \(chosen in .*\))?\$" "$1" ||
                tap_missing="$tap_missing $tap_kv"
            ;;
        esac
    done
    [ -z "$tap_missing" ] && return 0
    echo "forced, but never chosen for a call:$tap_missing" >>"$1"
    return 1
}

tap_run_forced() {
    tap_name=$1; tap_limit=$2; tap_set=$3; shift 3
    timeout -k 5 "$tap_limit" "$@" >"$tap_log" 2>&1 </dev/null
    tap_got=$?
    if [ "$tap_got" = 0 ] && tap_forced_missing "$tap_log" "$tap_set"; then
        tap_result "$tap_name" 0
    else
        echo "exit status $tap_got (124: timed out after ${tap_limit}s)" >>"$tap_log"
        tap_result "$tap_name" 1 "$tap_log"
    fi
}

# Run a command under GDC_STAGING_HOST_TEST=1 and GDC_LOG=info: it must exit 0 and its ranks'
# closing count must say that messages went through the staging pipeline and bytes through
# its bounce buffers, not only whole.
tap_run_pipelined() {
    tap_name=$1; tap_limit=$2; shift 2
    timeout -k 5 "$tap_limit" "$@" >"$tap_log" 2>&1 </dev/null
    tap_got=$?
    if [ "$tap_got" = 0 ] && grep -Eq 'info: staging: [1-9][0-9]* messages pipelined in [0-9]+ chunks, [1-9][0-9]* bytes through the bounce' "$tap_log"; then
        tap_result "$tap_name" 0
    else
        echo "exit status $tap_got (124: timed out after ${tap_limit}s); a count of pipelined messages and bounced bytes expected" >>"$tap_log"
        tap_result "$tap_name" 1 "$tap_log"
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
