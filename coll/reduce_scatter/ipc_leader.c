/*
 * reduce_scatter ipc_leader: ranks sharing one GPU. Rank 0 reduces block j of every rank's
 * input, in rank order, straight into rank j's output, for every j: one kernel per block
 * that reads each input's block once, queued on its stream and waited for once; the others
 * publish and wait for its DONE (phase/ipc.h). Not in place: an output would be written
 * before the other blocks of its input are read.
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ipc_leader)
{
    size_t blk = args->count;
    int    published, last;

    if (gdc_coll_ipc_follow(sched, 0, &published)) {
        return GDC_SUCCESS;
    }
    last = published;
    for (int to = 0; to < args->size; to++) {
        last = gdc_coll_reduce_all(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, to, 0, blk),
                                   gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)to, blk), 0, last);
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
