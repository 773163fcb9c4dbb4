/*
 * gdbench's MPI backend (gdbench-mpi, gdbench-mpich): the same harness, MPI underneath,
 * so that a user runs both sides with the same options and reads the same columns.
 *
 * Mapping: reduce_scatter is MPI_Reduce_scatter_block; alltoallv is MPI_Alltoallv with
 * int counts (a count above INT_MAX is reported as unsupported). MPI has no average:
 * avg is MPI_SUM followed by a division on the host, inside the timed region (what a
 * user would have to do); it needs host buffers. MPI has no standard 16-bit float type:
 * float16 and bfloat16 are unsupported. -a is unsupported: choose MPI's algorithms with
 * the library's own variables (Open MPI: OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
 * OMPI_MCA_coll_tuned_<coll>_algorithm=N). -d cuda needs a CUDA-aware MPI, which is
 * asked with MPIX_Query_cuda_support where the library has it.
 */
#include "gdbench_backend.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#ifndef GDBENCH_PROGRAM_NAME
#define GDBENCH_PROGRAM_NAME "gdbench-mpi"
#endif

static int         world_rank = -1, world_size = 0;
static MPI_Request slots[GDBENCH_BE_SLOTS];
/* a real status array, as OSU's: gcc 12 misreads MPICH's MPI_STATUSES_IGNORE as a buffer */
static MPI_Status  statuses[GDBENCH_BE_SLOTS];
static char        library_long[MPI_MAX_LIBRARY_VERSION_STRING];
static char        library_short[96];

/* Translate an MPI return code (errors return: MPI_ERRORS_RETURN is set at init). */
static int check(int rc, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int  len = 0;

    if (rc == MPI_SUCCESS) {
        return GDBENCH_OK;
    }
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) {
        snprintf(text, sizeof(text), "MPI error %d", rc);
    }
    gdbench_set_error("%s: %s", call, text);
    return GDBENCH_ERR;
}

