/*
 * bcast shm: the root copies the message chunk by chunk into its shared memory, every other
 * rank copies each chunk out as soon as the root's counter says it is there. Two copies of
 * the data in all, the readers in parallel. The chunks go through the root's ring, one a
 * slot (phase/shm.h): the root waits for its readers a ring behind, not two chunks behind
 * as it did in its data area (4 ranks on 2 cores: 512 KiB took 4 times as long as 256 KiB,
 * a ring slot's worth, bench/RESULTS.md 2026-12-05).
 */
#include "algos.h"

#include <string.h>

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_bcast_shm)
{
    int    me      = args->rank, root = args->root, one_slot = gdc_coll_shm_in_ring(args);
    size_t chunk   = one_slot && args->count > 0 ? args->count : gdc_coll_shm_ring_chunk_elems(args);
    size_t nchunks = (args->count + chunk - 1) / chunk;
    /* one slot: right after the stamp, where the fast path puts it (the data in the stamp's
     * line); a chunk of many: on a line of its own */
    size_t at = one_slot ? 0 : GDC_RT_SHM_RING_ALIGNED;
    int    published = -1; /* the root's signal of the chunk before */

    for (size_t j = 0; j < nchunks; j++) {
        size_t            first = j * chunk, len = args->count - first < chunk ? args->count - first : chunk;
        uint32_t          now  = (uint32_t)j + 1;
        gdc_coll_region_t data = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, first, len);

        if (me == root) {
            int readers = gdc_coll_shm_wait_slot_free(sched, now, -1);
            int copied  = gdc_coll_copy(sched, gdc_coll_rgn_ring(me, me, j, at, data.length), data, readers);
            /* the readers hear of chunk j-1 before chunk j is copied: the engine runs ready
             * steps in order, and the copy of chunk 1, ready from the start, came before
             * the signal of chunk 0, so two ranks took turns instead of copying at once */
            gdc_coll_after(sched, copied, published);
            published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
        } else {
            int there = gdc_coll_wait(sched, root, GDC_COLL_SHM_COPIED, now, -1);
            int done  = gdc_coll_copy(sched, data, gdc_coll_rgn_ring(root, me, j, at, data.length), there);
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
    if ((*status = gdc_coll_fast_wait_published(fast, root, 1)) == GDC_SUCCESS) {
        memcpy(bufs->output, gdc_coll_fast_place(fast, root, 1), bytes);
    }
    return 1;
}
