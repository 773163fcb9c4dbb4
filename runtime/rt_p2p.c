#include "rt_p2p.h"

#include <stdio.h>
#include <string.h>

#include <gdc.h>

#include "rt_args.h"
#include "rt_boot.h"
#include "rt_log.h"
#include "rt_tag.h"

static int p2p_progress(struct gdc_request *req)
{
    if (!gdc_rt_msg_test(&req->msg)) {
        return 0;
    }
    req->status    = req->msg.status;
    req->completed = 1;
    return 1;
}

static void p2p_describe(struct gdc_request *req, char *buf, size_t len)
{
    const gdc_rt_msg_t *msg = &req->msg;
    uint64_t            tag = msg->tag;

    if (gdc_rt_tag_payload(tag) & GDC_RT_TAG_INTERNAL_FLAG) {
        snprintf(buf, len, "communicator setup: rank %d waits %s rank %d", gdc_rt_boot.rank,
                 msg->is_recv ? "for data from" : "to deliver data to", msg->peer_world);
        return;
    }
    snprintf(buf, len, "%s of %zu bytes, tag %d, comm ctx %u: rank %d waits %s rank %d",
             msg->is_recv ? "gdc_irecv" : "gdc_isend", msg->length,
             (int)(gdc_rt_tag_payload(tag) & GDC_RT_TAG_MAX_USER), gdc_rt_tag_ctx(tag),
             gdc_rt_boot.rank, msg->is_recv ? "for a message from" : "for", msg->peer_world);
    if (!msg->is_recv && len > 0) {
        size_t used = strnlen(buf, len);
        snprintf(buf + used, len - used, " to receive it");
    }
}

static void p2p_abort(struct gdc_request *req, gdc_status_t status)
{
    gdc_rt_msg_cancel(&req->msg, status);
    gdc_rt_msg_test(&req->msg);
    req->status    = req->msg.status;
    req->completed = 1;
}

static const gdc_rt_request_ops_t p2p_ops = {
    .name     = "point-to-point",
    .progress = p2p_progress,
    .describe = p2p_describe,
    .abort    = p2p_abort,
    .release  = NULL,
};

static gdc_status_t post(struct gdc_comm *comm, int is_recv, int peer, uint64_t tag, void *buf, size_t len,
                         struct gdc_request **out)
{
    struct gdc_request *req  = gdc_rt_request_new(&p2p_ops);
    int                 peer_world = gdc_rt_comm_world_rank(comm, peer);
    gdc_rt_memtype_t    memtype    = gdc_rt_memtype_of(buf);

