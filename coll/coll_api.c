/*
 * The public collectives. Declared with their final signatures in gdc.h; the schedule
 * engine that implements them lands with the collectives issue. Until then each call
 * checks that gdc is initialized and says plainly that it is not implemented.
 */
#include "gdc_rt.h"

static int not_yet(const char *fn)
{
    int status = gdc_rt_check_init(fn);

    if (status != GDC_SUCCESS) {
        return status;
    }
    GDC_LOG_ERROR("%s: collectives are not implemented in this version of gdc", fn);
    return GDC_ERR_UNSUPPORTED;
}

void gdc_coll_register_params(void)
{
}

int gdc_coll_init(void)
{
    return GDC_SUCCESS;
}

void gdc_coll_finalize(void)
{
}

int gdc_barrier(gdc_comm_t comm)
{
    return not_yet("gdc_barrier");
}

int gdc_bcast(void *buf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm)
{
    return not_yet("gdc_bcast");
}

int gdc_reduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
               int root, gdc_comm_t comm)
{
    return not_yet("gdc_reduce");
}

int gdc_allreduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                  gdc_comm_t comm)
{
    return not_yet("gdc_allreduce");
}

int gdc_allgather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm)
{
    return not_yet("gdc_allgather");
}

int gdc_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, gdc_dtype_t dtype,
                       gdc_op_t op, gdc_comm_t comm)
{
    return not_yet("gdc_reduce_scatter");
}

int gdc_alltoall(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm)
{
    return not_yet("gdc_alltoall");
}

int gdc_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,
                  const size_t *recvcounts, const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm)
{
    return not_yet("gdc_alltoallv");
}

int gdc_gather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
               gdc_comm_t comm)
{
    return not_yet("gdc_gather");
}

int gdc_scatter(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                gdc_comm_t comm)
{
    return not_yet("gdc_scatter");
}

int gdc_ibarrier(gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_ibarrier");
}

int gdc_ibcast(void *buf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_ibcast");
}

int gdc_ireduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                int root, gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_ireduce");
}

int gdc_iallreduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                   gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_iallreduce");
}

int gdc_iallgather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm,
                   gdc_request_t *req)
{
    return not_yet("gdc_iallgather");
}

int gdc_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, gdc_dtype_t dtype,
                        gdc_op_t op, gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_ireduce_scatter");
}

int gdc_ialltoall(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm,
                  gdc_request_t *req)
{
    return not_yet("gdc_ialltoall");
}

int gdc_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,
                   const size_t *recvcounts, const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm,
                   gdc_request_t *req)
{
    return not_yet("gdc_ialltoallv");
}

int gdc_igather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_igather");
}

int gdc_iscatter(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                 gdc_comm_t comm, gdc_request_t *req)
{
    return not_yet("gdc_iscatter");
}
