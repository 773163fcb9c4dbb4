/*
 * test_cost: what one gdc_test of a request that is not complete costs (a progress round:
 * UCX, the collectives' runs, the watch of stalls and dead peers), the price an
 * application pays per poll in a loop of nonblocking calls.
 *
 *   gdrun -n 2 bench/test_cost [CALLS]
 *
 * Rank 0 posts a receive that rank 1 only satisfies after rank 0 has timed CALLS tests
 * of it (20,000,000 by default), and prints the nanoseconds per test.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gdc.h"

static int failed(const char *what, gdc_status_t status)
{
    fprintf(stderr, "test_cost: %s failed: %s\n", what, gdc_strerror(status));
    return 1;
}

int main(int argc, char **argv)
{
    long          calls = argc > 1 ? atol(argv[1]) : 20000000;
    int           rank, size, done = 0, value = 0, one = 1;
    gdc_request_t req;
    gdc_status_t  status;
    double        start, took;

    if ((status = gdc_init(&argc, &argv)) != GDC_SUCCESS) {
        return failed("gdc_init", status);
    }
    gdc_comm_rank(GDC_COMM_WORLD, &rank);
    gdc_comm_size(GDC_COMM_WORLD, &size);
    if (size != 2 || calls <= 0) {
        fprintf(stderr, "usage: gdrun -n 2 test_cost [CALLS > 0]\n");
        gdc_finalize();
        return 2;
    }
    if (rank == 1) {
        if ((status = gdc_barrier(GDC_COMM_WORLD)) != GDC_SUCCESS ||
            (status = gdc_send(&one, 1, GDC_INT32, 0, 7, GDC_COMM_WORLD)) != GDC_SUCCESS) {
            return failed("rank 1's barrier and send", status);
        }
        return gdc_finalize() == GDC_SUCCESS ? 0 : 1;
    }
    if ((status = gdc_irecv(&value, 1, GDC_INT32, 1, 7, GDC_COMM_WORLD, &req)) != GDC_SUCCESS) {
        return failed("gdc_irecv", status);
    }
    start = gdc_wtime();
    for (long i = 0; i < calls; i++) {
        if ((status = gdc_test(&req, &done)) != GDC_SUCCESS || done) {
            return failed(done ? "gdc_test (complete too early)" : "gdc_test", status);
        }
    }
    took = gdc_wtime() - start;
    printf("gdc_test of a pending receive: %.1f ns per call (%ld calls)\n", took / (double)calls * 1e9, calls);
    if ((status = gdc_barrier(GDC_COMM_WORLD)) != GDC_SUCCESS || (status = gdc_wait(&req)) != GDC_SUCCESS) {
        return failed("the closing barrier and wait", status);
    }
    if (value != 1) {
        fprintf(stderr, "test_cost: received %d, expected 1\n", value);
        return 1;
    }
    return gdc_finalize() == GDC_SUCCESS ? 0 : 1;
}