static MPI_Datatype mpi_dtype(gdbench_dtype_t dtype)
{
    switch (dtype) {
    case GDBENCH_INT8: return MPI_INT8_T;
    case GDBENCH_UINT8: return MPI_UINT8_T;
    case GDBENCH_INT16: return MPI_INT16_T;
    case GDBENCH_UINT16: return MPI_UINT16_T;
    case GDBENCH_INT32: return MPI_INT32_T;
    case GDBENCH_UINT32: return MPI_UINT32_T;
    case GDBENCH_INT64: return MPI_INT64_T;
    case GDBENCH_UINT64: return MPI_UINT64_T;
    case GDBENCH_FLOAT32: return MPI_FLOAT;
    case GDBENCH_FLOAT64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

static MPI_Op mpi_op(gdbench_op_t op)
{
    switch (op) {
    case GDBENCH_SUM:
    case GDBENCH_AVG: return MPI_SUM;
    case GDBENCH_PROD: return MPI_PROD;
    case GDBENCH_MIN: return MPI_MIN;
    case GDBENCH_MAX: return MPI_MAX;
    case GDBENCH_BAND: return MPI_BAND;
    case GDBENCH_BOR: return MPI_BOR;
    default: return MPI_BXOR;
    }
}

const char *gdbench_be_program(void)
{
    return GDBENCH_PROGRAM_NAME;
}

const char *gdbench_be_name(void)
{
    return "mpi";
}

int gdbench_be_select_algorithm(gdbench_test_t test, const char *name)
{
    (void)test;
    gdbench_set_error("-a %s: the MPI backend cannot force an algorithm; use the MPI library's own settings "
                      "(Open MPI: OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_<coll>_algorithm=N)",
                      name);
    return GDBENCH_UNSUPPORTED;
}

/* "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"; "MPICH Version:  4.0.2\n..." -> "MPICH 4.0.2" */
static void shorten_library_name(void)
{
    const char *src = library_long;
    size_t      n   = 0;

    while (*src != '\0' && *src != ',' && *src != '\n' && n + 1 < sizeof(library_short)) {
        if (strncmp(src, "Version:", 8) == 0) {
            src += 8;
            continue;
        }
        if ((*src == ' ' || *src == '\t') && (n == 0 || library_short[n - 1] == ' ')) {
            src++;
            continue;
        }
        library_short[n++] = *src == '\t' ? ' ' : *src;
        src++;
    }
    while (n > 0 && library_short[n - 1] == ' ') {
        n--;
    }
    library_short[n] = '\0';
}

int gdbench_be_init(int *argc, char ***argv)
{
    int len = 0;

    if (check(MPI_Init(argc, argv), "MPI_Init") != GDBENCH_OK) {
        return GDBENCH_ERR;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Get_library_version(library_long, &len);
    /* MPICH's string runs over many lines; keep the first (version) line */
    library_long[strcspn(library_long, "\n")] = '\0';
    for (char *p = library_long; *p != '\0'; p++) {
        *p = *p == '\t' ? ' ' : *p;
    }
    shorten_library_name();
    return GDBENCH_OK;
}

int gdbench_be_finalize(void)
{
    return check(MPI_Finalize(), "MPI_Finalize");
}

void gdbench_be_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
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
    return library_short;
}

const char *gdbench_be_library_long(void)
{
    return library_long;
}

double gdbench_be_wtime(void)
{
    return MPI_Wtime();
}

/* 1: CUDA-aware, 0: not, -1: the library cannot say. */
static int cuda_aware(void)
{
#if (defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT) || defined(MPICH)
    return MPIX_Query_cuda_support() ? 1 : 0;
#else
    return -1;
#endif
}

int gdbench_be_check_support(const gdbench_options_t *opts)
{
    const gdbench_test_info_t *info = gdbench_test_info(opts->test);

    if (!(info->flags & GDBENCH_F_NO_DATA) && mpi_dtype(opts->dtype) == MPI_DATATYPE_NULL) {
        gdbench_set_error("-T %s: MPI has no standard %s datatype (use gdbench for 16-bit floats)",
                          gdbench_dtype_info(opts->dtype)->name, gdbench_dtype_info(opts->dtype)->name);
        return GDBENCH_UNSUPPORTED;
    }
    if (opts->memory != GDBENCH_MEM_HOST) {
        if (cuda_aware() == 0) {
            gdbench_set_error("-d cuda: %s is not CUDA-aware (MPIX_Query_cuda_support() returned 0)", library_short);
            return GDBENCH_UNSUPPORTED;
        }
        if ((info->flags & GDBENCH_F_REDUCTION) && opts->op == GDBENCH_AVG) {
            gdbench_set_error("-o avg -d cuda: MPI has no average; gdbench-mpi emulates it on host buffers only");
            return GDBENCH_UNSUPPORTED;
        }
    }
    return GDBENCH_OK;
}

int gdbench_be_barrier(void)
{
    return check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

int gdbench_be_reduce_doubles(double *values, int n, gdbench_stat_op_t op)
{
    MPI_Op mop = op == GDBENCH_STAT_MIN ? MPI_MIN : op == GDBENCH_STAT_MAX ? MPI_MAX : MPI_SUM;

    return check(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, mop, MPI_COMM_WORLD), "MPI_Allreduce");
}

/* ---------------------------------------------------------------------------------------
 * Collectives
 */
typedef struct {
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
} mpi_counts_t;

static int to_int(size_t value, int *out, const char *what)
{
    if (value > INT_MAX) {
        gdbench_set_error("%s %zu does not fit MPI's int counts", what, value);
        return GDBENCH_UNSUPPORTED;
    }
    *out = (int)value;
    return GDBENCH_OK;
}

int gdbench_be_prepare(gdbench_call_t *call)
{
    int           n = world_size, ignored, status;
    mpi_counts_t *counts;

    /* the whole buffer's element count must fit an int too (MPI's displacements) */
    status = to_int(call->count * (size_t)n, &ignored, "element count");
    if (status != GDBENCH_OK || call->test != GDBENCH_ALLTOALLV) {
        return status;
    }
    counts = calloc(1, sizeof(*counts));
    if (counts == NULL || (counts->sendcounts = calloc(4 * (size_t)n, sizeof(int))) == NULL) {
        free(counts);
        gdbench_set_error("out of memory for alltoallv counts");
        return GDBENCH_ERR;
    }
    counts->sdispls    = counts->sendcounts + n;
    counts->recvcounts = counts->sdispls + n;
    counts->rdispls    = counts->recvcounts + n;
    for (int p = 0; p < n && status == GDBENCH_OK; p++) {
        status = to_int(call->sendcounts[p], &counts->sendcounts[p], "alltoallv count");
        status = status ? status : to_int(call->sdispls[p], &counts->sdispls[p], "alltoallv displacement");
        status = status ? status : to_int(call->recvcounts[p], &counts->recvcounts[p], "alltoallv count");
        status = status ? status : to_int(call->rdispls[p], &counts->rdispls[p], "alltoallv displacement");
    }
    call->backend_data = counts;
    return status;
}

void gdbench_be_release(gdbench_call_t *call)
{
    mpi_counts_t *counts = call->backend_data;

    if (counts != NULL) {
        free(counts->sendcounts);
        free(counts);
        call->backend_data = NULL;
    }
}

/* MPI has no average: sum, then divide the result where there is one. */
static int finish_avg(const gdbench_call_t *c, int rc, void *result, size_t count)
{
    if (rc == MPI_SUCCESS && c->op == GDBENCH_AVG && result != NULL) {
        gdbench_dtype_divide(result, count, c->dtype, world_size);
    }
    return rc;
}

int gdbench_be_collective(gdbench_call_t *c)
{
    const void   *send   = c->in_place && c->test != GDBENCH_SCATTER ? MPI_IN_PLACE : c->sendbuf;
    void         *recv   = c->in_place && c->test == GDBENCH_SCATTER ? MPI_IN_PLACE : c->recvbuf;
    MPI_Datatype  dtype  = mpi_dtype(c->dtype);
    MPI_Op        op     = mpi_op(c->op);
    int           count  = (int)c->count; /* checked by gdbench_be_prepare */
    MPI_Comm      comm   = MPI_COMM_WORLD;
    mpi_counts_t *counts = c->backend_data;
    int           rc;

    switch (c->test) {
    case GDBENCH_ALLREDUCE:
        rc = MPI_Allreduce(send, recv, count, dtype, op, comm);
        return check(finish_avg(c, rc, recv, c->count), "MPI_Allreduce");
    case GDBENCH_BCAST:
        return check(MPI_Bcast(recv, count, dtype, c->root, comm), "MPI_Bcast");
    case GDBENCH_REDUCE:
        rc = MPI_Reduce(send, recv, count, dtype, op, c->root, comm);
        return check(finish_avg(c, rc, world_rank == c->root ? recv : NULL, c->count), "MPI_Reduce");
    case GDBENCH_ALLGATHER:
        return check(MPI_Allgather(send, count, dtype, recv, count, dtype, comm), "MPI_Allgather");
    case GDBENCH_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block(send, recv, count, dtype, op, comm);
        return check(finish_avg(c, rc, recv, c->count), "MPI_Reduce_scatter_block");
    case GDBENCH_ALLTOALL:
        return check(MPI_Alltoall(send, count, dtype, recv, count, dtype, comm), "MPI_Alltoall");
    case GDBENCH_ALLTOALLV:
        return check(MPI_Alltoallv(send, counts->sendcounts, counts->sdispls, dtype, recv, counts->recvcounts,
                                   counts->rdispls, dtype, comm),
                     "MPI_Alltoallv");
    case GDBENCH_GATHER:
        return check(MPI_Gather(send, count, dtype, recv, count, dtype, c->root, comm), "MPI_Gather");
    case GDBENCH_SCATTER:
        return check(MPI_Scatter(send, count, dtype, recv, count, dtype, c->root, comm), "MPI_Scatter");
    case GDBENCH_BARRIER:
        return check(MPI_Barrier(comm), "MPI_Barrier");
    default:
        gdbench_set_error("internal: %s is not a collective", gdbench_test_info(c->test)->name);
        return GDBENCH_ERR;
    }
}

/* ---------------------------------------------------------------------------------------
 * Point-to-point, in bytes as OSU (MPI_CHAR there)
 */
static int byte_count(size_t bytes, int *count)
{
    if (bytes > INT_MAX) {
        gdbench_set_error("message of %zu bytes does not fit MPI's int count", bytes);
        return GDBENCH_ERR;
    }
    *count = (int)bytes;
    return GDBENCH_OK;
}

int gdbench_be_send(const void *buf, size_t bytes, int peer, int tag)
{
    int n;

    return byte_count(bytes, &n) ? GDBENCH_ERR : check(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD), "MPI_Send");
}

int gdbench_be_recv(void *buf, size_t bytes, int peer, int tag)
{
    int n;

    return byte_count(bytes, &n) ? GDBENCH_ERR
                                 : check(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                                         "MPI_Recv");
}

int gdbench_be_isend(const void *buf, size_t bytes, int peer, int tag, int slot)
{
    int n;

    return byte_count(bytes, &n) ? GDBENCH_ERR
                                 : check(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &slots[slot]),
                                         "MPI_Isend");
}

int gdbench_be_irecv(void *buf, size_t bytes, int peer, int tag, int slot)
{
    int n;

    return byte_count(bytes, &n) ? GDBENCH_ERR
                                 : check(MPI_Irecv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &slots[slot]),
                                         "MPI_Irecv");
}

int gdbench_be_waitall(int nslots)
{
    return check(MPI_Waitall(nslots, slots, statuses), "MPI_Waitall");
}
