/*
 * gdbench's gdc backend: gdc.h only, as a user's program would be.
 *
 * The harness's own barrier and statistics are gdc_barrier and gdc_allreduce, like the
 * benchmarked collectives: a gdc that cannot run them fails the run (exit status 1)
 * rather than being measured with something else. A benchmarked collective that gdc
 * reports as not supported (GDC_ERR_UNSUPPORTED) ends the run with exit status 3.
 */
#include "gdbench_backend.h"

#include <stdlib.h>
#include <string.h>

#include <gdc.h>

static int           world_rank = -1, world_size = 0;
static gdc_request_t slots[GDBENCH_BE_SLOTS];
static char          library_short[64];

static const gdc_dtype_t dtype_map[GDBENCH_DTYPE_COUNT] = {
    [GDBENCH_INT8] = GDC_INT8,         [GDBENCH_UINT8] = GDC_UINT8,     [GDBENCH_INT16] = GDC_INT16,
    [GDBENCH_UINT16] = GDC_UINT16,     [GDBENCH_INT32] = GDC_INT32,     [GDBENCH_UINT32] = GDC_UINT32,
    [GDBENCH_INT64] = GDC_INT64,       [GDBENCH_UINT64] = GDC_UINT64,   [GDBENCH_FLOAT16] = GDC_FLOAT16,
    [GDBENCH_BFLOAT16] = GDC_BFLOAT16, [GDBENCH_FLOAT32] = GDC_FLOAT32, [GDBENCH_FLOAT64] = GDC_FLOAT64,
};

static const gdc_op_t op_map[GDBENCH_OP_COUNT] = {
    [GDBENCH_SUM] = GDC_SUM, [GDBENCH_PROD] = GDC_PROD, [GDBENCH_MIN] = GDC_MIN,   [GDBENCH_MAX] = GDC_MAX,
    [GDBENCH_AVG] = GDC_AVG, [GDBENCH_BAND] = GDC_BAND, [GDBENCH_BOR] = GDC_BOR,   [GDBENCH_BXOR] = GDC_BXOR,
};

/* Translate a gdc status, recording what failed. */
static int check(int status, const char *call)
{
    if (status == GDC_SUCCESS) {
        return GDBENCH_OK;
    }
    gdbench_set_error("%s: %s", call, gdc_strerror(status));
    return status == GDC_ERR_UNSUPPORTED ? GDBENCH_UNSUPPORTED : GDBENCH_ERR;
}

const char *gdbench_be_program(void)
{
    return "gdbench";
}

const char *gdbench_be_name(void)
{
    return "gdc";
}

