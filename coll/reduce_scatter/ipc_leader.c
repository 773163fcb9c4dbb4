/*
 * reduce_scatter ipc_leader: ranks sharing one GPU. Rank 0 reduces block j of every rank's
 * input, in rank order, straight into rank j's output, for every j: two inputs at a time,
 * or with GDC_DEVICE_FUSED one kernel per block that reads each input's block once; queued
 * on its stream and waited for once; the others publish and wait for its DONE
 * (phase/ipc.h). Not in place: an output would be written before the other blocks of its
 * input are read.
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
        gdc_coll_region_t out = gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, to, 0, blk);

        if (args->config->device_fused) {
            last = gdc_coll_reduce_all(sched, out, gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)to, blk), 0, last);
            continue;
        }
        last = gdc_coll_ipc_reduce_inputs(sched, out, blk * (size_t)to, blk, 0, last);
        if (args->op == GDC_AVG) {
            last = gdc_coll_avg(sched, out, last);
        }
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
