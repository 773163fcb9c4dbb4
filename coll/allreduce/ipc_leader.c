/*
 * allreduce ipc_leader: ranks sharing one GPU. Rank 0 reduces every rank's vector into its
 * output, in rank order, then copies the result into every other rank's output, all queued
 * on its stream and waited for once; the others publish and wait for its DONE. Every GPU
 * operation of the call comes from one context (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_ipc_leader)
{
    gdc_coll_region_t out = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    int               published, last;

    if (gdc_coll_ipc_follow(sched, 0, &published)) {
        return GDC_SUCCESS;
    }
    /* in place my output is my input: the first kernel reads it element by element as it writes */
    last = gdc_coll_ipc_reduce_inputs(sched, out, 0, args->count, 0, published);
    if (args->op == GDC_AVG) {
        last = gdc_coll_avg(sched, out, last);
    }
    for (int p = 1; p < args->size; p++) {
        last = gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, p, 0, args->count), out, last);
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
