/*
 * The public collectives: check every argument, describe the call (gdc_coll_args_t and the
 * buffers the executor sees as INPUT and OUTPUT), start it. A blocking call is the
 * nonblocking one followed by a wait.
 */
#include <string.h>

#include "engine/engine.h"
#include "gdc_coll.h"
#include "select/select.h"
#include "rt_shm.h"
#include "gdc_rt.h"

/* What each collective asks of its arguments. */
typedef struct coll_call {
    const char     *fn;
    gdc_coll_type_t coll;
    int             reduces;     /* takes an op */
    int             rooted;
    int             nonblocking; /* returns a request */
} coll_call_t;

static gdc_status_t check_common(const coll_call_t *call, gdc_comm_t comm, gdc_dtype_t dtype, gdc_op_t op,
                                 int root, gdc_request_t *req)
{
    gdc_status_t status;

    if ((status = gdc_rt_check_comm(call->fn, comm)) != GDC_SUCCESS ||
        (call->nonblocking && (status = gdc_rt_check_pointer(call->fn, "req", req)) != GDC_SUCCESS) ||
        (status = gdc_rt_check_dtype(call->fn, dtype)) != GDC_SUCCESS) {
        return status;
    }
    if (call->reduces && (status = gdc_rt_check_op(call->fn, op, dtype)) != GDC_SUCCESS) {
        return status;
    }
    if (call->rooted && (status = gdc_rt_check_rank(call->fn, "root", root, comm)) != GDC_SUCCESS) {
        return status;
    }
    return GDC_SUCCESS;
}

static gdc_status_t bad(const char *fn, const char *what)
{
    GDC_LOG_ERROR("%s: %s", fn, what);
    return GDC_ERR_INVALID_ARG;
}

/* A user buffer of `count` elements that must be there (not NULL when count > 0, not
 * GDC_IN_PLACE). */
static gdc_status_t check_data(const char *fn, const char *name, const void *buf, size_t count, gdc_dtype_t dtype)
{
    if (buf == GDC_IN_PLACE) {
        GDC_LOG_ERROR("%s: %s cannot be GDC_IN_PLACE here", fn, name);
        return GDC_ERR_INVALID_ARG;
    }
    return gdc_rt_check_buffer(fn, name, buf, count, dtype);
}

/* sendbuf (count_in elements, or GDC_IN_PLACE where allowed) and recvbuf (count_out). */
static gdc_status_t check_send_recv(const char *fn, const void *sendbuf, size_t count_in, const void *recvbuf,
                                    size_t count_out, gdc_dtype_t dtype, int in_place_ok)
{
    gdc_status_t status;

    if (sendbuf == GDC_IN_PLACE && !in_place_ok) {
        return bad(fn, "sendbuf is GDC_IN_PLACE, which is only valid at the root here");
    }
    if (sendbuf != GDC_IN_PLACE &&
        (status = gdc_rt_check_buffer(fn, "sendbuf", sendbuf, count_in, dtype)) != GDC_SUCCESS) {
        return status;
    }
    if ((status = check_data(fn, "recvbuf", recvbuf, count_out, dtype)) != GDC_SUCCESS) {
        return status;
    }
    if (sendbuf == recvbuf && sendbuf != NULL && count_in > 0) {
        return bad(fn, "sendbuf and recvbuf are the same buffer; pass GDC_IN_PLACE as sendbuf instead");
    }
    return GDC_SUCCESS;
}

