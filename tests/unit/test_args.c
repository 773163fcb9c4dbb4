/*
 * Argument validation of every public function, through the public library only: before
 * gdc_init (GDC_ERR_NOT_INITIALIZED), in a singleton run (GDC_ERR_INVALID_ARG for each bad
 * argument, never a crash), and after gdc_finalize. The cases run in order in one group.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <gdc.h>

static int      buf[16];
static uint64_t fake_object[32]; /* zeroed: not a live communicator or request */
#define BOGUS_COMM ((gdc_comm_t)fake_object)
#define BOGUS_REQ  ((gdc_request_t)fake_object)

/* Every call that needs an initialized gdc, with otherwise valid arguments. */
static void expect_all(int expected)
{
    gdc_comm_t    comm = GDC_COMM_WORLD, newcomm;
    gdc_request_t req  = GDC_REQUEST_NULL;
    int           value, done;
    size_t        counts[1] = {1}, displs[1] = {0};

    assert_int_equal(gdc_comm_rank(comm, &value), expected);
    assert_int_equal(gdc_comm_size(comm, &value), expected);
    assert_int_equal(gdc_comm_split(comm, 0, 0, &newcomm), expected);
    assert_int_equal(gdc_comm_dup(comm, &newcomm), expected);
    newcomm = BOGUS_COMM;
    assert_int_equal(gdc_comm_free(&newcomm), expected);
    assert_int_equal(gdc_send(buf, 1, GDC_INT32, 0, 0, comm), expected);
    assert_int_equal(gdc_recv(buf, 1, GDC_INT32, 0, 0, comm), expected);
    assert_int_equal(gdc_isend(buf, 1, GDC_INT32, 0, 0, comm, &req), expected);
    assert_int_equal(gdc_irecv(buf, 1, GDC_INT32, 0, 0, comm, &req), expected);
    assert_int_equal(gdc_wait(&req), expected);
    assert_int_equal(gdc_waitall(1, &req), expected);
    assert_int_equal(gdc_test(&req, &done), expected);
    assert_int_equal(gdc_abort(comm, 3), expected);
    assert_int_equal(gdc_finalize(), expected);
    assert_int_equal(gdc_barrier(comm), expected);
    assert_int_equal(gdc_bcast(buf, 1, GDC_INT32, 0, comm), expected);
    assert_int_equal(gdc_reduce(buf, buf + 4, 1, GDC_INT32, GDC_SUM, 0, comm), expected);
    assert_int_equal(gdc_allreduce(buf, buf + 4, 1, GDC_INT32, GDC_SUM, comm), expected);
    assert_int_equal(gdc_allgather(buf, buf + 4, 1, GDC_INT32, comm), expected);
    assert_int_equal(gdc_reduce_scatter(buf, buf + 4, 1, GDC_INT32, GDC_SUM, comm), expected);
    assert_int_equal(gdc_alltoall(buf, buf + 4, 1, GDC_INT32, comm), expected);
    assert_int_equal(gdc_alltoallv(buf, counts, displs, buf + 4, counts, displs, GDC_INT32, comm), expected);
    assert_int_equal(gdc_gather(buf, buf + 4, 1, GDC_INT32, 0, comm), expected);
    assert_int_equal(gdc_scatter(buf, buf + 4, 1, GDC_INT32, 0, comm), expected);
    assert_int_equal(gdc_ibarrier(comm, &req), expected);
    assert_int_equal(gdc_ibcast(buf, 1, GDC_INT32, 0, comm, &req), expected);
    assert_int_equal(gdc_ireduce(buf, buf + 4, 1, GDC_INT32, GDC_SUM, 0, comm, &req), expected);
    assert_int_equal(gdc_iallreduce(buf, buf + 4, 1, GDC_INT32, GDC_SUM, comm, &req), expected);
    assert_int_equal(gdc_iallgather(buf, buf + 4, 1, GDC_INT32, comm, &req), expected);
    assert_int_equal(gdc_ireduce_scatter(buf, buf + 4, 1, GDC_INT32, GDC_SUM, comm, &req), expected);
    assert_int_equal(gdc_ialltoall(buf, buf + 4, 1, GDC_INT32, comm, &req), expected);
    assert_int_equal(gdc_ialltoallv(buf, counts, displs, buf + 4, counts, displs, GDC_INT32, comm, &req),
                     expected);
    assert_int_equal(gdc_igather(buf, buf + 4, 1, GDC_INT32, 0, comm, &req), expected);
    assert_int_equal(gdc_iscatter(buf, buf + 4, 1, GDC_INT32, 0, comm, &req), expected);
}

