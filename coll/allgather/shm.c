/*
 * allgather shm: each rank copies its block, chunk by chunk, into its ring (a chunk a slot:
 * gdc_coll_shm_chunks); every rank copies each peer's chunk out as soon as that peer's
 * counter says it is there.
 */
#include "algos.h"

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_allgather_shm)
{
    int                   n = args->size, me = args->rank, published = -1;
    size_t                blk = args->count;
    gdc_coll_shm_chunks_t c   = gdc_coll_shm_chunks(args, 1);
    gdc_coll_region_t mine = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk)
                                            : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);

    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk), mine, -1);
    }
    for (size_t j = 0; j < c.count; j++) {
        size_t            first = j * c.elems, len = blk - first < c.elems ? blk - first : c.elems;
        uint32_t          now  = (uint32_t)j + 1;
        gdc_coll_region_t part = mine;
        int               readers, copied, done = -1;

        part.offset += first * args->dsize;
        part.length  = len * args->dsize;
        readers = gdc_coll_shm_chunk_free(sched, &c, j, -1);
        copied  = gdc_coll_copy(sched, gdc_coll_shm_chunk_place(&c, me, me, j, 0, part.length), part, readers);
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
                                  gdc_coll_shm_chunk_place(&c, p, me, j, 0, part.length), there);
        }
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
    }
    return GDC_SUCCESS;
}

static size_t slot_start(const gdc_coll_args_t *args, int p)
{
    return gdc_coll_shm_place_data_at(args, 1);
}

static size_t block_of(const gdc_coll_args_t *args, int p)
{
    return args->count * args->dsize * (size_t)p;
}

/* The fast path, for a block of one ring slot: my block in my slot, everyone's out of theirs. */
GDC_COLL_RUN_BLOCKING(gdc_coll_allgather_shm_run_blocking)
{
    int    me    = fast->shm->local_index;
    size_t bytes = args->count * args->dsize;
    int    ring  = 1;

    if (!gdc_coll_shm_in_ring(args)) {
        return 0;
    }
    if (!args->in_place) {
        gdc_coll_copy_host((char *)bufs->output + block_of(args, me), bufs->input, bytes);
    }
    if ((*status = gdc_coll_fast_wait_free(fast, ring)) != GDC_SUCCESS) {
        return 1;
    }
    gdc_coll_copy_host((char *)gdc_coll_fast_place(fast, me, ring) + slot_start(args, me), bufs->input, bytes);
    gdc_coll_fast_publish(fast, ring);
    *status = gdc_coll_fast_collect(fast, args, bufs->output, ring, slot_start, block_of);
    return 1;
}