static gdc_coll_args_t make_args(const coll_call_t *call, gdc_comm_t comm, size_t count, gdc_dtype_t dtype,
                                 gdc_op_t op, int root, int in_place)
{
    /* copied from a zeroed constant, not memset: gcc's `rep stos` for the memset cost 5% of
     * a small blocking call */
    static const gdc_coll_args_t none;
    gdc_coll_args_t              args = none;

    args.coll      = call->coll;
    args.count     = count;
    args.dtype     = dtype;
    args.dsize     = gdc_dtype_size(dtype);
    args.op        = call->reduces ? op : GDC_SUM;
    args.root      = call->rooted ? root : 0;
    args.in_place  = in_place;
    args.size      = comm->size;
    args.rank      = comm->rank;
    args.node_of   = comm->node_of;
    args.num_nodes = comm->num_nodes;
    args.shm_bytes = comm->shm != NULL ? comm->shm->data_bytes : 0;
    args.shm_cma   = comm->shm != NULL && comm->shm->cma;
    args.shm_ipc   = comm->shm != NULL && comm->shm->ipc;
    args.shm_one_gpu = args.shm_ipc && comm->shm->one_gpu;
    args.node_cores  = gdc_coll_machine.cores_per_node;
    args.core_cache  = (size_t)gdc_coll_machine.core_cache_kib << 10;
    args.config    = gdc_coll_config_get();
    args.layout = gdc_coll_comm_layout(comm, &args);
    gdc_coll_select_chunks(&args);
    return args;
}

/* Start the call with the user's buffers (GDC_IN_PLACE markers included); with req NULL,
 * run it to completion (a blocking call). */
static gdc_status_t start(gdc_comm_t comm, const gdc_coll_args_t *args, const void *sendbuf, void *recvbuf,
                          gdc_request_t *req)
{
    gdc_coll_buffers_t bufs;

    gdc_coll_map_buffers(args, sendbuf, recvbuf, &bufs.input, &bufs.output);
    bufs.probe = bufs.output != NULL ? bufs.output : bufs.input;
    return req != NULL ? gdc_coll_start(comm, args, &bufs, req) : gdc_coll_run_blocking(comm, args, &bufs);
}

/* This rank refused the call's arguments (status): with GDC_CHECK it still takes part in
 * the signatures' exchange, saying so, so that the others fail with it instead of waiting
 * for it. Without a usable communicator there is nobody to tell. */
static gdc_status_t refuse(const coll_call_t *call, gdc_comm_t comm, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                           int root, gdc_status_t status)
{
    gdc_coll_args_t args;

    if (gdc_rt_comm_usable(comm)) {
        args = make_args(call, comm, count, dtype, op, root, 0);
        gdc_coll_rejected(comm, &args);
    }
    return status;
}

/* ---------------------------------------------------------------------------------------
 * barrier, bcast
 */

static const coll_call_t ibarrier_call = {"gdc_ibarrier", GDC_COLL_BARRIER, 0, 0, 1};
static const coll_call_t barrier_call = {"gdc_barrier", GDC_COLL_BARRIER, 0, 0, 0};

static gdc_status_t barrier_start(const coll_call_t *call, gdc_comm_t comm, gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, GDC_BYTE, GDC_SUM, 0, req);
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS) {
        return refuse(call, comm, 0, GDC_BYTE, GDC_SUM, 0, status);
    }
    args = make_args(call, comm, 0, GDC_BYTE, GDC_SUM, 0, 0);
    return start(comm, &args, NULL, NULL, req);
}

gdc_status_t gdc_ibarrier(gdc_comm_t comm, gdc_request_t *req)
{
    return barrier_start(&ibarrier_call, comm, req);
}

gdc_status_t gdc_barrier(gdc_comm_t comm)
{
    return barrier_start(&barrier_call, comm, NULL);
}

static const coll_call_t ibcast_call = {"gdc_ibcast", GDC_COLL_BCAST, 0, 1, 1};
static const coll_call_t bcast_call = {"gdc_bcast", GDC_COLL_BCAST, 0, 1, 0};

static gdc_status_t bcast_start(const coll_call_t *call, void *buf, size_t count, gdc_dtype_t dtype, int root,
                                gdc_comm_t comm, gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, dtype, GDC_SUM, root, req);
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS || (status = check_data(call->fn, "buf", buf, count, dtype)) != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, GDC_SUM, root, status);
    }
    args = make_args(call, comm, count, dtype, GDC_SUM, root, 0);
    return start(comm, &args, buf, buf, req);
}

