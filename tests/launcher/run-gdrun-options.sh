#!/bin/sh
# gdrun's options and what the ranks get: --help, --version, bad options, -x, the GDRUN_*
# variables, working directory, stdin, output forwarding (tagged and not, heavy and
# concurrent, long lines, --output-dir), --bind-to, --emulate-nodes.
. "${top_srcdir:-.}/tests/common/tap.sh"
. "${top_srcdir:-.}/tests/launcher/gdrun-lib.sh"

ok_if() { # NAME: the result of the last command
    verdict "$1" "$?"
}

# --help and --version
run 10 "$gdrun" --help
missing=""
for opt in "-n, --np" "-x NAME" "--tag-output" "--output-dir" "--timeout" "--bind-to" "--report-bindings" \
    "--emulate-nodes" "--version" "--help" "  --  "; do
    grep -q -- "$opt" "$work/out" || missing="$missing '$opt'"
done
[ "$rc" = 0 ] && [ -z "$missing" ]
ok_if "--help exits 0 and documents every option${missing:+ (missing:$missing)}"
run 10 "$gdrun" --version
[ "$rc" = 0 ] && grep -q '^gdrun (gdc) ' "$work/out" && grep -q 'PMIx' "$work/out"
ok_if "--version exits 0 and names gdrun's and PMIx's versions"

# Bad options: a message naming the problem, the usage hint, status 2, nothing started.
bad() { # NAME REGEX ARGS...
    name=$1 regex=$2
    shift 2
    run 10 "$gdrun" "$@"
    [ "$rc" = 2 ] && grep -Eq -- "^gdrun: $regex" "$work/err" && grep -q "Try 'gdrun --help'" "$work/err" &&
        nothing_left 0
    ok_if "bad options: $name -> status 2"
}
bad "unknown long option" "unknown option '--bogus'" --bogus "$probe" hello "$marker"
bad "unknown short option" "unknown option '-q'" -q "$probe" hello "$marker"
bad "a value for an option that takes none" "option '--help' takes no value" --help=1 "$probe" hello "$marker"
bad "-n without a value" "option '-n' needs a value" -n
bad "-n 0" "-n: '0' is not a whole number" -n 0 "$probe" hello "$marker"
bad "-n abc" "-n: 'abc' is not a whole number" -n abc "$probe" hello "$marker"
bad "-n 99999" "-n: '99999' is not a whole number from 1 to 4096" -n 99999 "$probe" hello "$marker"
bad "--timeout 0" "--timeout: '0' is not a positive number" --timeout 0 "$probe" hello "$marker"
bad "--timeout soon" "--timeout: 'soon'" --timeout soon "$probe" hello "$marker"
bad "--bind-to socket" "--bind-to: 'socket' is not one of auto, none, core, numa" --bind-to socket "$probe" hello "$marker"
bad "-x with a bad name" "-x 1X=y: not a valid variable name" -x 1X=y "$probe" hello "$marker"
bad "--emulate-nodes more than ranks" "--emulate-nodes 3: more nodes than ranks" -n 2 --emulate-nodes 3 \
    "$probe" hello "$marker"
bad "no program" "no program to run" -n 2

# Options end at the program (its options are its own), or at --; mpirun's -np works.
run 10 "$gdrun" -n 2 sh -c 'echo "args: $*"' sh -n 5 --tag-output
[ "$rc" = 0 ] && [ "$(grep -c '^args: -n 5 --tag-output$' "$work/out")" = 2 ]
ok_if "the program's own options are passed on untouched"
run 10 "$gdrun" -n 2 -- sh -c 'echo "args: $*"' sh -x
[ "$rc" = 0 ] && [ "$(grep -c '^args: -x$' "$work/out")" = 2 ]
ok_if "-- ends gdrun's options"
run 10 "$gdrun" -np 3 sh -c 'echo "rank $GDRUN_RANK"'
[ "$rc" = 0 ] && [ "$(sort "$work/out" | tr '\n' ' ')" = "rank 0 rank 1 rank 2 " ]
ok_if "-np 3 (mpirun's spelling) starts 3 ranks"