static void test_before_init(void **state)
{
    int flag = -1;

    assert_int_equal(gdc_initialized(&flag), GDC_SUCCESS);
    assert_int_equal(flag, 0);
    assert_int_equal(gdc_initialized(NULL), GDC_ERR_INVALID_ARG);
    expect_all(GDC_ERR_NOT_INITIALIZED);
    /* these work at any time */
    assert_true(gdc_wtime() > 0);
    assert_non_null(gdc_version_string());
    assert_non_null(gdc_strerror(GDC_ERR_TIMEOUT));
    assert_int_equal(gdc_dtype_size(GDC_FLOAT64), 8);
}

static void test_init_singleton(void **state)
{
    int flag = 0, rank = -1, size = -1;

    assert_int_equal(gdc_init(NULL, NULL), GDC_SUCCESS);
    assert_int_equal(gdc_initialized(&flag), GDC_SUCCESS);
    assert_int_equal(flag, 1);
    assert_int_equal(gdc_init(NULL, NULL), GDC_ERR_INVALID_ARG); /* twice */
    assert_int_equal(gdc_comm_rank(GDC_COMM_WORLD, &rank), GDC_SUCCESS);
    assert_int_equal(gdc_comm_size(GDC_COMM_WORLD, &size), GDC_SUCCESS);
    assert_int_equal(rank, 0);
    assert_int_equal(size, 1);
}

