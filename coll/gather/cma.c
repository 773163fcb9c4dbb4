/*
 * gather cma: one copy of each block, made by the rank it comes from. The root publishes
 * its receive buffer (raising a counter at once), every other rank writes its block
 * straight into it by cross-memory attach (process_vm_writev) and says so, the root copies
 * its own and returns once all have written. Against gather shm: one copy instead of two,
 * made by the senders in parallel, and one hand-off between root and sender instead of one
 * per chunk (scatter cma says what that is worth where ranks outnumber the cores).
 */
#include "algos.h"

#include <stdlib.h>

#include "phase/shm.h"

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    int    n = args->size, me = args->rank, num = 0;
    size_t blk = args->count;
    int   *written = malloc((size_t)n * sizeof(int));

    if (written == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    gdc_coll_share_user(sched);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1); /* my buffer is published */
    if (!args->in_place) {
        written[num++] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk),
                                       gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk), -1);
    }
    for (int p = 0; p < n; p++) {
        if (p != me) {
            written[num++] = gdc_coll_wait(sched, p, GDC_COLL_SHM_DONE, 1, -1);
        }
    }
    gdc_coll_join(sched, written, num);
    free(written);
}

static void build_sender(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    size_t bytes = args->count * args->dsize;
    int    there = gdc_coll_wait(sched, args->root, GDC_COLL_SHM_COPIED, 1, -1);
    int    done  = gdc_coll_copy(sched,
                                 gdc_coll_rgn_peer_user(GDC_COLL_PEER_OUTPUT, args->root, bytes * (size_t)args->rank,
                                                        bytes),
                                 gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), there);

    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, done);
}

GDC_COLL_BUILDER(gdc_coll_gather_cma)
{
    if (args->rank == args->root) {
        build_root(sched, args);
    } else {
        build_sender(sched, args);
    }
    return GDC_SUCCESS;
}