# The ranks' environment.
GDRUN_TEST_INHERITED=inherited GDRUN_TEST_OVERRIDE=old GDRUN_TEST_PASSED=passed
export GDRUN_TEST_INHERITED GDRUN_TEST_OVERRIDE GDRUN_TEST_PASSED
run 30 "$gdrun" -n 3 -x GDRUN_TEST_SET=value "$probe" env GDRUN_TEST_SET value "$marker"
[ "$rc" = 0 ]
ok_if "-x NAME=VALUE reaches every rank"
run 30 "$gdrun" -n 3 -x GDRUN_TEST_OVERRIDE=new "$probe" env GDRUN_TEST_OVERRIDE new "$marker"
[ "$rc" = 0 ]
ok_if "-x NAME=VALUE overrides gdrun's own value"
run 30 "$gdrun" -n 2 -x "GDRUN_TEST_ODD=a=b c" "$probe" env GDRUN_TEST_ODD "a=b c" "$marker"
[ "$rc" = 0 ]
ok_if "-x keeps '=' and spaces in the value"
run 30 "$gdrun" -n 2 -x GDRUN_TEST_PASSED -x GDRUN_TEST_A=1 -x GDRUN_TEST_B=2 "$probe" env GDRUN_TEST_PASSED passed \
    "$marker"
[ "$rc" = 0 ]
ok_if "-x NAME passes gdrun's value on; -x repeats"
run 30 "$gdrun" -n 2 -x GDRUN_TEST_UNSET_$$ true
[ "$rc" = 0 ] && grep -q "warning: -x GDRUN_TEST_UNSET_$$: GDRUN_TEST_UNSET_$$ is not set" "$work/err"
ok_if "-x NAME of an unset variable: a warning, and the job runs"
run 30 "$gdrun" -n 2 "$probe" env GDRUN_TEST_INHERITED inherited "$marker"
[ "$rc" = 0 ]
ok_if "the ranks inherit gdrun's environment"
run 30 "$gdrun" -n 3 sh -c 'echo "$GDRUN_RANK $GDRUN_SIZE $GDRUN_LOCAL_RANK $GDRUN_LOCAL_SIZE $GDRUN_NODE_ID $GDRUN_JOBID"'
[ "$rc" = 0 ] && [ "$(sort "$work/out" | cut -d' ' -f1-5 | tr '\n' ,)" = "0 3 0 3 0,1 3 1 3 0,2 3 2 3 0," ] &&
    [ "$(cut -d' ' -f6 "$work/out" | sort -u | grep -c '^gdrun\.[0-9][0-9]*$')" = 1 ]
ok_if "GDRUN_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE, _NODE_ID and one GDRUN_JOBID in every rank"
mkdir -p "$work/cwd"
(cd "$work/cwd" && run 30 "$gdrun" -n 2 sh -c 'pwd -P' && [ "$rc" = 0 ] &&
    [ "$(sort -u "$work/out")" = "$(pwd -P)" ] && [ "$(wc -l <"$work/out")" = 2 ])
ok_if "the ranks run in gdrun's working directory"

# stdin: to rank 0 only (the others read EOF at once), from a pipe or a file.
seq 1 500 >"$work/input"
run 30 sh -c '"$1" -n 3 "$2" stdin 500 "$3" <"$4"' sh "$gdrun" "$probe" "$marker" "$work/input"
[ "$rc" = 0 ]
ok_if "stdin from a file goes to rank 0 only"
run 30 sh -c 'seq 1 77 | "$1" -n 3 "$2" stdin 77 "$3"' sh "$gdrun" "$probe" "$marker"
[ "$rc" = 0 ]
ok_if "stdin from a pipe goes to rank 0 only"

# From a terminal, gdrun reads stdin and forwards it to rank 0 (a rank, in its own process
# group, may not read the terminal). script(1) gives gdrun a terminal.
if command -v script >/dev/null 2>&1; then
    printf 'one\ntwo\nthree\n' >"$work/typed"
    run 30 sh -c 'script -qec "$1" /dev/null <"$2"' sh "$gdrun -v -n 2 $probe stdin 3 $marker" "$work/typed"
    [ "$rc" = 0 ] && grep -q 'stdin: forwarding the terminal to rank 0' "$work/out"
    ok_if "stdin from a terminal is forwarded to rank 0 only"
else
    tap_skip "stdin from a terminal is forwarded to rank 0 only" "script(1) not found (util-linux)"
fi

# -v tells what the PMIx server saw of each rank.
run 30 "$gdrun" -v -n 2 "$probe" hello "$marker"
[ "$rc" = 0 ] && grep -q '^gdrun: \[verbose\] PMIx .* server up' "$work/err" &&
    [ "$(grep -Ec '^gdrun: \[verbose\] rank [01] (connected|finalized)$' "$work/err")" = 4 ]