static void test_bad_communicators(void **state)
{
    int        value = -7;
    gdc_comm_t newcomm = BOGUS_COMM, world = GDC_COMM_WORLD, null = GDC_COMM_NULL;

    assert_int_equal(gdc_comm_rank(GDC_COMM_NULL, &value), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_rank(BOGUS_COMM, &value), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_rank(GDC_COMM_WORLD, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_size(GDC_COMM_NULL, &value), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_size(GDC_COMM_WORLD, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(value, -7); /* outputs untouched on error */
    assert_int_equal(gdc_comm_split(GDC_COMM_NULL, 0, 0, &newcomm), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_split(GDC_COMM_WORLD, -5, 0, &newcomm), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_split(GDC_COMM_WORLD, 0, 0, NULL), GDC_ERR_INVALID_ARG);
    assert_ptr_equal(newcomm, BOGUS_COMM);
    assert_int_equal(gdc_comm_dup(BOGUS_COMM, &newcomm), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_dup(GDC_COMM_WORLD, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_free(NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_free(&null), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_free(&world), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_comm_free(&newcomm), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_abort(GDC_COMM_NULL, 1), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_abort(BOGUS_COMM, 1), GDC_ERR_INVALID_ARG);
}

static void test_split_and_dup_singleton(void **state)
{
    gdc_comm_t a, b, none = BOGUS_COMM;
    int        size = 0;

    assert_int_equal(gdc_comm_split(GDC_COMM_WORLD, 3, 0, &a), GDC_SUCCESS);
    assert_int_equal(gdc_comm_dup(a, &b), GDC_SUCCESS);
    assert_int_equal(gdc_comm_size(b, &size), GDC_SUCCESS);
    assert_int_equal(size, 1);
    assert_int_equal(gdc_comm_split(GDC_COMM_WORLD, GDC_UNDEFINED, 0, &none), GDC_SUCCESS);
    assert_ptr_equal(none, GDC_COMM_NULL);
    assert_int_equal(gdc_comm_free(&a), GDC_SUCCESS);
    assert_ptr_equal(a, GDC_COMM_NULL);
    assert_int_equal(gdc_comm_free(&b), GDC_SUCCESS);
}

static void test_bad_p2p_arguments(void **state)
{
    gdc_comm_t    w   = GDC_COMM_WORLD;
    gdc_request_t req = GDC_REQUEST_NULL;

    /* NULL buffer with a count, unknown datatypes, ranks out of range, bad tags */
    assert_int_equal(gdc_send(NULL, 1, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(NULL, 1, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, (gdc_dtype_t)99, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, (gdc_dtype_t)-1, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(buf, 1, (gdc_dtype_t)13, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, GDC_INT32, -1, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, GDC_INT32, 1, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(buf, 1, GDC_INT32, -2, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(buf, 1, GDC_INT32, 1, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, GDC_INT32, 0, -1, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, GDC_INT32, 0, GDC_TAG_UB + 1, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(buf, 1, GDC_INT32, 0, -1, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, SIZE_MAX / 2, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(buf, 1, GDC_INT32, 0, 0, GDC_COMM_NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(buf, 1, GDC_INT32, 0, 0, BOGUS_COMM), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_isend(buf, 1, GDC_INT32, 0, 0, w, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_irecv(buf, 1, GDC_INT32, 0, 0, w, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_isend(NULL, 4, GDC_INT32, 0, 0, w, &req), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_irecv(buf, 1, GDC_INT32, 5, 0, w, &req), GDC_ERR_INVALID_ARG);
    assert_ptr_equal(req, GDC_REQUEST_NULL);
    /* GDC_IN_PLACE is not a buffer for point-to-point (with any count), nor is another small
     * constant, nor is it a request or a flag */
    assert_int_equal(gdc_send(GDC_IN_PLACE, 1, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send(GDC_IN_PLACE, 0, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_isend(GDC_IN_PLACE, 1 << 20, GDC_BYTE, 0, 0, w, &req), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_recv(GDC_IN_PLACE, 1, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_irecv(GDC_IN_PLACE, 4, GDC_INT32, 0, 0, w, &req), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_send((void *)8, 1, GDC_INT32, 0, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_isend(buf, 1, GDC_INT32, 0, 0, w, (gdc_request_t *)GDC_IN_PLACE), GDC_ERR_INVALID_ARG);
    assert_ptr_equal(req, GDC_REQUEST_NULL);
}

static void test_self_messages(void **state)
{
    gdc_request_t req;
    int           in = 0, out = 99, done = 0;

    /* a NULL buffer is fine with count 0 */
    assert_int_equal(gdc_irecv(NULL, 0, GDC_INT32, 0, 1, GDC_COMM_WORLD, &req), GDC_SUCCESS);
    assert_int_equal(gdc_send(NULL, 0, GDC_INT32, 0, 1, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_wait(&req), GDC_SUCCESS);
    assert_ptr_equal(req, GDC_REQUEST_NULL);

    assert_int_equal(gdc_irecv(&in, 1, GDC_INT32, 0, GDC_TAG_UB, GDC_COMM_WORLD, &req), GDC_SUCCESS);
    assert_int_equal(gdc_send(&out, 1, GDC_INT32, 0, GDC_TAG_UB, GDC_COMM_WORLD), GDC_SUCCESS);
    while (!done) {
        assert_int_equal(gdc_test(&req, &done), GDC_SUCCESS);
    }
    assert_ptr_equal(req, GDC_REQUEST_NULL);
    assert_int_equal(in, 99);

    /* truncation to self */
    {
        int big[8] = {1, 2, 3, 4, 5, 6, 7, 8}, small[2];
        assert_int_equal(gdc_isend(big, 8, GDC_INT32, 0, 2, GDC_COMM_WORLD, &req), GDC_SUCCESS);
        assert_int_equal(gdc_recv(small, 2, GDC_INT32, 0, 2, GDC_COMM_WORLD), GDC_ERR_TRUNCATED);
        assert_int_equal(gdc_wait(&req), GDC_SUCCESS);
    }
}

static void test_bad_requests(void **state)
{
    gdc_request_t req  = GDC_REQUEST_NULL, bogus = BOGUS_REQ;
    gdc_request_t reqs[2] = {GDC_REQUEST_NULL, BOGUS_REQ};
    int           done = 0;

    assert_int_equal(gdc_wait(NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_wait(&req), GDC_SUCCESS);
    assert_int_equal(gdc_wait(&bogus), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_test(NULL, &done), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_test(&req, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_test(&req, (int *)GDC_IN_PLACE), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_wait((gdc_request_t *)GDC_IN_PLACE), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_test(&req, &done), GDC_SUCCESS);
    assert_int_equal(done, 1);
    assert_int_equal(gdc_test(&bogus, &done), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_waitall(-1, reqs), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_waitall(1, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_waitall(1, (gdc_request_t *)GDC_IN_PLACE), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_waitall(0, NULL), GDC_SUCCESS);
    assert_int_equal(gdc_waitall(1, reqs), GDC_SUCCESS);
    assert_int_equal(gdc_waitall(2, reqs), GDC_ERR_INVALID_ARG);
}

/* Every collective in a singleton: the data comes back as it should. */
static void test_collectives_singleton(void **state)
{
    int           in[4] = {1, 2, 3, 4}, out[4] = {0};
    size_t        counts[1] = {4}, displs[1] = {0};
    gdc_request_t req = GDC_REQUEST_NULL;

    assert_int_equal(gdc_barrier(GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_allreduce(in, out, 4, GDC_INT32, GDC_SUM, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(out[3], 4);
    out[0] = 0;
    assert_int_equal(gdc_reduce(in, out, 4, GDC_INT32, GDC_MAX, 0, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(out[0], 1);
    assert_int_equal(gdc_allgather(in, out, 4, GDC_INT32, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_reduce_scatter(in, out, 4, GDC_INT32, GDC_SUM, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_alltoall(in, out, 4, GDC_INT32, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_alltoallv(in, counts, displs, out, counts, displs, GDC_INT32, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_gather(in, out, 4, GDC_INT32, 0, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_scatter(in, out, 4, GDC_INT32, 0, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_bcast(out, 4, GDC_INT32, 0, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(out[2], 3);
    assert_int_equal(gdc_allreduce(GDC_IN_PLACE, out, 4, GDC_INT32, GDC_AVG, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_iallreduce(in, out, 4, GDC_INT32, GDC_SUM, GDC_COMM_WORLD, &req), GDC_SUCCESS);
    assert_int_equal(gdc_wait(&req), GDC_SUCCESS);
    /* count 0 is valid and returns at once, even with NULL buffers */
    assert_int_equal(gdc_allreduce(NULL, NULL, 0, GDC_FLOAT32, GDC_SUM, GDC_COMM_WORLD), GDC_SUCCESS);
    assert_int_equal(gdc_ibcast(NULL, 0, GDC_FLOAT32, 0, GDC_COMM_WORLD, &req), GDC_SUCCESS);
    assert_int_equal(gdc_wait(&req), GDC_SUCCESS);
}

/* Every bad argument of the collectives gives GDC_ERR_INVALID_ARG, never a crash. */
static void test_bad_collective_arguments(void **state)
{
    gdc_comm_t    w = GDC_COMM_WORLD;
    int           in[4] = {1, 2, 3, 4}, out[4];
    size_t        counts[1] = {4}, displs[1] = {0}, other[1] = {3};
    gdc_request_t req = GDC_REQUEST_NULL;
    float         f[4] = {0};

    /* roots out of range */
    assert_int_equal(gdc_bcast(in, 4, GDC_INT32, 1, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_bcast(in, 4, GDC_INT32, -1, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_reduce(in, out, 4, GDC_INT32, GDC_SUM, 2, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_gather(in, out, 4, GDC_INT32, -3, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_scatter(in, out, 4, GDC_INT32, 1, w), GDC_ERR_INVALID_ARG);
    /* NULL buffers with count > 0 */
    assert_int_equal(gdc_bcast(NULL, 4, GDC_INT32, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allreduce(NULL, out, 4, GDC_INT32, GDC_SUM, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allreduce(in, NULL, 4, GDC_INT32, GDC_SUM, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allgather(in, NULL, 4, GDC_INT32, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_alltoall(NULL, out, 1, GDC_INT32, w), GDC_ERR_INVALID_ARG);
    /* GDC_IN_PLACE where it cannot be */
    assert_int_equal(gdc_allreduce(in, GDC_IN_PLACE, 4, GDC_INT32, GDC_SUM, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_bcast(GDC_IN_PLACE, 4, GDC_INT32, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_scatter(GDC_IN_PLACE, out, 4, GDC_INT32, 0, w), GDC_ERR_INVALID_ARG);
    /* the same buffer twice instead of GDC_IN_PLACE */
    assert_int_equal(gdc_allreduce(out, out, 4, GDC_INT32, GDC_SUM, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_scatter(out, out, 1, GDC_INT32, 0, w), GDC_ERR_INVALID_ARG);
    /* unknown datatypes and ops, bitwise ops on floats, reductions of bytes */
    assert_int_equal(gdc_allreduce(in, out, 4, (gdc_dtype_t)42, GDC_SUM, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allreduce(in, out, 4, GDC_INT32, (gdc_op_t)42, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allreduce(in, out, 4, GDC_INT32, (gdc_op_t)-1, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allreduce(f, f + 2, 2, GDC_FLOAT32, GDC_BXOR, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_reduce(f, f + 2, 2, GDC_BFLOAT16, GDC_BAND, 0, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_reduce_scatter(in, out, 1, GDC_BYTE, GDC_SUM, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_bcast(in, 4, (gdc_dtype_t)-7, 0, w), GDC_ERR_INVALID_ARG);
    /* alltoallv: missing arrays, a self exchange that does not match */
    assert_int_equal(gdc_alltoallv(in, NULL, displs, out, counts, displs, GDC_INT32, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_alltoallv(in, counts, displs, out, NULL, displs, GDC_INT32, w), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_alltoallv(in, counts, displs, out, other, displs, GDC_INT32, w), GDC_ERR_INVALID_ARG);
    /* bad communicators and request pointers */
    assert_int_equal(gdc_barrier(GDC_COMM_NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_allreduce(in, out, 4, GDC_INT32, GDC_SUM, BOGUS_COMM), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_ibarrier(w, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_iallreduce(in, out, 4, GDC_INT32, GDC_SUM, w, NULL), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_igather(in, out, 4, GDC_INT32, 0, w, NULL), GDC_ERR_INVALID_ARG);
    assert_ptr_equal(req, GDC_REQUEST_NULL);
}

static void test_finalize_then_nothing(void **state)
{
    int flag = 1;

    assert_int_equal(gdc_finalize(), GDC_SUCCESS);
    assert_int_equal(gdc_initialized(&flag), GDC_SUCCESS);
    assert_int_equal(flag, 0);
    expect_all(GDC_ERR_NOT_INITIALIZED);
    assert_int_equal(gdc_init(NULL, NULL), GDC_ERR_INVALID_ARG); /* no second life */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_init),
        cmocka_unit_test(test_init_singleton),
        cmocka_unit_test(test_bad_communicators),
        cmocka_unit_test(test_split_and_dup_singleton),
        cmocka_unit_test(test_bad_p2p_arguments),
        cmocka_unit_test(test_self_messages),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_collectives_singleton),
        cmocka_unit_test(test_bad_collective_arguments),
        cmocka_unit_test(test_finalize_then_nothing),
    };

    /* The cases log the errors they provoke; keep the output to the TAP lines. */
    setenv("GDC_LOG", "error", 0);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
