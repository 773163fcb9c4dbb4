/*
 * gather ipc_leader: ranks sharing one GPU. The root copies every rank's block into its
 * output, queued on its stream and waited for once; the others publish and wait for its
 * DONE (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_gather_ipc_leader)
{
    size_t blk = args->count;
    int    published, last;

    if (gdc_coll_ipc_follow(sched, args->root, &published)) {
        return GDC_SUCCESS;
    }
    last = published;
    for (int from = 0; from < args->size; from++) {
        if (args->in_place && from == args->root) {
            continue;
        }
        last = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)from, blk),
                             gdc_coll_ipc_user(sched, GDC_COLL_INPUT, from, 0, blk), last);
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
