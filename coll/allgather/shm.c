/*
 * allgather shm: each rank copies its block, chunk by chunk, into its shared memory; every
 * rank copies each peer's chunk out as soon as that peer's counter says it is there.
 */
#include "algos.h"

#include <string.h>

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_allgather_shm)
{
    int    n = args->size, me = args->rank;
    int    ring = gdc_coll_shm_in_ring(args), published = -1;
    size_t blk = args->count, chunk = ring && blk > 0 ? blk : gdc_coll_shm_chunk_elems(args, 1);
    size_t nchunks = (blk + chunk - 1) / chunk;
    gdc_coll_region_t mine = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk)
                                            : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);

    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk), mine, -1);
    }
    for (size_t j = 0; j < nchunks; j++) {
        size_t            first = j * chunk, len = blk - first < chunk ? blk - first : chunk;
        size_t            slot  = ring ? 0 : (j % 2) * chunk * args->dsize;
        uint32_t          now = (uint32_t)j + 1, prior = j >= 2 ? (uint32_t)j - 1 : 0;
        gdc_coll_region_t part = mine;
        int               readers, copied, done = -1;

        part.offset += first * args->dsize;
        part.length  = len * args->dsize;
        readers = gdc_coll_shm_wait_free(sched, ring, prior, -1);
        copied  = gdc_coll_copy(sched, gdc_coll_shm_place(me, me, ring, slot, part.length), part, readers);
        /* my readers hear of chunk j-1 before I copy chunk j in (as in bcast shm) */
        gdc_coll_after(sched, copied, published);
        published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
        for (int p = 0; p < n; p++) {
            int there;
            if (p == me) {
                continue;
            }
            there = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, now, done);
            done  = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)p + first, len),
                                  gdc_coll_shm_place(p, me, ring, slot, part.length), there);
        }
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
    }
    return GDC_SUCCESS;
}

static size_t slot_start(const gdc_coll_args_t *args, int p)
{
    return 0;
}

static size_t block_of(const gdc_coll_args_t *args, int p)
{
    return args->count * args->dsize * (size_t)p;
}

/* The fast path, for blocks of one chunk: my block in my segment, everyone's out of theirs. */
GDC_COLL_RUN_BLOCKING(gdc_coll_allgather_shm_run_blocking)
{
    int    me    = fast->shm->local_index;
    size_t bytes = args->count * args->dsize;
    int    ring  = gdc_coll_shm_in_ring(args);

    if (!ring && args->count > gdc_coll_shm_chunk_elems(args, 1)) {
        return 0;
    }
    if (!args->in_place) {
        memcpy((char *)bufs->output + block_of(args, me), bufs->input, bytes);
    }
    if ((*status = gdc_coll_fast_wait_free(fast, ring)) != GDC_SUCCESS) {
        return 1;
    }
    memcpy(gdc_coll_fast_place(fast, me, ring), bufs->input, bytes);
    gdc_coll_fast_publish(fast, ring);
    *status = gdc_coll_fast_collect(fast, args, bufs->output, ring, slot_start, block_of);
    return 1;
}