gdc_status_t gdc_ibcast(void *buf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm, gdc_request_t *req)
{
    return bcast_start(&ibcast_call, buf, count, dtype, root, comm, req);
}

gdc_status_t gdc_bcast(void *buf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm)
{
    return bcast_start(&bcast_call, buf, count, dtype, root, comm, NULL);
}

/* ---------------------------------------------------------------------------------------
 * reduce, allreduce, reduce_scatter
 */

static const coll_call_t ireduce_call = {"gdc_ireduce", GDC_COLL_REDUCE, 1, 1, 1};
static const coll_call_t reduce_call = {"gdc_reduce", GDC_COLL_REDUCE, 1, 1, 0};

static gdc_status_t reduce_start(const coll_call_t *call, const void *sendbuf, void *recvbuf, size_t count,
                                 gdc_dtype_t dtype, gdc_op_t op, int root, gdc_comm_t comm, gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, dtype, op, root, req);
    int             is_root, in_place;
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, op, root, status);
    }
    is_root  = comm->rank == root;
    in_place = is_root && sendbuf == GDC_IN_PLACE;
    if (is_root) {
        status = check_send_recv(call->fn, sendbuf, count, recvbuf, count, dtype, 1);
    } else if (sendbuf == GDC_IN_PLACE) {
        status = bad(call->fn, "sendbuf is GDC_IN_PLACE, which is only valid at the root");
    } else {
        status = gdc_rt_check_buffer(call->fn, "sendbuf", sendbuf, count, dtype);
    }
    if (status != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, op, root, status);
    }
    args = make_args(call, comm, count, dtype, op, root, in_place);
    return start(comm, &args, sendbuf, recvbuf, req);
}

gdc_status_t gdc_ireduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op, int root,
                         gdc_comm_t comm, gdc_request_t *req)
{
    return reduce_start(&ireduce_call, sendbuf, recvbuf, count, dtype, op, root, comm, req);
}

gdc_status_t gdc_reduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op, int root,
                        gdc_comm_t comm)
{
    return reduce_start(&reduce_call, sendbuf, recvbuf, count, dtype, op, root, comm, NULL);
}

/* The collectives where every rank has an input (or GDC_IN_PLACE) and an output:
 * allreduce, allgather, reduce_scatter, alltoall. in_elems/out_elems are per-call sizes. */
static gdc_status_t symmetric_start(const coll_call_t *call, const void *sendbuf, void *recvbuf, size_t count,
                                    size_t in_elems, size_t out_elems, gdc_dtype_t dtype, gdc_op_t op, gdc_comm_t comm,
                                    gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, dtype, op, 0, req);
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS ||
        (status = check_send_recv(call->fn, sendbuf, in_elems, recvbuf, out_elems, dtype, 1)) != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, op, 0, status);
    }
    args = make_args(call, comm, count, dtype, op, 0, sendbuf == GDC_IN_PLACE);
    return start(comm, &args, sendbuf, recvbuf, req);
}

static const coll_call_t iallreduce_call = {"gdc_iallreduce", GDC_COLL_ALLREDUCE, 1, 0, 1};
static const coll_call_t allreduce_call = {"gdc_allreduce", GDC_COLL_ALLREDUCE, 1, 0, 0};

gdc_status_t gdc_iallreduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                            gdc_comm_t comm, gdc_request_t *req)
{
    return symmetric_start(&iallreduce_call, sendbuf, recvbuf, count, count, count, dtype, op, comm, req);
}

gdc_status_t gdc_allreduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                           gdc_comm_t comm)
{
    return symmetric_start(&allreduce_call, sendbuf, recvbuf, count, count, count, dtype, op, comm, NULL);
}

