/*
 * The tests: their properties, what Size means for each (OSU's meaning, so that columns
 * compare with osu_* directly), nccl-tests' byte counts and bus-bandwidth factors, and
 * OSU's default iterations and sizes.
 */
#include "gdbench.h"

#include <string.h>

#define REDUCTION GDBENCH_F_REDUCTION
#define ROOTED    GDBENCH_F_ROOTED
#define IN_PLACE  GDBENCH_F_IN_PLACE
#define P2P       GDBENCH_F_P2P
#define NO_DATA   GDBENCH_F_NO_DATA

static const gdbench_test_info_t test_table[GDBENCH_TEST_COUNT] = {
    [GDBENCH_ALLREDUCE] = {"allreduce", REDUCTION | IN_PLACE, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ALLREDUCE,
                           "bytes of each rank's input (and of the result)"},
    [GDBENCH_BCAST] = {"bcast", ROOTED, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ONE,
                       "bytes the root broadcasts"},
    [GDBENCH_REDUCE] = {"reduce", REDUCTION | ROOTED | IN_PLACE, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ONE,
                        "bytes of each rank's input (and of the root's result)"},
    [GDBENCH_ALLGATHER] = {"allgather", IN_PLACE, GDBENCH_BYTES_SIZE_TIMES_N, GDBENCH_BUS_N_MINUS_1_OVER_N,
                           "bytes each rank contributes; the result is ranks x Size"},
    [GDBENCH_REDUCE_SCATTER] = {"reduce_scatter", REDUCTION | IN_PLACE, GDBENCH_BYTES_SIZE,
                                GDBENCH_BUS_N_MINUS_1_OVER_N,
                                "bytes of each rank's whole input; each rank receives Size/ranks"},
    [GDBENCH_ALLTOALL] = {"alltoall", IN_PLACE, GDBENCH_BYTES_SIZE_TIMES_N, GDBENCH_BUS_N_MINUS_1_OVER_N,
                          "bytes each rank sends to each rank; buffers are ranks x Size"},
    [GDBENCH_ALLTOALLV] = {"alltoallv", 0, GDBENCH_BYTES_SIZE_TIMES_N, GDBENCH_BUS_N_MINUS_1_OVER_N,
                           "bytes each rank sends to each rank (equal counts, as osu_alltoallv)"},
    [GDBENCH_GATHER] = {"gather", ROOTED | IN_PLACE, GDBENCH_BYTES_SIZE_TIMES_N, GDBENCH_BUS_N_MINUS_1_OVER_N,
                        "bytes each rank sends to the root; the root receives ranks x Size"},
    [GDBENCH_SCATTER] = {"scatter", ROOTED | IN_PLACE, GDBENCH_BYTES_SIZE_TIMES_N, GDBENCH_BUS_N_MINUS_1_OVER_N,
                         "bytes the root sends to each rank; the root sends ranks x Size"},
    [GDBENCH_BARRIER] = {"barrier", NO_DATA, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ONE,
                         "none (one row, Size 0)"},
    [GDBENCH_LATENCY] = {"latency", P2P, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ONE,
                         "message bytes; latency is half the round trip (osu_latency)"},
    [GDBENCH_BW] = {"bw", P2P, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ONE,
                    "message bytes; windows of 64 messages one way (osu_bw)"},
    [GDBENCH_BIBW] = {"bibw", P2P, GDBENCH_BYTES_SIZE, GDBENCH_BUS_ONE,
                      "message bytes; windows of 64 messages both ways, rates count both (osu_bibw)"},
};

const gdbench_test_info_t *gdbench_test_info(gdbench_test_t test)
{
    return &test_table[test];
}

int gdbench_test_by_name(const char *name, gdbench_test_t *test)
{
    for (int i = 0; i < GDBENCH_TEST_COUNT; i++) {
        if (strcmp(name, test_table[i].name) == 0) {
            *test = (gdbench_test_t)i;
            return 0;
        }
    }
    return -1;
}

double gdbench_busbw_factor(gdbench_test_t test, int nranks)
{
    double n = nranks;

    switch (test_table[test].bus_rule) {
    case GDBENCH_BUS_ALLREDUCE: return 2.0 * (n - 1.0) / n;
    case GDBENCH_BUS_N_MINUS_1_OVER_N: return (n - 1.0) / n;
    default: return 1.0;
    }
}

/* OSU: messages above LARGE_MESSAGE_SIZE (8 KiB) get fewer iterations. */
#define OSU_LARGE_MESSAGE_SIZE 8192

void gdbench_default_iterations(gdbench_test_t test, size_t size, long *iterations, long *warmup)
{
    int large = size > OSU_LARGE_MESSAGE_SIZE;

    switch (test) {
    case GDBENCH_LATENCY: /* osu_latency */
        *iterations = large ? 1000 : 10000;
        *warmup     = large ? 10 : 100;
        break;
    case GDBENCH_BW: /* osu_bw, osu_bibw: each iteration is a window of 64 messages */
    case GDBENCH_BIBW:
        *iterations = large ? 20 : 100;
        *warmup     = large ? 2 : 10;
        break;
    default: /* osu_allreduce and the other collectives */
        *iterations = large ? 100 : 1000;
        *warmup     = large ? 10 : 200;
        break;
    }
}

