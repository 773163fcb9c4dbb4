/*
 * allgather cma: every rank reads each other rank's block straight from that rank's input
 * by cross-memory attach (process_vm_readv): one copy per block, where allgather shm makes
 * one into the owner's segment and one out per reader. Each publishes its input and raises
 * COPIED; reads go round from the next rank on, so that not every rank reads from the same
 * one at once; a rank says it is done reading (DONE) and returns once every other rank has
 * said so (they read its input until then). In place too: a rank's input is its own block
 * of its output, which no step of its own writes.
 */
#include "algos.h"

#include <stdlib.h>

#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_allgather_cma)
{
    int    n = args->size, me = args->rank, num = 0, last = -1;
    size_t blk = args->count, bytes = blk * args->dsize;
    int   *waits = malloc((size_t)(n + 1) * sizeof(int));

    if (waits == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return GDC_ERR_NO_MEMORY;
    }
    gdc_coll_share_user(sched);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1); /* my input is published */
    if (!args->in_place) {
        last = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk),
                             gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk), -1);
    }
    for (int i = 1; i < n; i++) {
        int p     = (me + i) % n;
        int there = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, 1, -1);
        int read  = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)p, blk),
                                  gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, p, 0, bytes), there);

        gdc_coll_after(sched, read, last);
        last = read;
    }
    waits[num++] = gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    for (int p = 0; p < n; p++) {
        if (p != me) {
            waits[num++] = gdc_coll_wait(sched, p, GDC_COLL_SHM_DONE, 1, -1);
        }
    }
    gdc_coll_join(sched, waits, num);
    free(waits);
    return GDC_SUCCESS;
}