int gdbench_be_select_algorithm(gdbench_test_t test, const char *name)
{
    const char *variable = gdbench_algorithm_variable(test);

    /* gdc checks the name itself and says which algorithms exist */
    if (variable == NULL || setenv(variable, name, 1) != 0) {
        gdbench_set_error("-a: cannot set the algorithm of %s", gdbench_test_info(test)->name);
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}

int gdbench_be_init(int *argc, char ***argv)
{
    if (check(gdc_init(argc, argv), "gdc_init") != GDBENCH_OK ||
        check(gdc_comm_rank(GDC_COMM_WORLD, &world_rank), "gdc_comm_rank") != GDBENCH_OK ||
        check(gdc_comm_size(GDC_COMM_WORLD, &world_size), "gdc_comm_size") != GDBENCH_OK) {
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}

int gdbench_be_finalize(void)
{
    return check(gdc_finalize(), "gdc_finalize");
}

void gdbench_be_abort(int code)
{
    gdc_abort(GDC_COMM_WORLD, code);
    exit(code); /* gdc_abort returns only when it could not end the job */
}

int gdbench_be_rank(void)
{
    return world_rank;
}

int gdbench_be_size(void)
{
    return world_size;
}

const char *gdbench_be_library(void)
{
    const char *full = gdc_version_string();
    size_t      n    = strcspn(full, "(");

    /* "gdc 0.1.0 (UCX ...)" -> "gdc 0.1.0" */
    while (n > 0 && full[n - 1] == ' ') {
        n--;
    }
    if (n >= sizeof(library_short)) {
        n = sizeof(library_short) - 1;
    }
    memcpy(library_short, full, n);
    library_short[n] = '\0';
    return library_short;
}

const char *gdbench_be_library_long(void)
{
    return gdc_version_string();
}

double gdbench_be_wtime(void)
{
    return gdc_wtime();
}

int gdbench_be_check_support(const gdbench_options_t *opts)
{
    (void)opts; /* gdc takes every dtype, op and memory type the harness has */
    return GDBENCH_OK;
}

/* ---------------------------------------------------------------------------------------
 * The harness's barrier and statistics
 */
int gdbench_be_barrier(void)
{
    return check(gdc_barrier(GDC_COMM_WORLD), "gdc_barrier");
}

int gdbench_be_reduce_doubles(double *values, int n, gdbench_stat_op_t op)
{
    static const gdc_op_t ops[] = {[GDBENCH_STAT_MIN] = GDC_MIN, [GDBENCH_STAT_MAX] = GDC_MAX,
                                   [GDBENCH_STAT_SUM] = GDC_SUM};

    return check(gdc_allreduce(GDC_IN_PLACE, values, (size_t)n, GDC_FLOAT64, ops[op], GDC_COMM_WORLD),
                 "gdc_allreduce");
}

/* ---------------------------------------------------------------------------------------
 * The benchmarked collectives
 */
int gdbench_be_prepare(gdbench_call_t *call)
{
    (void)call; /* gdc takes size_t counts and the harness's buffers as they are */
    return GDBENCH_OK;
}

void gdbench_be_release(gdbench_call_t *call)
{
    (void)call;
}

int gdbench_be_collective(gdbench_call_t *c)
{
    const void *send  = c->in_place && c->test != GDBENCH_SCATTER ? GDC_IN_PLACE : c->sendbuf;
    void       *recv  = c->in_place && c->test == GDBENCH_SCATTER ? GDC_IN_PLACE : c->recvbuf;
    gdc_dtype_t dtype = dtype_map[c->dtype];
    gdc_op_t    op    = op_map[c->op];

    switch (c->test) {
    case GDBENCH_ALLREDUCE:
        return check(gdc_allreduce(send, recv, c->count, dtype, op, GDC_COMM_WORLD), "gdc_allreduce");
    case GDBENCH_BCAST:
        return check(gdc_bcast(recv, c->count, dtype, c->root, GDC_COMM_WORLD), "gdc_bcast");
    case GDBENCH_REDUCE:
        return check(gdc_reduce(send, recv, c->count, dtype, op, c->root, GDC_COMM_WORLD), "gdc_reduce");
    case GDBENCH_ALLGATHER:
        return check(gdc_allgather(send, recv, c->count, dtype, GDC_COMM_WORLD), "gdc_allgather");
    case GDBENCH_REDUCE_SCATTER:
        return check(gdc_reduce_scatter(send, recv, c->count, dtype, op, GDC_COMM_WORLD), "gdc_reduce_scatter");
    case GDBENCH_ALLTOALL:
        return check(gdc_alltoall(send, recv, c->count, dtype, GDC_COMM_WORLD), "gdc_alltoall");
    case GDBENCH_ALLTOALLV:
        return check(gdc_alltoallv(send, c->sendcounts, c->sdispls, recv, c->recvcounts, c->rdispls, dtype,
                                   GDC_COMM_WORLD),
                     "gdc_alltoallv");
    case GDBENCH_GATHER:
        return check(gdc_gather(send, recv, c->count, dtype, c->root, GDC_COMM_WORLD), "gdc_gather");
    case GDBENCH_SCATTER:
        return check(gdc_scatter(send, recv, c->count, dtype, c->root, GDC_COMM_WORLD), "gdc_scatter");
    case GDBENCH_BARRIER:
        return check(gdc_barrier(GDC_COMM_WORLD), "gdc_barrier");
    default:
        gdbench_set_error("internal: %s is not a collective", gdbench_test_info(c->test)->name);
        return GDBENCH_ERR;
    }
}

/* ---------------------------------------------------------------------------------------
 * Point-to-point
 */
int gdbench_be_send(const void *buf, size_t bytes, int peer, int tag)
{
    return check(gdc_send(buf, bytes, GDC_BYTE, peer, tag, GDC_COMM_WORLD), "gdc_send");
}

int gdbench_be_recv(void *buf, size_t bytes, int peer, int tag)
{
    return check(gdc_recv(buf, bytes, GDC_BYTE, peer, tag, GDC_COMM_WORLD), "gdc_recv");
}

int gdbench_be_isend(const void *buf, size_t bytes, int peer, int tag, int slot)
{
    return check(gdc_isend(buf, bytes, GDC_BYTE, peer, tag, GDC_COMM_WORLD, &slots[slot]), "gdc_isend");
}

int gdbench_be_irecv(void *buf, size_t bytes, int peer, int tag, int slot)
{
    return check(gdc_irecv(buf, bytes, GDC_BYTE, peer, tag, GDC_COMM_WORLD, &slots[slot]), "gdc_irecv");
}

int gdbench_be_waitall(int nslots)
{
    return check(gdc_waitall(nslots, slots), "gdc_waitall");
}
