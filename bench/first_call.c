/*
 * first_call: what the first call of a new call shape costs over the second, the choice of
 * its algorithm (priced on every rank) and its schedule's construction. Every peer is
 * connected first (an alltoall and a barrier), so the figure holds no connection set-up.
 *
 *   gdrun -n 16 --emulate-nodes 8 bench/first_call
 *
 * Prints, for each collective and size, the slowest rank's first call, second call and
 * the difference, in microseconds (a barrier before each call lines the ranks up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdc.h"

typedef enum { ALLREDUCE, BCAST, ALLGATHER, REDUCE_SCATTER, ALLTOALL, KINDS } kind_t;

static const char *const kind_names[KINDS] = {"allreduce", "bcast", "allgather", "reduce_scatter", "alltoall"};

static gdc_status_t call(kind_t kind, float *in, float *out, size_t count)
{
    switch (kind) {
    case ALLREDUCE: return gdc_allreduce(in, out, count, GDC_FLOAT32, GDC_SUM, GDC_COMM_WORLD);
    case BCAST: return gdc_bcast(out, count, GDC_FLOAT32, 0, GDC_COMM_WORLD);
    case ALLGATHER: return gdc_allgather(in, out, count, GDC_FLOAT32, GDC_COMM_WORLD);
    case REDUCE_SCATTER: return gdc_reduce_scatter(in, out, count, GDC_FLOAT32, GDC_SUM, GDC_COMM_WORLD);
    default: return gdc_alltoall(in, out, count, GDC_FLOAT32, GDC_COMM_WORLD);
    }
}

/* The slowest rank's time of one call, lined up by a barrier. */
static gdc_status_t timed(kind_t kind, float *in, float *out, size_t count, double *seconds)
{
    gdc_status_t status;
    double       t;

    if ((status = gdc_barrier(GDC_COMM_WORLD)) != GDC_SUCCESS) {
        return status;
    }
    t = gdc_wtime();
    if ((status = call(kind, in, out, count)) != GDC_SUCCESS) {
        return status;
    }
    t = gdc_wtime() - t;
    return gdc_allreduce(&t, seconds, 1, GDC_FLOAT64, GDC_MAX, GDC_COMM_WORLD);
}

int main(int argc, char **argv)
{
    static const size_t counts[] = {16, 4096, 262144}; /* elements per rank's block */
    int                 rank, size, failed = 0;
    double              most = 0;
    float              *in, *out;
    gdc_status_t        status;

    if ((status = gdc_init(&argc, &argv)) != GDC_SUCCESS) {
        fprintf(stderr, "first_call: gdc_init: %s\n", gdc_strerror(status));
        return 1;
    }
    gdc_comm_rank(GDC_COMM_WORLD, &rank);
    gdc_comm_size(GDC_COMM_WORLD, &size);
    in  = calloc(counts[2] * (size_t)size, sizeof(float));
    out = calloc(counts[2] * (size_t)size, sizeof(float));
    if (in == NULL || out == NULL) {
        fprintf(stderr, "first_call: out of memory\n");
        gdc_finalize();
        return 1;
    }
    /* every pair of ranks connected before anything is measured */
    if (gdc_alltoall(in, out, 1, GDC_FLOAT32, GDC_COMM_WORLD) != GDC_SUCCESS ||
        gdc_barrier(GDC_COMM_WORLD) != GDC_SUCCESS) {
        failed = 1;
    }
    if (rank == 0) {
        printf("# first_call: %d ranks; microseconds of the slowest rank\n", size);
        printf("# %-15s %10s %12s %12s %12s\n", "collective", "elements", "first", "second", "first-second");
    }
    for (int k = 0; k < KINDS && !failed; k++) {
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]) && !failed; c++) {
            double first, second;
            if (timed((kind_t)k, in, out, counts[c], &first) != GDC_SUCCESS ||
                timed((kind_t)k, in, out, counts[c], &second) != GDC_SUCCESS) {
                failed = 1;
                break;
            }
            most = first - second > most ? first - second : most;
            if (rank == 0) {
                printf("  %-15s %10zu %12.1f %12.1f %12.1f\n", kind_names[k], counts[c], first * 1e6, second * 1e6,
                       (first - second) * 1e6);
            }
        }
    }
    if (rank == 0 && !failed) {
        printf("# most a first call cost over the second: %.1f us\n", most * 1e6);
    }
    free(in);
    free(out);
    gdc_finalize();
    if (failed) {
        fprintf(stderr, "first_call: rank %d: a collective failed\n", rank);
    }
    return failed;
}