/* size * count without overflow, for the collectives whose buffers hold a block per rank. */
static gdc_status_t blocks_of(const char *fn, gdc_comm_t comm, size_t count, gdc_dtype_t dtype, size_t *total)
{
    size_t limit = gdc_dtype_size(dtype) > 0 ? SIZE_MAX / 2 / gdc_dtype_size(dtype) : 0;

    if (count > limit / (size_t)comm->size) {
        GDC_LOG_ERROR("%s: count %zu per rank times %d ranks is too large", fn, count, comm->size);
        return GDC_ERR_INVALID_ARG;
    }
    *total = count * (size_t)comm->size;
    return GDC_SUCCESS;
}

static const coll_call_t ireduce_scatter_call = {"gdc_ireduce_scatter", GDC_COLL_REDUCE_SCATTER, 1, 0, 1};
static const coll_call_t reduce_scatter_call = {"gdc_reduce_scatter", GDC_COLL_REDUCE_SCATTER, 1, 0, 0};

static gdc_status_t reduce_scatter_start(const coll_call_t *call, const void *sendbuf, void *recvbuf, size_t recvcount,
                                         gdc_dtype_t dtype, gdc_op_t op, gdc_comm_t comm, gdc_request_t *req)
{
    size_t       total  = 0;
    gdc_status_t status = check_common(call, comm, dtype, op, 0, req);

    if (status != GDC_SUCCESS || (status = blocks_of(call->fn, comm, recvcount, dtype, &total)) != GDC_SUCCESS) {
        return refuse(call, comm, recvcount, dtype, op, 0, status);
    }
    /* in place, the whole input is in recvbuf: it must hold total elements */
    return symmetric_start(call, sendbuf, recvbuf, recvcount, total,
                           sendbuf == GDC_IN_PLACE ? total : recvcount, dtype, op, comm, req);
}

gdc_status_t gdc_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, gdc_dtype_t dtype, gdc_op_t op,
                                 gdc_comm_t comm, gdc_request_t *req)
{
    return reduce_scatter_start(&ireduce_scatter_call, sendbuf, recvbuf, recvcount, dtype, op, comm, req);
}

gdc_status_t gdc_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, gdc_dtype_t dtype, gdc_op_t op,
                                gdc_comm_t comm)
{
    return reduce_scatter_start(&reduce_scatter_call, sendbuf, recvbuf, recvcount, dtype, op, comm, NULL);
}

/* ---------------------------------------------------------------------------------------
 * allgather, alltoall, alltoallv
 */

static const coll_call_t iallgather_call = {"gdc_iallgather", GDC_COLL_ALLGATHER, 0, 0, 1};
static const coll_call_t allgather_call = {"gdc_allgather", GDC_COLL_ALLGATHER, 0, 0, 0};
static const coll_call_t ialltoall_call = {"gdc_ialltoall", GDC_COLL_ALLTOALL, 0, 0, 1};
static const coll_call_t alltoall_call = {"gdc_alltoall", GDC_COLL_ALLTOALL, 0, 0, 0};

static gdc_status_t blocks_start(const coll_call_t *call, const void *sendbuf, void *recvbuf, size_t count,
                                 gdc_dtype_t dtype, gdc_comm_t comm, gdc_request_t *req)
{
    size_t       total  = 0;
    gdc_status_t status = check_common(call, comm, dtype, GDC_SUM, 0, req);

    if (status != GDC_SUCCESS || (status = blocks_of(call->fn, comm, count, dtype, &total)) != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, GDC_SUM, 0, status);
    }
    return symmetric_start(call, sendbuf, recvbuf, count, call->coll == GDC_COLL_ALLGATHER ? count : total, total,
                           dtype, GDC_SUM, comm, req);
}

gdc_status_t gdc_iallgather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm,
                            gdc_request_t *req)
{
    return blocks_start(&iallgather_call, sendbuf, recvbuf, count, dtype, comm, req);
}

gdc_status_t gdc_allgather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm)
{
    return blocks_start(&allgather_call, sendbuf, recvbuf, count, dtype, comm, NULL);
}

gdc_status_t gdc_ialltoall(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm,
                           gdc_request_t *req)
{
    return blocks_start(&ialltoall_call, sendbuf, recvbuf, count, dtype, comm, req);
}

