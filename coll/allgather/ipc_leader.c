/*
 * allgather ipc_leader: ranks sharing one GPU. Rank 0 copies every rank's block into every
 * rank's output (in place, each output's own block is already there), queued on its stream
 * and waited for once; the others publish and wait for its DONE (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_allgather_ipc_leader)
{
    size_t blk = args->count;
    int    published, last;

    if (gdc_coll_ipc_follow(sched, 0, &published)) {
        return GDC_SUCCESS;
    }
    last = published;
    for (int to = 0; to < args->size; to++) {
        for (int from = 0; from < args->size; from++) {
            if (args->in_place && from == to) {
                continue;
            }
            last = gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, to, blk * (size_t)from, blk),
                                 gdc_coll_ipc_user(sched, GDC_COLL_INPUT, from, 0, blk), last);
        }
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
