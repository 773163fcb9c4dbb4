/*
 * gather cma: one copy of each block, made by the rank it comes from. The root publishes
 * its receive buffer (raising a counter at once), every other rank writes its block
 * straight into it by cross-memory attach (process_vm_writev) and says so, the root copies
 * its own and returns once all have written. Against gather shm: one copy instead of two,
 * made by the senders in parallel, and one hand-off between root and sender instead of one
 * per chunk (scatter cma says what that is worth where ranks outnumber the cores).
 */
#include "algos.h"

#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_gather_cma)
{
    size_t blk = args->count;

    if (args->rank != args->root) {
        int wrote = gdc_coll_cma_copy(sched, args->root,
                                      gdc_coll_rgn_peer_user(GDC_COLL_PEER_OUTPUT, args->root,
                                                             blk * args->dsize * (size_t)args->rank, blk * args->dsize),
                                      gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk), -1);
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, wrote);
        return GDC_SUCCESS;
    }
    gdc_coll_cma_publish(sched);
    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk), -1);
    }
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1); /* every sender has written */
    return GDC_SUCCESS;
}
