/*
 * alltoall shm: each rank copies, chunk by chunk, its block for every peer into its shared
 * memory (a chunk a ring slot, a part per peer, or the data area: gdc_coll_shm_chunks); each
 * rank copies the blocks meant for it out of every peer's. In place, a block's place is
 * overwritten only after this rank copied its own block for that peer out of it.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_alltoall_shm)
{
    int                   n = args->size, me = args->rank;
    size_t                blk = args->count;
    gdc_coll_shm_chunks_t c   = gdc_coll_shm_chunks(args, (size_t)n);
    int                  *given = malloc((size_t)n * sizeof(int)), published = -1;

    if (given == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)me, blk), -1);
    }
    for (size_t j = 0; j < c.count; j++) {
        size_t   first = j * c.elems, len = blk - first < c.elems ? blk - first : c.elems;
        uint32_t now     = (uint32_t)j + 1;
        int      readers = gdc_coll_shm_chunk_free(sched, &c, j, -1), done = -1;

        for (int p = 0; p < n; p++) {
            if (p == me) {
                given[p] = -1;
                continue;
            }
            given[p] = gdc_coll_copy(sched, gdc_coll_shm_chunk_place(&c, me, me, j, (size_t)p, len * args->dsize),
                                     gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)p + first, len), readers);
        }
        /* my readers hear of chunk j-1 before I copy chunk j in (as in bcast shm) */
        for (int p = 0; p < n; p++) {
            gdc_coll_after(sched, given[p], published);
        }
        published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, gdc_coll_join(sched, given, n));
        for (int p = 0; p < n; p++) {
            int there;
            if (p == me) {
                continue;
            }
            there = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, now, given[p]);
            gdc_coll_after(sched, there, done);
            done = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)p + first, len),
                                 gdc_coll_shm_chunk_place(&c, p, me, j, (size_t)me, len * args->dsize), there);
        }
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
    }
    free(given);
    return GDC_SUCCESS;
}

static size_t block_of(const gdc_coll_args_t *args, int p)
{
    return args->count * args->dsize * (size_t)p;
}

/* Where p's place holds its block for me: at my room among p's blocks (a block in the
 * call's slot: the small calls' case, on every peer of the fast path's collect). */
static size_t slot_for_me(const gdc_coll_args_t *args, int p)
{
    gdc_coll_shm_chunks_t c = gdc_coll_shm_chunks(args, (size_t)args->size);

    return c.at + c.room * (size_t)args->rank;
}

/* The fast path, for blocks of one chunk (in the call's ring slot, or in the data area):
 * my block for p in my place at p's room, mine out of theirs (in place, every block goes
 * into my place before any place is overwritten). */
GDC_COLL_RUN_BLOCKING(gdc_coll_alltoall_shm_run_blocking)
{
    gdc_coll_shm_chunks_t c     = gdc_coll_shm_chunks(args, (size_t)args->size);
    int                   me    = fast->shm->local_index;
    size_t                bytes = args->count * args->dsize;
    int                   ring  = c.one_slot;
    char                 *mine  = gdc_coll_fast_place(fast, me, ring);

    if (!c.one_slot && (c.ring || c.count != 1)) {
        return 0;
    }
    if (!args->in_place) {
        gdc_coll_copy_host((char *)bufs->output + block_of(args, me), (const char *)bufs->input + block_of(args, me),
                           bytes);
    }
    if ((*status = gdc_coll_fast_wait_free(fast, ring)) != GDC_SUCCESS) {
        return 1;
    }
    for (int p = 0; p < fast->shm->local_size; p++) {
        if (p != me) {
            gdc_coll_copy_host(mine + c.at + c.room * (size_t)p, (const char *)bufs->input + block_of(args, p), bytes);
        }
    }
    gdc_coll_fast_publish(fast, ring);
    *status = gdc_coll_fast_collect(fast, args, bufs->output, ring, slot_for_me, block_of);
    return 1;
}
