/*
 * allreduce shm_direct: every rank puts its whole vector in its shared memory, raises a
 * counter, and reduces all the ranks' copies itself, in rank order (so every rank gets
 * the same bits). One cache-line hop between ranks instead of message rounds: the
 * latency path for small messages inside a node.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "engine/fast.h"
#include "phase/shm.h"

int gdc_coll_allreduce_shm_direct_supports(const gdc_coll_args_t *args)
{
    size_t vector = args->count * args->dsize;

    return gdc_coll_shm_direct_supports(args, vector, vector * (size_t)args->size);
}

GDC_COLL_BUILDER(gdc_coll_allreduce_shm_direct)
{
    int               me    = args->rank;
    size_t            bytes = args->count * args->dsize;
    int               ring  = gdc_coll_shm_in_ring(args);
    size_t            at    = gdc_coll_shm_place_data_at(args, ring);
    gdc_coll_region_t out   = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    int               free_slot, copied, all;

    /* my place is free once everyone is done with the last call (a ring before, small) */
    free_slot = gdc_coll_shm_wait_free(sched, ring, 0, -1);
    copied    = gdc_coll_copy(sched, gdc_coll_shm_place(me, me, ring, at, bytes),
                              gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), free_slot);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, copied);
    all = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, -1);
    /* in place, the output overlays the input; the executor raises DONE when the run is over */
    (void)gdc_coll_shm_reduce_places(sched, out, ring, at, all, copied);
    return GDC_SUCCESS;
}

/* The fast path: publish the vector, wait for everyone's, reduce in rank order. */
GDC_COLL_RUN_BLOCKING(gdc_coll_allreduce_shm_direct_run_blocking)
{
    size_t bytes = args->count * args->dsize;
    int    ring  = gdc_coll_shm_in_ring(args);
    size_t at    = gdc_coll_shm_place_data_at(args, ring);

    if ((*status = gdc_coll_fast_share_all(fast, bufs->input, bytes, ring, at, 0, bytes, 0)) == GDC_SUCCESS) {
        /* my own vector from my input, not from my place (2 ranks, 1 to 32 KiB: 0.71 to 0.89 of
         * the time, bench/RESULTS.md 2026-12-06 20:56); in place, the output the reduction
         * writes first is the input, which a rank after the first two reads later */
        gdc_coll_fast_reduce_places(fast, args, bufs->output, ring, at, args->in_place ? NULL : bufs->input);
    }
    return 1;
}