gdc_status_t gdc_alltoall(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm)
{
    return blocks_start(&alltoall_call, sendbuf, recvbuf, count, dtype, comm, NULL);
}

static const coll_call_t ialltoallv_call = {"gdc_ialltoallv", GDC_COLL_ALLTOALLV, 0, 0, 1};
static const coll_call_t alltoallv_call = {"gdc_alltoallv", GDC_COLL_ALLTOALLV, 0, 0, 0};

/* The extent (largest displacement + count) of a counts/displacements pair, or an error. */
static gdc_status_t extent_of(const char *fn, const char *what, const size_t *counts, const size_t *displs, int n,
                              gdc_dtype_t dtype, size_t *extent)
{
    size_t limit = SIZE_MAX / 2 / gdc_dtype_size(dtype);

    *extent = 0;
    for (int p = 0; p < n; p++) {
        if (counts[p] > limit || displs[p] > limit - counts[p]) {
            GDC_LOG_ERROR("%s: %s of rank %d (count %zu at %zu) is too large", fn, what, p, counts[p], displs[p]);
            return GDC_ERR_INVALID_ARG;
        }
        if (counts[p] > 0 && displs[p] + counts[p] > *extent) {
            *extent = displs[p] + counts[p];
        }
    }
    return GDC_SUCCESS;
}

static gdc_status_t alltoallv_start(const coll_call_t *call, const void *sendbuf, const size_t *sendcounts,
                                    const size_t *sdispls, void *recvbuf, const size_t *recvcounts,
                                    const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm, gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, dtype, GDC_SUM, 0, req);
    int             in_place = sendbuf == GDC_IN_PLACE;
    size_t          in_extent = 0, out_extent = 0;
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS) {
        return refuse(call, comm, 0, dtype, GDC_SUM, 0, status);
    }
    if (recvcounts == NULL || rdispls == NULL || (!in_place && (sendcounts == NULL || sdispls == NULL))) {
        return refuse(call, comm, 0, dtype, GDC_SUM, 0, bad(call->fn, "a counts or displacements array is NULL"));
    }
    if ((status = extent_of(call->fn, "the receive block", recvcounts, rdispls, comm->size, dtype, &out_extent)) ||
        (!in_place &&
         (status = extent_of(call->fn, "the send block", sendcounts, sdispls, comm->size, dtype, &in_extent)))) {
        return refuse(call, comm, 0, dtype, GDC_SUM, 0, status);
    }
    if (!in_place && sendcounts[comm->rank] != recvcounts[comm->rank]) {
        GDC_LOG_ERROR("%s: this rank sends itself %zu elements but expects %zu", call->fn, sendcounts[comm->rank],
                      recvcounts[comm->rank]);
        return refuse(call, comm, 0, dtype, GDC_SUM, 0, GDC_ERR_INVALID_ARG);
    }
    if ((status = check_send_recv(call->fn, sendbuf, in_extent, recvbuf, out_extent, dtype, 1)) != GDC_SUCCESS) {
        return refuse(call, comm, 0, dtype, GDC_SUM, 0, status);
    }
    args            = make_args(call, comm, 0, dtype, GDC_SUM, 0, in_place);
    args.sendcounts = in_place ? recvcounts : sendcounts;
    args.sdispls    = in_place ? rdispls : sdispls;
    args.recvcounts = recvcounts;
    args.rdispls    = rdispls;
    return start(comm, &args, sendbuf, recvbuf, req);
}

gdc_status_t gdc_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,
                            const size_t *recvcounts, const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm,
                            gdc_request_t *req)
{
    return alltoallv_start(&ialltoallv_call, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype,
                           comm, req);
}

gdc_status_t gdc_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,
                           const size_t *recvcounts, const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm)
{
    return alltoallv_start(&alltoallv_call, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls,
                                    dtype, comm, NULL);
}