gdbench_dtype_t gdbench_default_dtype(gdbench_test_t test)
{
    /* reductions on float32 (the common case, and nccl-tests' default); everything else
     * moves bytes, so sizes start at 1 as in OSU */
    return (test_table[test].flags & REDUCTION) ? GDBENCH_FLOAT32 : GDBENCH_UINT8;
}

void gdbench_default_sizes(gdbench_test_t test, gdbench_dtype_t dtype, size_t *min_size, size_t *max_size)
{
    if (test_table[test].flags & P2P) {
        *min_size = test == GDBENCH_LATENCY ? 0 : 1; /* osu_latency starts at 0 bytes */
        *max_size = (size_t)4 << 20;                  /* OSU's point-to-point maximum */
    } else {
        *min_size = gdbench_dtype_info(dtype)->size;
        *max_size = (size_t)1 << 20;
    }
}

const char *gdbench_algorithm_variable(gdbench_test_t test)
{
    static const char *const variables[GDBENCH_TEST_COUNT] = {
        [GDBENCH_ALLREDUCE] = "GDC_ALLREDUCE_ALGO",
        [GDBENCH_BCAST] = "GDC_BCAST_ALGO",
        [GDBENCH_REDUCE] = "GDC_REDUCE_ALGO",
        [GDBENCH_ALLGATHER] = "GDC_ALLGATHER_ALGO",
        [GDBENCH_REDUCE_SCATTER] = "GDC_REDUCE_SCATTER_ALGO",
        [GDBENCH_ALLTOALL] = "GDC_ALLTOALL_ALGO",
        [GDBENCH_ALLTOALLV] = "GDC_ALLTOALLV_ALGO",
        [GDBENCH_GATHER] = "GDC_GATHER_ALGO",
        [GDBENCH_SCATTER] = "GDC_SCATTER_ALGO",
        [GDBENCH_BARRIER] = "GDC_BARRIER_ALGO",
    };

    return variables[test];
}

/* ---------------------------------------------------------------------------------------
 * Geometry of one size on one rank
 */
int gdbench_layout_for(const gdbench_options_t *opts, size_t size, int rank, int nranks,
                       gdbench_layout_t *layout)
{
    gdbench_layout_t l     = {0};
    size_t           esize = gdbench_dtype_info(opts->dtype)->size;
    size_t           n     = (size_t)nranks;
    int              root  = rank == opts->root;

    l.size  = size;
    l.count = size / esize;
    switch (opts->test) {
    case GDBENCH_ALLREDUCE:
        l.send_elems  = opts->in_place ? 0 : l.count;
        l.recv_elems  = l.count;
        l.check_elems = l.count;
        break;
    case GDBENCH_REDUCE:
        l.send_elems  = opts->in_place && root ? 0 : l.count;
        l.recv_elems  = root ? l.count : 0;
        l.check_elems = root ? l.count : 0;
        break;
    case GDBENCH_BCAST:
        l.recv_elems  = l.count; /* the one buffer */
        l.check_elems = l.count;
        break;
    case GDBENCH_REDUCE_SCATTER:
        l.count       = size / (esize * n);
        l.send_elems  = opts->in_place ? 0 : n * l.count;
        l.recv_elems  = opts->in_place ? n * l.count : l.count;
        l.check_elems = l.count; /* in place too: the result is at the start (as MPI) */
        break;
    case GDBENCH_ALLGATHER:
        l.send_elems  = opts->in_place ? 0 : l.count;
        l.recv_elems  = n * l.count;
        l.check_elems = n * l.count;
        break;
    case GDBENCH_ALLTOALL:
    case GDBENCH_ALLTOALLV:
        l.send_elems  = opts->in_place ? 0 : n * l.count;
        l.recv_elems  = n * l.count;
        l.check_elems = n * l.count;
        break;
    case GDBENCH_GATHER:
        l.send_elems  = opts->in_place && root ? 0 : l.count;
        l.recv_elems  = root ? n * l.count : 0;
        l.check_elems = l.recv_elems;
        break;
    case GDBENCH_SCATTER:
        l.send_elems  = root ? n * l.count : 0;
        l.recv_elems  = opts->in_place && root ? 0 : l.count;
        l.check_elems = l.recv_elems;
        break;
    case GDBENCH_LATENCY:
    case GDBENCH_BIBW:
        l.send_elems  = l.count;
        l.recv_elems  = l.count;
        l.check_elems = l.count;
        break;
    case GDBENCH_BW: /* rank 0 sends, rank 1 receives and answers with a 4-byte ack */
        l.send_elems  = l.count;
        l.recv_elems  = l.count;
        l.check_elems = rank == 1 ? l.count : 0;
        break;
    case GDBENCH_BARRIER:
    default:
        break;
    }
    if (opts->test != GDBENCH_BARRIER && l.count == 0 && !(opts->test == GDBENCH_LATENCY && size == 0)) {
        return GDBENCH_ERR;
    }
    l.bytes = (double)(l.count * esize);
    if (opts->test == GDBENCH_REDUCE_SCATTER || test_table[opts->test].bytes_rule == GDBENCH_BYTES_SIZE_TIMES_N) {
        l.bytes *= (double)n; /* nccl-tests counts the whole buffer */
    }
    if (opts->test == GDBENCH_BIBW) {
        l.bytes *= 2.0; /* both directions, as osu_bibw's bandwidth */
    }
    *layout = l;
    return GDBENCH_OK;
}
