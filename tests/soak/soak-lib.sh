# Shared by the soak and fault scripts (sourced after tests/common/tap.sh and
# tests/launcher/gdrun-lib.sh, whose private TMPDIR, marker, start_bg and nothing_left
# they use).
#   shm_left PREFIX        names in /dev/shm starting with PREFIX (one line, may be empty)
#   all_gone SEC PREFIX    0 once nothing_left holds and /dev/shm has no PREFIX* entry
#                          (waits up to SEC s); else says what is left in $work/err
#   gdrun_shm PID          the /dev/shm prefix of the segments of the job of gdrun PID
#   field REGEX            the first number after REGEX in the first matching line of
#                          $work/out and $work/err (a summary figure), or 0
#   random_in LO HI        a random integer in [LO, HI] (POSIX sh has no $RANDOM)
soak=$builddir/tests/soak/soak

gdrun_shm() { echo "gdc-gdrun_$1-"; }

shm_left() {
    ls -A /dev/shm 2>/dev/null | grep -- "^$1" | tr '\n' ' '
}

all_gone() {
    nothing_left "$1" || return 1
    i=0
    while [ -n "$(shm_left "$2")" ]; do
        if [ "$i" -ge $(($1 * 10)) ]; then
            echo "left behind in /dev/shm after ${1}s: $(shm_left "$2")" >>"$work/err"
            for f in $(shm_left "$2"); do rm -f "/dev/shm/$f"; done
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 0
}

field() {
    v=$(cat "$work/out" "$work/err" | grep -E -m 1 -- "$1" | sed -E "s/.*$1//; s/[^0-9].*//")
    echo "${v:-0}"
}

random_in() {
    v=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    echo $(($1 + v % ($2 - $1 + 1)))
}
