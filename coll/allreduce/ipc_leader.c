/*
 * allreduce ipc_leader: ranks sharing one GPU. Rank 0 reduces every rank's vector, in rank
 * order, into its output two inputs at a time, then copies the result into every other
 * rank's output; with GDC_DEVICE_FUSED one kernel reads each input once and writes each
 * output once instead (the chain reads and writes the vector 5n-4 times, that kernel 2n).
 * Queued on its stream and waited for once; the others publish and wait for its DONE.
 * Every GPU operation of the call comes from one context (phase/ipc.h). In place is the
 * same: each element of the leader's input is read before it is written, and the others'
 * outputs are written after every input was read.
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
    if (args->config->device_fused) {
        gdc_coll_ipc_lead_done(sched, gdc_coll_reduce_all(sched, out, gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count),
                                                          1, published));
        return GDC_SUCCESS;
    }
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
