/*
 * bcast ipc_leader: ranks sharing one GPU. The root copies its vector into every other
 * rank's buffer, the copies queued on its stream and waited for once; the others publish
 * and wait for its DONE (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_bcast_ipc_leader)
{
    int published, last;

    if (gdc_coll_ipc_follow(sched, args->root, &published)) {
        return GDC_SUCCESS;
    }
    last = published;
    for (int i = 1; i < args->size; i++) {
        int p = (args->root + i) % args->size;

        last = gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, p, 0, args->count),
                             gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), last);
    }
    gdc_coll_ipc_lead_done(sched, last);
    return GDC_SUCCESS;
}
