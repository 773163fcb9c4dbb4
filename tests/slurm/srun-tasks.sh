# Sourced by the Slurm tests: how srun says each task ended.
#   task_ends FILE   one line "TASK HOW" per task srun names in FILE
#                    ("srun: error: n2: tasks 6-8,10: Exited with exit code 3",
#                     "...: task 5: Killed")
task_ends() {
    sed -nE 's/^srun: error: [^:]+: tasks? ([0-9,-]+): (.*)$/\1 \2/p' "$1" |
        awk '{ how = $0; sub(/^[^ ]+ /, "", how); n = split($1, parts, ",")
               for (i = 1; i <= n; i++) { m = split(parts[i], ab, "-"); hi = m > 1 ? ab[2] : ab[1]
                                           for (t = ab[1]; t <= hi; t++) print t, how } }'
}
