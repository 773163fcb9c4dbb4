/*
 * scatter ipc_leader: ranks sharing one GPU. The root copies each rank's block into its
 * output, queued on its stream and waited for once; the others publish and wait for its
 * DONE (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_scatter_ipc_leader)
{
    size_t blk = args->count;
    int    published, last;

    if (gdc_coll_ipc_follow(sched, args->root, &published)) {
        return GDC_SUCCESS;
    }
    last = published;
    for (int to = 0; to < args->size; to++) {
        if (args->in_place && to == args->root) {
            continue;
        }
        last = gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, to, 0, blk),
                             gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)to, blk), last);
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
