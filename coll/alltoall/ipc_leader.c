/*
 * alltoall ipc_leader: ranks sharing one GPU. Rank 0 copies block j of every rank i's input
 * into block i of rank j's output, queued on its stream and waited for once; the others
 * publish and wait for its DONE (phase/ipc.h). Not in place: a block would be overwritten
 * before it is read.
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_alltoall_ipc_leader)
{
    size_t blk = args->count;
    int    published, last;

    if (gdc_coll_ipc_follow(sched, 0, &published)) {
        return GDC_SUCCESS;
    }
    last = published;
    for (int to = 0; to < args->size; to++) {
        for (int from = 0; from < args->size; from++) {
            last = gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, to, blk * (size_t)from, blk),
                                 gdc_coll_ipc_user(sched, GDC_COLL_INPUT, from, blk * (size_t)to, blk), last);
        }
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
