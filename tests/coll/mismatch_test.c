/*
 * Erroneous programs: collectives whose arguments differ across ranks, and a rank that
 * refuses its own arguments. Run with GDC_CHECK=1: every rank must get GDC_ERR_INVALID_ARG
 * from each case (none may hang or succeed), and the correct allreduce after each case must
 * be right, so the communicator is still usable.
 *   mismatch_test blocking      the cases with blocking calls
 *   mismatch_test nonblocking   the same with gdc_i* and gdc_wait
 * Rank 1 is the odd one out in every case (so at least 2 ranks). Each case runs with a small
 * count (the shared-memory fast paths inside a node) and a large one (schedules, pipelines).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"

static int rank, size, nonblocking;
static long cases;

/* Wait for a request when the call gave one (nonblocking); the call's own status otherwise. */
static gdc_status_t finish(gdc_status_t posted, gdc_request_t *req)
{
    if (!nonblocking || posted != GDC_SUCCESS) {
        return posted;
    }
    return gdc_wait(req);
}

#define CALL(blocking_call, nonblocking_call) \
    (nonblocking ? finish((nonblocking_call), &req) : (blocking_call))

static int32_t *ints(size_t n, int32_t value)
{
    int32_t *v = check_malloc(n * sizeof(int32_t));

    for (size_t i = 0; i < n; i++) {
        v[i] = value + (int32_t)(i % 7);
    }
    return v;
}

/* The communicator is still usable: a correct allreduce gives the exact sum. */
static void still_right(const char *after)
{
    size_t   n   = 1000;
    int32_t *in  = ints(n, rank), *out = ints(n, -1);
    int64_t  sum = (int64_t)size * (size - 1) / 2;

    CHECK_OK(gdc_allreduce(in, out, n, GDC_INT32, GDC_SUM, GDC_COMM_WORLD));
    for (size_t i = 0; i < n; i++) {
        CHECK(out[i] == (int32_t)(sum + (int64_t)size * (int64_t)(i % 7)),
              "after %s: allreduce element %zu is %d, expected %lld", after, i, out[i],
              (long long)(sum + (int64_t)size * (int64_t)(i % 7)));
    }
    free(in);
    free(out);
}

static void expect_invalid(const char *what, size_t count, gdc_status_t status)
{
    CHECK(status == GDC_ERR_INVALID_ARG, "%s (count %zu, %s): returned %d (%s), expected GDC_ERR_INVALID_ARG", what,
          count, nonblocking ? "nonblocking" : "blocking", (int)status, gdc_strerror(status));
    cases++;
    still_right(what);
}

