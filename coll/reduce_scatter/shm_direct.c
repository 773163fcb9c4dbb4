/*
 * reduce_scatter shm_direct: every rank puts its whole vector in its shared memory, raises
 * a counter, and reduces its own block of all the ranks' copies, in rank order. The
 * reduce-scatter twin of allreduce shm_direct: one cache-line hop instead of message
 * rounds, each rank reading only the block it keeps; the latency path for small vectors
 * inside a node.
 */
#include "algos.h"


#include "engine/fast.h"
#include "phase/shm.h"

int gdc_coll_reduce_scatter_shm_direct_supports(const gdc_coll_args_t *args)
{
    size_t block = args->count * args->dsize;

    return gdc_coll_shm_direct_supports(args, block * (size_t)args->size, block * (size_t)args->size);
}

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_shm_direct)
{
    int               n = args->size, me = args->rank;
    size_t            block = args->count * args->dsize, bytes = block * (size_t)n, mine = block * (size_t)me;
    int               ring  = gdc_coll_shm_in_ring(args);
    size_t            at    = gdc_coll_shm_place_data_at(args, ring);
    gdc_coll_region_t out   = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    int               free_slot, copied, all;

    /* my place is free once everyone is done with the last call (a ring before, small) */
    free_slot = gdc_coll_shm_wait_free(sched, ring, 0, -1);
    copied    = gdc_coll_copy(sched, gdc_coll_shm_place(me, me, ring, at, bytes),
                              gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count * (size_t)n), free_slot);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, copied);
    all = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, -1);
    /* in place, the output overlays the input; the executor raises DONE when the run is over */
    (void)gdc_coll_shm_reduce_places(sched, out, ring, at + mine, all, copied);
    return GDC_SUCCESS;
}

/* The fast path: publish the vector but my block (no one else reads it), wait for
 * everyone's, reduce my block in rank order, mine from my input. */
GDC_COLL_RUN_BLOCKING(gdc_coll_reduce_scatter_shm_direct_run_blocking)
{
    int    me    = fast->shm->local_index;
    size_t block = args->count * args->dsize, bytes = block * (size_t)args->size, mine = block * (size_t)me;
    int    ring  = gdc_coll_shm_in_ring(args);
    size_t at    = gdc_coll_shm_place_data_at(args, ring);

    if ((*status = gdc_coll_fast_share_all(fast, bufs->input, bytes, ring, at, mine, block, 1)) == GDC_SUCCESS) {
        gdc_coll_fast_reduce_places(fast, args, bufs->output, ring, at + mine, (const char *)bufs->input + mine);
    }
    return 1;
}
