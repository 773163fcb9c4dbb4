# TAP helpers for the multi-process test scripts (sourced). Each case runs bounded in time;
# a failing case shows its output as TAP diagnostics.
#   tap_run NAME TIMEOUT CMD...   ok when CMD exits 0 within TIMEOUT seconds
#   tap_expect NAME STATUS TIMEOUT CMD...  ok when CMD exits with STATUS
#   tap_skip NAME REASON          tap_skip_all REASON
#   tap_check NAME CONDITION-EXIT-STATUS (0 = ok)   tap_done
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