ok_if "-v: the server's start, and each rank's connection and finalize"

# Output: heavy, concurrent, every line written in pieces by the ranks. No line may be
# mixed with another, none lost, each rank's in order; stdout and stderr kept apart.
# check_lines FILE STREAM NRANKS LINES LEN TAGGED
check_lines() {
    awk -v stream="$2" -v nranks="$3" -v lines="$4" -v len="$5" -v tagged="$6" '
        {
            f = tagged ? 2 : 1
            if (tagged && $1 != "[" $(f + 1) "]") { bad++; next }
            if (NF != f + 3 || $f != stream || $(f + 1) !~ /^[0-9]+$/ || $(f + 3) !~ /^x+$/ ||
                length($0) != len + (tagged ? length($1) + 1 : 0) - 1) { bad++; next }
            r = $(f + 1)
            if ($(f + 2) != next_line[r] + 0) { bad++; next }
            next_line[r]++
        }
        END {
            for (r = 0; r < nranks; r++) if (next_line[r] != lines) missing++
            if (bad || missing) {
                printf "%d malformed or out-of-order lines, %d ranks with lines missing\n", bad, missing
                exit 1
            }
        }' "$1" >>"$work/err"
}
run 120 "$gdrun" -n 8 --tag-output "$probe" output 2000 200 "$marker"
[ "$rc" = 0 ] && check_lines "$work/out" out 8 2000 200 1 && check_lines "$work/err" err 8 2000 200 1
ok_if "--tag-output, 8 ranks x 2000 lines on stdout and stderr: every line whole, tagged, counted, in order"
run 120 "$gdrun" -n 8 "$probe" output 2000 200 "$marker"
[ "$rc" = 0 ] && check_lines "$work/out" out 8 2000 200 0 && check_lines "$work/err" err 8 2000 200 0
ok_if "untagged, 8 ranks x 2000 lines: no line mixed with another, none lost"
run 120 "$gdrun" -n 4 --tag-output "$probe" output 20 300000 "$marker"
[ "$rc" = 0 ] && check_lines "$work/out" out 4 20 300000 1 && check_lines "$work/err" err 4 20 300000 1
ok_if "lines of 300 kB (longer than a pipe) stay whole"
run 30 "$gdrun" -n 2 --tag-output sh -c 'printf "no newline at the end"'
[ "$rc" = 0 ] && [ "$(sort "$work/out" | tr '\n' '|')" = "[0] no newline at the end|[1] no newline at the end|" ]
ok_if "--tag-output ends a last line that had no newline"
run 30 "$gdrun" -n 3 --output-dir "$work/outdir/a" "$probe" output 50 100 "$marker"
ok=$rc
for r in 0 1 2; do
    for s in stdout stderr; do
        f="$work/outdir/a/rank.$r.$s"
        st=$( [ "$s" = stdout ] && echo out || echo err)
        [ -f "$f" ] && [ "$(wc -l <"$f")" = 50 ] && [ "$(grep -c "^$st $r [0-9]* x*\$" "$f")" = 50 ] || ok=1
    done
done
[ "$ok" = 0 ] && [ ! -s "$work/out" ] && [ ! -s "$work/err" ]
ok_if "--output-dir: one file per rank and stream, 50 lines each, nothing on gdrun's own output"
run 10 "$gdrun" -n 2 --output-dir /proc/no-such-dir/x true
[ "$rc" = 1 ] && grep -q "^gdrun: --output-dir /proc/no-such-dir/x: cannot create it" "$work/err" && nothing_left 0
ok_if "--output-dir that cannot be created: a clear error, status 1"

