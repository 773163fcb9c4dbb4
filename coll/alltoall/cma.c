/*
 * alltoall cma: every rank reads its block from each other rank's send buffer by
 * cross-memory attach (process_vm_readv), one copy per block where alltoall shm makes two
 * (into the sender's segment, out of it). Each publishes its send buffer and raises
 * COPIED; reads go round from the next rank on, so that not every rank reads from the same
 * one at once; a rank says it is done reading (DONE) and returns once every other rank has
 * said so (they read its send buffer until then). Not in place: there a rank's buffer is
 * overwritten while the others still read from it.
 */
#include "algos.h"

#include <stdlib.h>

#include "phase/shm.h"

GDC_COLL_SUPPORTS(gdc_coll_alltoall_cma_supports)
{
    return gdc_coll_cma_supports(args) && !args->in_place;
}

GDC_COLL_BUILDER(gdc_coll_alltoall_cma)
{
    int    n = args->size, me = args->rank, num = 0, last;
    size_t blk = args->count, bytes = blk * args->dsize;
    int   *waits = malloc((size_t)(n + 1) * sizeof(int));

    if (waits == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return GDC_ERR_NO_MEMORY;
    }
    gdc_coll_share_user(sched);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1); /* my send buffer is published */
    last = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk),
                         gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)me, blk), -1);
    for (int i = 1; i < n; i++) {
        int p     = (me + i) % n;
        int there = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, 1, -1);
        int read  = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)p, blk),
                                  gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, p, bytes * (size_t)me, bytes), there);

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
