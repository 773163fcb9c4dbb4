/*
 * allreduce ipc_leader: ranks sharing one GPU. Rank 0 reduces every rank's vector, in rank
 * order, into every rank's output with one kernel that reads each input once and writes
 * each output once (a chain of two-operand kernels and copies would read and write the
 * vector 5n-4 times, this one 2n), queued on its stream and waited for once; the others
 * publish and wait for its DONE. Every GPU operation of the call comes from one context
 * (phase/ipc.h). In place is the same: a thread reads its element of every input before it
 * writes any output.
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_ipc_leader)
{
    int published;

    if (gdc_coll_ipc_follow(sched, 0, &published)) {
        return GDC_SUCCESS;
    }
    gdc_coll_ipc_lead_done(sched, gdc_coll_reduce_all(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count),
                                                      gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), 1,
                                                      published));
    return GDC_SUCCESS;
}
