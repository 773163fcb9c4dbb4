/*
 * The table on stdout, laid out as OSU's: "# Size" left in 10 columns, then right-aligned
 * fields of 18 with two decimals, Iterations in 12; then nccl-tests' algbw and busbw.
 * Only rank 0 prints. A progress line goes to stderr when it is a terminal.
 */
#include "gdbench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COL_SIZE_WIDTH  10
#define COL_FIELD_WIDTH 18
#define COL_ITER_WIDTH  12
#define COL_RATE_WIDTH  14

int gdbench_report_add(gdbench_report_t *report, const gdbench_row_t *row)
{
    if (report->nrows == report->capacity) {
        size_t         capacity = report->capacity ? 2 * report->capacity : 32;
        gdbench_row_t *rows     = realloc(report->rows, capacity * sizeof(*rows));
        if (rows == NULL) {
            gdbench_set_error("out of memory for the results");
            return GDBENCH_ERR;
        }
        report->rows     = rows;
        report->capacity = capacity;
    }
    report->rows[report->nrows++] = *row;
    return GDBENCH_OK;
}

static int is_bandwidth_test(gdbench_test_t test)
{
    return test == GDBENCH_BW || test == GDBENCH_BIBW;
}

void gdbench_output_header(const gdbench_report_t *report)
{
    const gdbench_options_t   *o    = report->opts;
    const gdbench_test_info_t *info = gdbench_test_info(o->test);

    printf("# %s %s (%s, %d rank%s", report->program, info->name, report->library, report->nranks,
           report->nranks == 1 ? "" : "s");
    if (!(info->flags & GDBENCH_F_NO_DATA)) {
        printf(", %s", gdbench_dtype_info(o->dtype)->name);
    }
    if (info->flags & GDBENCH_F_REDUCTION) {
        printf(" %s", gdbench_op_name(o->op));
    }
    if (info->flags & GDBENCH_F_ROOTED) {
        printf(", root %d", o->root);
    }
    if (o->in_place) {
        printf(", in place");
    }
    if (o->memory != GDBENCH_MEM_HOST) {
        printf(", %s buffers", gdbench_memory_name(o->memory));
    }
    if (o->algorithm != NULL) {
        printf(", algorithm %s", o->algorithm);
    }
    printf(")\n");
    if (strcmp(report->library, report->library_long) != 0) {
        printf("# %s\n", report->library_long);
    }
    if (report->d2d_gbps > 0) {
        printf("# device copy floor: rank 0's GPU copies 64 MiB device to device at %.0f GB/s (bytes counted "
               "once; cudaMemcpy, median of 5)\n",
               report->d2d_gbps);
    }
    printf("%-*s", COL_SIZE_WIDTH, "# Size");
    if (is_bandwidth_test(o->test)) {
        printf("%*s", COL_FIELD_WIDTH, "Bandwidth (MB/s)");
    }
    printf("%*s", COL_FIELD_WIDTH, "Avg Latency(us)");
    if (o->full) {
        printf("%*s%*s%*s", COL_FIELD_WIDTH, "Min Latency(us)", COL_FIELD_WIDTH, "Max Latency(us)", COL_ITER_WIDTH,
               "Iterations");
    }
    printf("%*s%*s", COL_RATE_WIDTH, "algbw(GB/s)", COL_RATE_WIDTH, "busbw(GB/s)");
    if (o->validate) {
        printf("%*s", COL_ITER_WIDTH, "Validation");
    }
    printf("\n");
    fflush(stdout);
}

void gdbench_output_row(const gdbench_report_t *report, const gdbench_row_t *row)
{
    const gdbench_options_t *o = report->opts;

    printf("%-*zu", COL_SIZE_WIDTH, row->size);
    if (is_bandwidth_test(o->test)) {
        printf("%*.2f", COL_FIELD_WIDTH, row->mbps);
    }
    printf("%*.2f", COL_FIELD_WIDTH, row->avg_us);
    if (o->full) {
        printf("%*.2f%*.2f%*ld", COL_FIELD_WIDTH, row->min_us, COL_FIELD_WIDTH, row->max_us, COL_ITER_WIDTH, row->iterations);
    }
    printf("%*.2f%*.2f", COL_RATE_WIDTH, row->algbw, COL_RATE_WIDTH, row->busbw);
    if (o->validate) {
        printf("%*s", COL_ITER_WIDTH, row->validation == GDBENCH_PASS ? "Pass" : "Fail");
    }
    printf("\n");
    fflush(stdout);
}

/* ---------------------------------------------------------------------------------------
 * Progress: only for a person watching a long run, never in a pipe or a log.
 */
#define PROGRESS_AFTER_SECONDS 1.0

static double progress_start = -1.0;
static int    progress_shown;

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gdbench_progress(const gdbench_report_t *report, size_t size, int index, int total)
{
    char label[32];

    if (!isatty(STDERR_FILENO)) {
        return;
    }
    if (progress_start < 0.0) {
        progress_start = now_seconds();
    }
    if (now_seconds() - progress_start < PROGRESS_AFTER_SECONDS) {
        return;
    }
    gdbench_format_bytes_short(size, label, sizeof(label));
    fprintf(stderr, "\r[%s %s] size %s (%d of %d), %.0f s\033[K", report->program,
            gdbench_test_info(report->opts->test)->name, label, index + 1, total, now_seconds() - progress_start);
    fflush(stderr);
    progress_shown = 1;
}

void gdbench_progress_clear(void)
{
    if (progress_shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        progress_shown = 0;
    }
}
