/*
 * gdrun: start a gdc job on this node and own its life.
 *
 *   gdrun [options] [--] program [args...]
 *
 * gdrun hosts the job's PMIx server, starts the ranks, forwards their output and the
 * signals it receives, and ends the whole job on the first failure, saying which rank
 * failed and how. Inside a Slurm allocation of several nodes (or with --launcher slurm)
 * it hands the job to srun instead (gdrun_slurm.c). Its exit status is the job's: 0 when
 * every rank exited 0, else the first failure's (a rank's exit status, 128 + signal, 124
 * for --timeout, 127 for a program that cannot be executed, 2 for bad options).
 */
#include <stdlib.h>

#include "gdrun.h"

int main(int argc, char **argv)
{
    gdrun_options_t opt;
    char            why[256];
    int             status;

    gdrun_options_parse(&opt, argc, argv);
    if (gdrun_slurm_choose(&opt, why, sizeof(why)) == GDRUN_LAUNCHER_SLURM) {
        gdrun_job_t probe = {.opt = opt};

        /* Before gdrun changes anything of its own process that srun would inherit. */
        if (gdrun_procs_resolve_program(&probe) != 0) {
            return GDRUN_EXIT_NOEXEC;
        }
        free(probe.program);
        status = gdrun_slurm_run(&opt, why);
    } else {
        gdrun_info(&opt, "launcher: local, gdrun's own PMIx server on this node (%s)", why);
        status = gdrun_job_run(&opt);
    }
    gdrun_env_free(opt.env);
    return status;
}
