/*
 * bcast shm: the root copies the message chunk by chunk into its shared memory (double
 * buffered), every other rank copies each chunk out as soon as the root's counter says it
 * is there. Two copies of the data in all, the readers in parallel.
 */
#include "algos.h"

#include <string.h>

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_bcast_shm)
{
    int    me    = args->rank, root = args->root;
    int    ring  = gdc_coll_shm_in_ring(args);
    size_t chunk = ring && args->count > 0 ? args->count : gdc_coll_shm_chunk_elems(args, 1);
    size_t nchunks = (args->count + chunk - 1) / chunk;

    int    published = -1; /* the root's signal of the chunk before */

    for (size_t j = 0; j < nchunks; j++) {
        size_t   first = j * chunk, len = args->count - first < chunk ? args->count - first : chunk;
        size_t   slot  = ring ? 0 : (j % 2) * chunk * args->dsize;
        uint32_t now = (uint32_t)j + 1, prior = j >= 2 ? (uint32_t)j - 1 : 0;
        gdc_coll_region_t data = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, first, len);

        if (me == root) {
            /* the slot is free once every reader copied chunk j-2 out of it */
            int readers = gdc_coll_shm_wait_free(sched, ring, prior, -1);
            int copied  = gdc_coll_copy(sched, gdc_coll_shm_place(me, me, ring, slot, data.length), data, readers);
            /* the readers hear of chunk j-1 before chunk j is copied: the engine runs ready
             * steps in order, and the copy of chunk 1, ready from the start, came before
             * the signal of chunk 0, so two ranks took turns instead of copying at once */
            gdc_coll_after(sched, copied, published);
            published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
        } else {
            int there = gdc_coll_wait(sched, root, GDC_COLL_SHM_COPIED, now, -1);
            int done  = gdc_coll_copy(sched, data, gdc_coll_shm_place(root, me, ring, slot, data.length), there);
            gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
        }
    }
    return GDC_SUCCESS;
}

/* The fast path, for a message of one chunk: the root publishes once its readers are done
 * with the call before (a ring before, for small ones), the others copy it out. */
GDC_COLL_RUN_BLOCKING(gdc_coll_bcast_shm_run_blocking)
{
    int    me    = fast->shm->local_index, root = args->root;
    size_t bytes = args->count * args->dsize;
    int    ring  = gdc_coll_shm_in_ring(args);

    if (!ring && args->count > gdc_coll_shm_chunk_elems(args, 1)) {
        return 0;
    }
    if (me == root) {
        if ((*status = gdc_coll_fast_wait_free(fast, ring)) == GDC_SUCCESS) {
            memcpy(gdc_coll_fast_place(fast, me, ring), bufs->output, bytes);
            gdc_coll_fast_publish(fast, ring);
        }
        return 1;
    }
    if ((*status = gdc_coll_fast_wait_published(fast, root, ring)) == GDC_SUCCESS) {
        memcpy(bufs->output, gdc_coll_fast_place(fast, root, ring), bytes);
    }
    return 1;
}