# --bind-to: each rank runs exactly where --report-bindings says, and PMIx has its
# locality string; unbound ranks have none.
check_binding() { # NP WHAT
    run 30 "$gdrun" -n "$1" --bind-to "$2" --report-bindings "$probe" binding "$marker"
    [ "$rc" = 0 ] || return 1
    [ "$(grep -c '^gdrun: rank [0-9]* (node [^)]*) bound to ' "$work/err")" = "$1" ] || return 1
    r=0
    while [ "$r" -lt "$1" ]; do
        want=$(sed -n "s/^gdrun: rank $r (node [^)]*) bound to .*: cpus \\(.*\\)\$/\\1/p" "$work/err")
        got=$(sed -n "s/^binding $r cpus \\([^ ]*\\) locality .*/\\1/p" "$work/out")
        [ -n "$want" ] && [ "$want" = "$got" ] || { echo "rank $r: bound to '$got', reported '$want'" >>"$work/err"; return 1; }
        grep -q "^binding $r cpus [^ ]* locality none\$" "$work/out" && return 1
        r=$((r + 1))
    done
    return 0
}
cores=$(grep -c ^processor /proc/cpuinfo)
check_binding 2 core
ok_if "--bind-to core --report-bindings, 2 ranks: each runs where reported, with a locality string"
check_binding $((cores + 1)) core
ok_if "--bind-to core with more ranks than cores ($((cores + 1)) on $cores): they share, as reported"
check_binding 2 numa
ok_if "--bind-to numa, 2 ranks"
run 30 "$gdrun" -n 2 --bind-to none "$probe" binding "$marker"
[ "$rc" = 0 ] && [ "$(grep -c 'locality none$' "$work/out")" = 2 ]
ok_if "--bind-to none: no locality string"
# auto (the default): bound to cores where the ranks outnumber them, as core does; else
# unbound, and unbound where gdrun itself is bound to part of the machine
check_binding $((cores + 1)) auto
ok_if "--bind-to auto with more ranks than cores ($((cores + 1)) on $cores): each bound, as reported"
run 30 "$gdrun" -n $((cores + 1)) --report-bindings "$probe" binding "$marker"
[ "$rc" = 0 ] && [ "$(grep -c '^gdrun: rank [0-9]* (node [^)]*) bound to core ' "$work/err")" = $((cores + 1)) ]
ok_if "no --bind-to is auto: $((cores + 1)) ranks on $cores cores bound"
run 30 "$gdrun" -n 1 --report-bindings "$probe" binding "$marker"
[ "$rc" = 0 ] && grep -q 'locality none$' "$work/out" &&
    grep -q '^gdrun: rank 0 (node [^)]*) not bound (--bind-to auto' "$work/err"
ok_if "--bind-to auto, no more ranks than cores: unbound, no locality string"
run 30 taskset -c 0 "$gdrun" -n $((cores + 1)) --report-bindings "$probe" binding "$marker"
[ "$rc" = 0 ] && [ "$(grep -c 'locality none$' "$work/out")" = $((cores + 1)) ] &&
    [ "$(grep -c '^gdrun: rank [0-9]* (node [^)]*) not bound (--bind-to auto' "$work/err")" = $((cores + 1)) ]
ok_if "--bind-to auto under taskset -c 0: the ranks keep to gdrun's cpu, unbound"

# --emulate-nodes: what PMIx and gdc_rt_boot tell each rank (node id, host name, local
# rank/size/peers, the number of nodes) matches the block distribution.
for case in "5 2" "8 3" "4 4" "7 1" "1 1" "16 5"; do
    set -- $case
    run 60 "$gdrun" -n "$1" --emulate-nodes "$2" "$probe" layout "$2" "$marker"
    [ "$rc" = 0 ] && [ "$(grep -c '^layout rank' "$work/out")" = "$1" ]
    ok_if "--emulate-nodes $2 with $1 ranks: gdc and PMIx see $2 node(s), blocks of consecutive ranks"
done
run 60 "$gdrun" -n 5 --emulate-nodes 2 "$probe" layout 2 "$marker"
[ "$rc" = 0 ] && [ "$(grep -c '^layout rank [0-2]: node 0 ([^ ]*-n0) local rank [0-2] of 3, peers 0,1,2$' "$work/out")" = 3 ] &&
    [ "$(grep -c '^layout rank [34]: node 1 ([^ ]*-n1) local rank [01] of 2, peers 3,4$' "$work/out")" = 2 ]
ok_if "-n 5 --emulate-nodes 2: nodes <host>-n0 (ranks 0-2) and <host>-n1 (ranks 3-4)"
run 60 "$gdrun" -n 4 "$probe" layout 1 "$marker"
[ "$rc" = 0 ] && [ "$(grep -c "^layout rank [0-3]: node 0 ($(hostname -s)) local rank [0-3] of 4, peers 0,1,2,3\$" "$work/out")" = 4 ]
ok_if "without --emulate-nodes: one node, this host's name"

tap_done