static void allreduce_count(size_t n)
{
    int32_t      *in = ints(2 * n, rank), *out = ints(2 * n, 0);
    size_t        mine = rank == 1 ? 2 * n : n;
    gdc_request_t req;

    expect_invalid("allreduce count", n,
                   CALL(gdc_allreduce(in, out, mine, GDC_INT32, GDC_SUM, GDC_COMM_WORLD),
                        gdc_iallreduce(in, out, mine, GDC_INT32, GDC_SUM, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

static void allreduce_dtype(size_t n)
{
    int32_t      *in = ints(n, rank), *out = ints(n, 0);
    gdc_dtype_t   dtype = rank == 1 ? GDC_FLOAT32 : GDC_INT32;
    gdc_request_t req;

    expect_invalid("allreduce dtype", n,
                   CALL(gdc_allreduce(in, out, n, dtype, GDC_SUM, GDC_COMM_WORLD),
                        gdc_iallreduce(in, out, n, dtype, GDC_SUM, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

static void allreduce_op(size_t n)
{
    int32_t      *in = ints(n, rank), *out = ints(n, 0);
    gdc_op_t      op = rank == 1 ? GDC_MAX : GDC_SUM;
    gdc_request_t req;

    expect_invalid("allreduce op", n,
                   CALL(gdc_allreduce(in, out, n, GDC_INT32, op, GDC_COMM_WORLD),
                        gdc_iallreduce(in, out, n, GDC_INT32, op, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

static void bcast_root(size_t n)
{
    int32_t      *buf  = ints(n, rank);
    int           root = rank == 1 ? 1 : 0;
    gdc_request_t req;

    expect_invalid("bcast root", n,
                   CALL(gdc_bcast(buf, n, GDC_INT32, root, GDC_COMM_WORLD),
                        gdc_ibcast(buf, n, GDC_INT32, root, GDC_COMM_WORLD, &req)));
    free(buf);
}

static void bcast_count(size_t n)
{
    int32_t      *buf  = ints(2 * n, rank);
    size_t        mine = rank == 1 ? 2 * n : n;
    gdc_request_t req;

    expect_invalid("bcast count", n,
                   CALL(gdc_bcast(buf, mine, GDC_INT32, 0, GDC_COMM_WORLD),
                        gdc_ibcast(buf, mine, GDC_INT32, 0, GDC_COMM_WORLD, &req)));
    free(buf);
}

static void allreduce_or_bcast(size_t n)
{
    int32_t      *in = ints(n, rank), *out = ints(n, 0);
    gdc_request_t req;
    gdc_status_t  status;

    if (rank == 1) {
        status = CALL(gdc_bcast(out, n, GDC_INT32, 0, GDC_COMM_WORLD),
                      gdc_ibcast(out, n, GDC_INT32, 0, GDC_COMM_WORLD, &req));
    } else {
        status = CALL(gdc_allreduce(in, out, n, GDC_INT32, GDC_SUM, GDC_COMM_WORLD),
                      gdc_iallreduce(in, out, n, GDC_INT32, GDC_SUM, GDC_COMM_WORLD, &req));
    }
    expect_invalid("allreduce on some ranks, bcast on rank 1", n, status);
    free(in);
    free(out);
}

static void barrier_or_allreduce(size_t n)
{
    int32_t      *in = ints(n, rank), *out = ints(n, 0);
    gdc_request_t req;
    gdc_status_t  status;

    if (rank == 1) {
        status = CALL(gdc_barrier(GDC_COMM_WORLD), gdc_ibarrier(GDC_COMM_WORLD, &req));
    } else {
        status = CALL(gdc_allreduce(in, out, n, GDC_INT32, GDC_SUM, GDC_COMM_WORLD),
                      gdc_iallreduce(in, out, n, GDC_INT32, GDC_SUM, GDC_COMM_WORLD, &req));
    }
    expect_invalid("barrier on rank 1, allreduce on the others", n, status);
    free(in);
    free(out);
}

static void allgather_count(size_t n)
{
    int32_t      *in = ints(2 * n, rank), *out = ints(2 * n * (size_t)size, 0);
    size_t        mine = rank == 1 ? 2 * n : n;
    gdc_request_t req;

    expect_invalid("allgather count", n,
                   CALL(gdc_allgather(in, out, mine, GDC_INT32, GDC_COMM_WORLD),
                        gdc_iallgather(in, out, mine, GDC_INT32, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

static void alltoall_count(size_t n)
{
    int32_t      *in = ints(2 * n * (size_t)size, rank), *out = ints(2 * n * (size_t)size, 0);
    size_t        mine = rank == 1 ? 2 * n : n;
    gdc_request_t req;

    expect_invalid("alltoall count", n,
                   CALL(gdc_alltoall(in, out, mine, GDC_INT32, GDC_COMM_WORLD),
                        gdc_ialltoall(in, out, mine, GDC_INT32, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

/* Rank 1, as the root, refuses: its sendbuf is NULL. */
static void scatter_null_at_root(size_t n)
{
    int32_t      *send = ints(n * (size_t)size, rank), *recv = ints(n, 0);
    gdc_request_t req;

    expect_invalid("scatter with a NULL sendbuf at the root", n,
                   CALL(gdc_scatter(rank == 1 ? NULL : send, recv, n, GDC_INT32, 1, GDC_COMM_WORLD),
                        gdc_iscatter(rank == 1 ? NULL : send, recv, n, GDC_INT32, 1, GDC_COMM_WORLD, &req)));
    free(send);
    free(recv);
}

/* Rank 1, not the root, passes GDC_IN_PLACE, which only the root may. */
static void reduce_in_place_off_root(size_t n)
{
    int32_t      *in = ints(n, rank), *out = ints(n, 0);
    const void   *send = rank == 1 ? GDC_IN_PLACE : in;
    gdc_request_t req;

    expect_invalid("reduce with GDC_IN_PLACE off the root", n,
                   CALL(gdc_reduce(send, out, n, GDC_INT32, GDC_SUM, 0, GDC_COMM_WORLD),
                        gdc_ireduce(send, out, n, GDC_INT32, GDC_SUM, 0, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

static void gather_in_place_off_root(size_t n)
{
    int32_t      *in = ints(n, rank), *out = ints(n * (size_t)size, 0);
    const void   *send = rank == 1 ? GDC_IN_PLACE : in;
    gdc_request_t req;

    expect_invalid("gather with GDC_IN_PLACE off the root", n,
                   CALL(gdc_gather(send, out, n, GDC_INT32, 0, GDC_COMM_WORLD),
                        gdc_igather(send, out, n, GDC_INT32, 0, GDC_COMM_WORLD, &req)));
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    static void (*const each[])(size_t) = {
        allreduce_count,      allreduce_dtype, allreduce_op,    bcast_root,           bcast_count,
        allreduce_or_bcast,   barrier_or_allreduce, allgather_count, alltoall_count, scatter_null_at_root,
        reduce_in_place_off_root, gather_in_place_off_root,
    };
    static const size_t counts[] = {10, 300000};

    CHECK(argc == 2 && (strcmp(argv[1], "blocking") == 0 || strcmp(argv[1], "nonblocking") == 0),
          "usage: mismatch_test blocking|nonblocking");
    nonblocking = strcmp(argv[1], "nonblocking") == 0;
    CHECK_OK(gdc_init(&argc, &argv));
    CHECK_OK(gdc_comm_rank(GDC_COMM_WORLD, &rank));
    CHECK_OK(gdc_comm_size(GDC_COMM_WORLD, &size));
    check_rank = rank;
    CHECK(size >= 2, "needs 2 ranks or more, has %d", size);
    still_right("start");
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        for (size_t i = 0; i < sizeof(each) / sizeof(each[0]); i++) {
            each[i](counts[c]);
        }
    }
    CHECK_OK(gdc_finalize());
    if (rank == 0) {
        printf("mismatch_test %s: %ld mismatched calls on %d ranks, each GDC_ERR_INVALID_ARG everywhere, "
               "the communicator right after each\n",
               argv[1], cases, size);
    }
    return 0;
}