/* ---------------------------------------------------------------------------------------
 * gather, scatter
 */

static const coll_call_t igather_call = {"gdc_igather", GDC_COLL_GATHER, 0, 1, 1};
static const coll_call_t gather_call = {"gdc_gather", GDC_COLL_GATHER, 0, 1, 0};
static const coll_call_t iscatter_call = {"gdc_iscatter", GDC_COLL_SCATTER, 0, 1, 1};
static const coll_call_t scatter_call = {"gdc_scatter", GDC_COLL_SCATTER, 0, 1, 0};

static gdc_status_t gather_start(const coll_call_t *call, const void *sendbuf, void *recvbuf, size_t count,
                                 gdc_dtype_t dtype, int root, gdc_comm_t comm, gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, dtype, GDC_SUM, root, req);
    size_t          total  = 0;
    int             is_root, in_place;
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS || (status = blocks_of(call->fn, comm, count, dtype, &total)) != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, GDC_SUM, root, status);
    }
    is_root  = comm->rank == root;
    in_place = is_root && sendbuf == GDC_IN_PLACE;
    if (is_root) {
        status = check_send_recv(call->fn, sendbuf, count, recvbuf, total, dtype, 1);
    } else if (sendbuf == GDC_IN_PLACE) {
        status = bad(call->fn, "sendbuf is GDC_IN_PLACE, which is only valid at the root");
    } else {
        status = gdc_rt_check_buffer(call->fn, "sendbuf", sendbuf, count, dtype);
    }
    if (status != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, GDC_SUM, root, status);
    }
    args = make_args(call, comm, count, dtype, GDC_SUM, root, in_place);
    return start(comm, &args, sendbuf, recvbuf, req);
}

gdc_status_t gdc_igather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm,
                         gdc_request_t *req)
{
    return gather_start(&igather_call, sendbuf, recvbuf, count, dtype, root, comm, req);
}

gdc_status_t gdc_gather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm)
{
    return gather_start(&gather_call, sendbuf, recvbuf, count, dtype, root, comm, NULL);
}

static gdc_status_t scatter_start(const coll_call_t *call, const void *sendbuf, void *recvbuf, size_t count,
                                  gdc_dtype_t dtype, int root, gdc_comm_t comm, gdc_request_t *req)
{
    gdc_status_t    status = check_common(call, comm, dtype, GDC_SUM, root, req);
    size_t          total  = 0;
    int             is_root, in_place;
    gdc_coll_args_t args;

    if (status != GDC_SUCCESS || (status = blocks_of(call->fn, comm, count, dtype, &total)) != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, GDC_SUM, root, status);
    }
    is_root  = comm->rank == root;
    in_place = is_root && recvbuf == GDC_IN_PLACE;
    if (is_root) {
        if ((status = check_data(call->fn, "sendbuf", sendbuf, total, dtype)) == GDC_SUCCESS && !in_place) {
            status = check_data(call->fn, "recvbuf", recvbuf, count, dtype);
        }
        if (status == GDC_SUCCESS && sendbuf == recvbuf && count > 0) {
            status = bad(call->fn, "sendbuf and recvbuf are the same buffer; pass GDC_IN_PLACE as recvbuf instead");
        }
    } else {
        status = check_data(call->fn, "recvbuf", recvbuf, count, dtype);
    }
    if (status != GDC_SUCCESS) {
        return refuse(call, comm, count, dtype, GDC_SUM, root, status);
    }
    args = make_args(call, comm, count, dtype, GDC_SUM, root, in_place);
    return start(comm, &args, sendbuf, recvbuf, req);
}

gdc_status_t gdc_iscatter(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                          gdc_comm_t comm, gdc_request_t *req)
{
    return scatter_start(&iscatter_call, sendbuf, recvbuf, count, dtype, root, comm, req);
}

gdc_status_t gdc_scatter(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm)
{
    return scatter_start(&scatter_call, sendbuf, recvbuf, count, dtype, root, comm, NULL);
}
