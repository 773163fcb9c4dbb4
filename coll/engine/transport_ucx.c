/* The executor's message steps as UCX tagged messages (gdc_rt_msg), and its shared-memory
 * waits watched for dead peers: the transport of a run in a real job. */
#include <stdio.h>

#include "engine/run.h"

static int ucx_post(gdc_coll_exec_t *exec, uint32_t s, void *ptr, size_t len, gdc_status_t *status)
{
    gdc_coll_stage_t      *stage = exec->transport_ctx;
    struct gdc_comm       *comm  = stage->run->comm;
    const gdc_coll_step_t *step  = &stage->sched->steps[s];
    gdc_rt_msg_t          *msg   = &stage->msgs[step->msg];
    int                    peer  = gdc_rt_comm_world_rank(comm, step->peer);
    gdc_rt_memtype_t       type  = stage->on_device ? GDC_RT_MEM_CUDA : GDC_RT_MEM_HOST;

    if (step->kind == GDC_COLL_STEP_SEND) {
        gdc_rt_msg_send(msg, peer, gdc_rt_tag_coll(comm->ctx, (uint32_t)comm->rank, stage->seq, step->slot), ptr, len,
                        type);
    } else {
        gdc_rt_msg_recv(msg, peer, gdc_rt_tag_coll(comm->ctx, (uint32_t)step->peer, stage->seq, step->slot), ptr, len,
                        type);
    }
    if (!gdc_rt_msg_test(msg)) {
        return 0;
    }
    *status = msg->status;
    return 1;
}

/* A message of the wrong length means the ranks disagree on the call. */
static gdc_status_t check_length(const gdc_coll_stage_t *stage, const gdc_rt_msg_t *msg, gdc_status_t status)
{
    const char *coll = gdc_coll_type_name(stage->sched->args.coll), *algo = stage->sched->algo->name;

    if (status == GDC_SUCCESS && msg->is_recv && msg->received != msg->length) {
        GDC_LOG_ERROR("%s(%s) seq %u: %zu bytes arrived from rank %d where %zu were expected: "
                      "do all ranks call it with the same count and datatype?",
                      coll, algo, stage->seq, msg->received, msg->peer_world, msg->length);
        return GDC_ERR_INVALID_ARG;
    }
    if (status == GDC_ERR_TRUNCATED) {
        GDC_LOG_ERROR("%s(%s) seq %u: a message from rank %d is longer than expected: do all ranks "
                      "call it with the same count and datatype?",
                      coll, algo, stage->seq, msg->peer_world);
    }
    return status;
}

static int ucx_test(gdc_coll_exec_t *exec, uint32_t s, gdc_status_t *status)
{
    gdc_coll_stage_t      *stage = exec->transport_ctx;
    const gdc_coll_step_t *step  = &stage->sched->steps[s];
    gdc_rt_msg_t          *msg   = &stage->msgs[step->msg];

    if (step->kind == GDC_COLL_STEP_WAIT) {
        if (!gdc_rt_ucx_peer_failed(gdc_coll_run_local_world_rank(stage->run, step->peer))) {
            return 0;
        }
        *status = GDC_ERR_PEER_FAILED;
        return 1;
    }
    if (!gdc_rt_msg_test(msg)) {
        return 0;
    }
    *status = check_length(stage, msg, msg->status);
    return 1;
}

static void ucx_cancel(gdc_coll_exec_t *exec, uint32_t s, gdc_status_t status)
{
    gdc_coll_stage_t *stage = exec->transport_ctx;
    gdc_rt_msg_t     *msg   = &stage->msgs[stage->sched->steps[s].msg];

    gdc_rt_msg_cancel(msg, status);
    gdc_rt_msg_test(msg);
}

const gdc_coll_transport_t gdc_coll_ucx_transport = {ucx_post, ucx_test, ucx_cancel};
