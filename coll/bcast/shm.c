/*
 * bcast shm: the root copies the message chunk by chunk into its shared memory, every other
 * rank copies each chunk out as soon as the root's counter says it is there. Two copies of
 * the data in all, the readers in parallel. The chunks go through the root's ring, one a
 * slot (gdc_coll_shm_chunks).
 */
#include "algos.h"

#include <string.h>

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_bcast_shm)
{
    int                   me = args->rank, root = args->root;
    gdc_coll_shm_chunks_t c  = gdc_coll_shm_chunks(args, 1);
    int                   published = -1; /* the root's signal of the chunk before */

    for (size_t j = 0; j < c.count; j++) {
        size_t            first = j * c.elems, len = args->count - first < c.elems ? args->count - first : c.elems;
        uint32_t          now  = (uint32_t)j + 1;
        gdc_coll_region_t data = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, first, len);

        if (me == root) {
            int readers = gdc_coll_shm_chunk_free(sched, &c, j, -1);
            int copied  = gdc_coll_copy(sched, gdc_coll_shm_chunk_place(&c, me, me, j, 0, data.length), data, readers);
            /* the readers hear of chunk j-1 before chunk j is copied: the engine runs ready
             * steps in order, and the copy of chunk 1, ready from the start, came before
             * the signal of chunk 0, so two ranks took turns instead of copying at once */
            gdc_coll_after(sched, copied, published);
            published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
        } else {
            int there = gdc_coll_wait(sched, root, GDC_COLL_SHM_COPIED, now, -1);
            int done  = gdc_coll_copy(sched, data, gdc_coll_shm_chunk_place(&c, root, me, j, 0, data.length), there);
            gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
        }
    }
    return GDC_SUCCESS;
}

/* The fast path, for a message of one ring slot: the root publishes once its readers are
 * done with the call a ring before, the others copy it out. */
GDC_COLL_RUN_BLOCKING(gdc_coll_bcast_shm_run_blocking)
{
    int    me    = fast->shm->local_index, root = args->root;
    size_t bytes = args->count * args->dsize;

    if (!gdc_coll_shm_in_ring(args)) {
        return 0;
    }
    if (me == root) {
        if ((*status = gdc_coll_fast_wait_free(fast, 1)) == GDC_SUCCESS) {
            memcpy(gdc_coll_fast_place(fast, me, 1), bufs->output, bytes);
            gdc_coll_fast_publish(fast, 1);
        }
        return 1;
    }
    if ((*status = gdc_coll_fast_wait_published(fast, root, 1, 0, bytes)) == GDC_SUCCESS) {
        memcpy(bufs->output, gdc_coll_fast_place(fast, root, 1), bytes);
    }
    return 1;
}
