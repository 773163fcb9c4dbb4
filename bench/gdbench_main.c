/*
 * gdbench's main: options, backend start, the checks every rank agrees on, the run, the
 * JSON and SVG files, the exit status (0 ok, 1 failed, 2 usage, 3 unsupported).
 */
#include "gdbench.h"
#include "gdbench_backend.h"

#include <stdlib.h>
#include <string.h>

/*
 * A condition each rank finds on its own (no GPU, an unsupported datatype): every rank
 * learns the worst status, and the lowest rank that saw it says why, once.
 */
static int agree(int status, int rank, int nranks)
{
    double worst[2] = {status == GDBENCH_OK ? 0.0 : status == GDBENCH_UNSUPPORTED ? 1.0 : 2.0, 0.0};
    double first    = status == GDBENCH_OK ? (double)nranks : (double)rank;
    char   reason[512];

    /* keep the reason: the reductions below may record their own notes */
    snprintf(reason, sizeof(reason), "%s", gdbench_error());

    if (gdbench_be_reduce_doubles(worst, 1, GDBENCH_STAT_MAX) != GDBENCH_OK ||
        gdbench_be_reduce_doubles(&first, 1, GDBENCH_STAT_MIN) != GDBENCH_OK) {
        fprintf(stderr, "%s: rank %d: cannot agree with the other ranks: %s\n", gdbench_be_program(), rank,
                gdbench_error());
        gdbench_be_abort(GDBENCH_EXIT_FAILED);
    }
    if ((int)first == rank && status != GDBENCH_OK) {
        fprintf(stderr, "%s: %s\n", gdbench_be_program(), reason);
    }
    return worst[0] == 0.0 ? GDBENCH_EXIT_OK : worst[0] == 1.0 ? GDBENCH_EXIT_UNSUPPORTED : GDBENCH_EXIT_FAILED;
}

static int check_job(const gdbench_options_t *opts, int nranks)
{
    const gdbench_test_info_t *info = gdbench_test_info(opts->test);

    if ((info->flags & GDBENCH_F_P2P) && nranks != 2) {
        gdbench_set_error("%s needs exactly 2 ranks, this job has %d (e.g. %s -n 2 %s %s)", info->name, nranks,
                          gdbench_launcher_name(), gdbench_be_program(), info->name);
        return GDBENCH_ERR;
    }
    if (opts->root >= nranks) {
        gdbench_set_error("-r %d: the root must be a rank of the job, 0..%d", opts->root, nranks - 1);
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}

static const char *status_word(int exit_status, const gdbench_report_t *report)
{
    switch (exit_status) {
    case GDBENCH_EXIT_OK: return "ok";
    case GDBENCH_EXIT_UNSUPPORTED: return "unsupported";
    case GDBENCH_EXIT_USAGE: return "usage";
    default: return report->validation_failed ? "validation failed" : "failed";
    }
}

static int write_files(const gdbench_options_t *opts, const gdbench_report_t *report, int exit_status)
{
    int status = GDBENCH_OK;

    if (opts->json_path != NULL && gdbench_json_write(report, status_word(exit_status, report), opts->json_path) != GDBENCH_OK) {
        fprintf(stderr, "%s: %s\n", gdbench_be_program(), gdbench_error());
        status = GDBENCH_ERR;
    }
    if (opts->plot_path != NULL && gdbench_svg_write(report, opts->plot_path) != GDBENCH_OK) {
        fprintf(stderr, "%s: %s\n", gdbench_be_program(), gdbench_error());
        status = GDBENCH_ERR;
    }
    return status;
}

int main(int argc, char **argv)
{
    gdbench_options_t opts;
    gdbench_report_t  report = {0};
    int               exit_now, rank, nranks, algorithm_status = GDBENCH_OK, exit_status;

    if (gdbench_options_parse(argc, argv, &opts, &exit_now) != GDBENCH_OK) {
        return GDBENCH_EXIT_USAGE;
    }
    if (exit_now) {
        return GDBENCH_EXIT_OK;
    }
    /* before init: a library reads its algorithm choice when it starts */
    if (opts.algorithm != NULL) {
        algorithm_status = gdbench_be_select_algorithm(opts.test, opts.algorithm);
    }
    if (gdbench_be_init(&argc, &argv) != GDBENCH_OK) {
        fprintf(stderr, "%s: cannot start %s: %s\n", gdbench_be_program(), gdbench_be_name(), gdbench_error());
        return GDBENCH_EXIT_FAILED;
    }
    rank   = gdbench_be_rank();
    nranks = gdbench_be_size();

    if (check_job(&opts, nranks) != GDBENCH_OK) {
        exit_status = agree(GDBENCH_ERR, rank, nranks);
        exit_status = opts.root >= nranks ? GDBENCH_EXIT_USAGE : exit_status;
        goto out_finalize;
    }
    if (algorithm_status == GDBENCH_OK) {
        algorithm_status = gdbench_be_check_support(&opts);
    }
    exit_status = agree(algorithm_status, rank, nranks);
    if (exit_status != GDBENCH_EXIT_OK) {
        goto out_finalize;
    }
    exit_status = agree(gdbench_mem_init(opts.memory, rank), rank, nranks);
    if (exit_status != GDBENCH_EXIT_OK) {
        goto out_finalize;
    }

    report.opts         = &opts;
    report.program      = gdbench_be_program();
    report.library      = gdbench_be_library();
    report.library_long = gdbench_be_library_long();
    report.nranks       = nranks;
    exit_status         = gdbench_run(&opts, &report, rank, nranks);
    if (rank == 0 && write_files(&opts, &report, exit_status) != GDBENCH_OK && exit_status == GDBENCH_EXIT_OK) {
        exit_status = GDBENCH_EXIT_FAILED;
    }
    free(report.rows);

out_finalize:
    fflush(stdout);
    if (gdbench_be_finalize() != GDBENCH_OK && exit_status == GDBENCH_EXIT_OK) {
        fprintf(stderr, "%s: rank %d: finalize failed: %s\n", gdbench_be_program(), rank, gdbench_error());
        exit_status = GDBENCH_EXIT_FAILED;
    }
    return exit_status;
}