    if (req == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    req->comm = comm;
    req->peer = peer;
    if (is_recv) {
        (void)gdc_rt_msg_recv(&req->msg, peer_world, tag, buf, len, memtype);
    } else {
        (void)gdc_rt_msg_send(&req->msg, peer_world, tag, buf, len, memtype);
    }
    p2p_progress(req);
    *out = req;
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_p2p_isend(struct gdc_comm *comm, int peer, uint64_t tag, const void *buf, size_t len,
                              struct gdc_request **out)
{
    return post(comm, 0, peer, tag, (void *)buf, len, out);
}

gdc_status_t gdc_rt_p2p_irecv(struct gdc_comm *comm, int peer, uint64_t tag, void *buf, size_t len,
                              struct gdc_request **out)
{
    return post(comm, 1, peer, tag, buf, len, out);
}

/* ---------------------------------------------------------------------------------------
 * Public point-to-point API
 */

static gdc_status_t check_p2p(const char *fn, const void *buf, size_t count, gdc_dtype_t dtype, int peer,
                              const char *peer_name, int tag, gdc_comm_t comm)
{
    gdc_status_t status;

    if ((status = gdc_rt_check_comm(fn, comm)) != GDC_SUCCESS ||
        (status = gdc_rt_check_dtype(fn, dtype)) != GDC_SUCCESS ||
        (status = gdc_rt_check_buffer(fn, "buf", buf, count, dtype)) != GDC_SUCCESS ||
        (status = gdc_rt_check_rank(fn, peer_name, peer, comm)) != GDC_SUCCESS) {
        return status;
    }
    if (tag < 0 || tag > GDC_TAG_UB) {
        GDC_LOG_ERROR("%s: tag %d is out of range (0..GDC_TAG_UB=%d)", fn, tag, GDC_TAG_UB);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_isend(const void *buf, size_t count, gdc_dtype_t dtype, int dest, int tag, gdc_comm_t comm,
                       gdc_request_t *req)
{
    gdc_status_t status = check_p2p("gdc_isend", buf, count, dtype, dest, "dest", tag, comm);

    if (status == GDC_SUCCESS) {
        status = gdc_rt_check_pointer("gdc_isend", "req", req);
    }
    if (status != GDC_SUCCESS) {
        return status;
    }
    return gdc_rt_p2p_isend(comm, dest, gdc_rt_tag_p2p(comm->ctx, (uint32_t)comm->rank, tag), buf,
                            count * gdc_dtype_size(dtype), req);
}

gdc_status_t gdc_irecv(void *buf, size_t count, gdc_dtype_t dtype, int source, int tag, gdc_comm_t comm,
                       gdc_request_t *req)
{
    gdc_status_t status = check_p2p("gdc_irecv", buf, count, dtype, source, "source", tag, comm);

    if (status == GDC_SUCCESS) {
        status = gdc_rt_check_pointer("gdc_irecv", "req", req);
    }
    if (status != GDC_SUCCESS) {
        return status;
    }
    return gdc_rt_p2p_irecv(comm, source, gdc_rt_tag_p2p(comm->ctx, (uint32_t)source, tag), buf,
                            count * gdc_dtype_size(dtype), req);
}

gdc_status_t gdc_send(const void *buf, size_t count, gdc_dtype_t dtype, int dest, int tag, gdc_comm_t comm)
{
    struct gdc_request *req;
    gdc_status_t        status = check_p2p("gdc_send", buf, count, dtype, dest, "dest", tag, comm);

    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_rt_p2p_isend(comm, dest, gdc_rt_tag_p2p(comm->ctx, (uint32_t)comm->rank, tag), buf,
                              count * gdc_dtype_size(dtype), &req);
    return status == GDC_SUCCESS ? gdc_rt_request_finish(req) : status;
}

gdc_status_t gdc_recv(void *buf, size_t count, gdc_dtype_t dtype, int source, int tag, gdc_comm_t comm)
{
    struct gdc_request *req;
    gdc_status_t        status = check_p2p("gdc_recv", buf, count, dtype, source, "source", tag, comm);

    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_rt_p2p_irecv(comm, source, gdc_rt_tag_p2p(comm->ctx, (uint32_t)source, tag), buf,
                              count * gdc_dtype_size(dtype), &req);
    status = status == GDC_SUCCESS ? gdc_rt_request_finish(req) : status;
    if (status == GDC_ERR_TRUNCATED) {
        GDC_LOG_ERROR("gdc_recv: the message from rank %d (tag %d) is longer than %zu %s", source, tag,
                      count, gdc_rt_dtype_name(dtype));
    }
    return status;
}

/* ---------------------------------------------------------------------------------------
 * Requests
 */

static gdc_status_t check_request(const char *fn, gdc_request_t *req)
{
    gdc_status_t status = gdc_rt_check_init(fn);

    if (status != GDC_SUCCESS || (status = gdc_rt_check_pointer(fn, "req", req)) != GDC_SUCCESS) {
        return status;
    }
    if (*req != GDC_REQUEST_NULL && !gdc_rt_request_valid(*req)) {
        GDC_LOG_ERROR("%s: *req %p is not a live request (already completed, or not a gdc_request_t)",
                      fn, (void *)*req);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_wait(gdc_request_t *req)
{
    gdc_status_t status = check_request("gdc_wait", req);

    if (status != GDC_SUCCESS || *req == GDC_REQUEST_NULL) {
        return status;
    }
    status = gdc_rt_request_finish(*req);
    *req   = GDC_REQUEST_NULL;
    return status;
}

gdc_status_t gdc_test(gdc_request_t *req, int *done)
{
    gdc_status_t status = check_request("gdc_test", req);

    if (status == GDC_SUCCESS) {
        status = gdc_rt_check_pointer("gdc_test", "done", done);
    }
    if (status != GDC_SUCCESS) {
        return status;
    }
    if (*req == GDC_REQUEST_NULL) {
        *done = 1;
        return GDC_SUCCESS;
    }
    if (!gdc_rt_request_test(*req)) {
        *done = 0;
        return GDC_SUCCESS;
    }
    *done  = 1;
    status = (*req)->status;
    gdc_rt_request_free(*req);
    *req = GDC_REQUEST_NULL;
    return status;
}

gdc_status_t gdc_waitall(int n, gdc_request_t *reqs)
{
    gdc_status_t status      = gdc_rt_check_init("gdc_waitall");
    gdc_status_t first_error = GDC_SUCCESS;

    if (status != GDC_SUCCESS) {
        return status;
    }
    if (n < 0) {
        GDC_LOG_ERROR("gdc_waitall: n is negative");
        return GDC_ERR_INVALID_ARG;
    }
    if (n > 0 && (status = gdc_rt_check_pointer("gdc_waitall", "reqs", reqs)) != GDC_SUCCESS) {
        return status;
    }
    for (int i = 0; i < n; i++) {
        if (reqs[i] != GDC_REQUEST_NULL && !gdc_rt_request_valid(reqs[i])) {
            GDC_LOG_ERROR("gdc_waitall: reqs[%d] is not a live request", i);
            return GDC_ERR_INVALID_ARG;
        }
    }
    for (int i = 0; i < n; i++) {
        if (reqs[i] == GDC_REQUEST_NULL) {
            continue;
        }
        status  = gdc_rt_request_finish(reqs[i]);
        reqs[i] = GDC_REQUEST_NULL;
        if (status != GDC_SUCCESS && first_error == GDC_SUCCESS) {
            first_error = status;
        }
    }
    return first_error;
}
