/*
 * alltoall shm: each rank copies, chunk by chunk, its block for every peer into its shared
 * memory; each rank copies the blocks meant for it out of every peer's segment. In place,
 * a block's place is overwritten only after this rank copied its own block for that peer
 * out of it.
 */
#include "algos.h"

#include <string.h>

#include <stdlib.h>

#include "gdc_rt.h"
#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_alltoall_shm)
{
    int    n = args->size, me = args->rank;
    int    ring = gdc_coll_shm_in_ring(args);
    size_t blk = args->count, chunk = ring && blk > 0 ? blk : gdc_coll_shm_chunk_elems(args, (size_t)n);
    size_t nchunks = (blk + chunk - 1) / chunk;
    int   *given   = malloc((size_t)n * sizeof(int)), published = -1;

    if (given == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)me, blk), -1);
    }
    for (size_t j = 0; j < nchunks; j++) {
        size_t   first = j * chunk, len = blk - first < chunk ? blk - first : chunk;
        size_t   slot  = ring ? 0 : (j % 2) * (size_t)n * chunk * args->dsize;
        uint32_t now = (uint32_t)j + 1, prior = j >= 2 ? (uint32_t)j - 1 : 0;
        int      readers = gdc_coll_shm_wait_free(sched, ring, prior, -1), done = -1;

        for (int p = 0; p < n; p++) {
            given[p] = p == me ? -1
                               : gdc_coll_copy(sched,
                                               gdc_coll_shm_place(me, me, ring, slot + (size_t)p * chunk * args->dsize,
                                                                  len * args->dsize),
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
                                 gdc_coll_shm_place(p, me, ring, slot + (size_t)me * chunk * args->dsize,
                                                    len * args->dsize),
                                 there);
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

/* A block's room in a rank's place: a chunk, or in a ring slot the block itself. */
static size_t room(const gdc_coll_args_t *args, int ring)
{
    return ring ? args->count * args->dsize : gdc_coll_shm_chunk_elems(args, (size_t)args->size) * args->dsize;
}

/* Where p's place holds its block for me: at my room among p's blocks. */
static size_t slot_for_me(const gdc_coll_args_t *args, int p)
{
    return room(args, gdc_coll_shm_in_ring(args)) * (size_t)args->rank;
}

/* The fast path, for blocks of one chunk: my block for p in my segment at p's place, mine
 * out of theirs (in place, every block goes into my segment before any place is
 * overwritten). */
GDC_COLL_RUN_BLOCKING(gdc_coll_alltoall_shm_run_blocking)
{
    int    me    = fast->shm->local_index;
    size_t bytes = args->count * args->dsize;
    int    ring  = gdc_coll_shm_in_ring(args);
    char  *mine  = gdc_coll_fast_place(fast, me, ring);

    if (!ring && args->count > gdc_coll_shm_chunk_elems(args, (size_t)args->size)) {
        return 0;
    }
    if (!args->in_place) {
        memcpy((char *)bufs->output + block_of(args, me), (const char *)bufs->input + block_of(args, me), bytes);
    }
    if ((*status = gdc_coll_fast_wait_free(fast, ring)) != GDC_SUCCESS) {
        return 1;
    }
    for (int p = 0; p < fast->shm->local_size; p++) {
        if (p != me) {
            memcpy(mine + room(args, ring) * (size_t)p, (const char *)bufs->input + block_of(args, p), bytes);
        }
    }
    gdc_coll_fast_publish(fast, ring);
    *status = gdc_coll_fast_collect(fast, args, bufs->output, ring, slot_for_me, block_of);
    return 1;
}
